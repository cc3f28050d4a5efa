package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/internal/bounded"
	"github.com/pgpstream/pgpstream/internal/escape"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/tofu"
)

// trustModelName is the trust model in use: gpg's names, with pgp for
// classic and auto.
func (o *options) trustModelName() string {
	switch o.trustModel {
	case "direct":
		return keyring.ModelDirect
	case "always":
		return keyring.ModelAlways
	case "tofu":
		return keyring.ModelTOFU
	case "tofu+pgp":
		return keyring.ModelTOFUPGP
	}
	return keyring.ModelPGP
}

// trust is what gpg writes after a good signature by k: the signer's
// validity as a TRUST_ status line and, returned, after the user ID uid
// on standard error. Under --trust-model always gpg says neither, and
// neither does pgpstream. Under the TOFU models the signature is first
// recorded in the history, which gpg reports after the verdict line: that
// is after, which writes the history and the TRUST_ line; the word is the
// user ID's validity before.
func (s *sigReporter) trust(k *keyring.Key, r filter.SignatureResult, uid string) (word string, after func()) {
	if s.trustModel == keyring.ModelAlways || k == nil || s.ring == nil {
		return "", nil
	}
	if s.trustModel == keyring.ModelTOFU || s.trustModel == keyring.ModelTOFUPGP {
		w := s.ring.UserIDValidity(k.Fingerprint(), uid, s.trustModel)
		return " [" + w.Word() + "]", func() {
			v := s.tofuTrust(k, r)
			s.status.Write(status.Trust{Level: trustLevel(v), Model: s.trustModel})
			s.trustNote(v, k, r)
		}
	}
	v := s.ring.Validity(k.Fingerprint(), s.trustModel)
	s.status.Write(status.Trust{Level: trustLevel(v), Model: s.trustModel})
	return " [" + v.Word() + "]", func() { s.trustNote(v, k, r) }
}

// trustNote is gpg's word on a good signature by a key of validity v
// (check_signatures_trust): a warning for a key that is not fully valid,
// with the fingerprint to check it by; a key that is never valid makes
// the signature a failure (exit 1), as gpg has it, the signature
// probably being forged.
func (s *sigReporter) trustNote(v keyring.OwnerTrust, k *keyring.Key, r filter.SignatureResult) {
	st := s.st
	switch v {
	case keyring.TrustFully, keyring.TrustUltimate:
		return
	case keyring.TrustNever:
		st.say("WARNING: We do NOT trust this key!")
		st.say("         The signature is probably a FORGERY.")
		if r.Status == filter.SigGood {
			s.good--
			s.bad++
		}
		return
	case keyring.TrustMarginal:
		st.say("WARNING: This key is not certified with sufficiently trusted signatures!")
		st.say("         It is not certain that the signature belongs to the owner.")
	default:
		st.say("WARNING: This key is not certified with a trusted signature!")
		st.say("         There is no indication that the signature belongs to the owner.")
	}
	primary := k.PrimaryPublic().Fingerprint
	st.sayMore("Primary key fingerprint: %s", keyring.SpacedFingerprint(primary))
	if r.Key != nil && !bytes.Equal(r.Key.Fingerprint, primary) {
		st.sayMore("     Subkey fingerprint: %s", keyring.SpacedFingerprint(r.Key.Fingerprint))
	}
}

// akaLines are gpg's lines after "Good signature from" for the signer's
// other user IDs, revoked and expired ones left out, each with its
// validity (gpg's default verify-options show-uid-validity).
func (s *sigReporter) akaLines(k *keyring.Key, keyExpired, always bool) {
	if k == nil {
		return
	}
	for _, u := range k.View(clock.Now()).UserIDs {
		if u.Primary || u.Revoked || u.Expired {
			continue
		}
		word := "unknown"
		switch {
		case keyExpired:
			word = "expired"
		case always || s.ring == nil:
		default:
			word = s.ring.UserIDValidity(k.Fingerprint(), u.Name, s.trustModel).Word()
		}
		s.st.say("                aka \"%s\" [%s]", u.Name, word)
	}
}

// trustLevel is the TRUST_ line gpg writes for a signer of validity v.
func trustLevel(v keyring.OwnerTrust) status.TrustLevel {
	switch v {
	case keyring.TrustNever:
		return status.TrustNever
	case keyring.TrustMarginal:
		return status.TrustMarginal
	case keyring.TrustFully:
		return status.TrustFully
	case keyring.TrustUltimate:
		return status.TrustUltimate
	}
	return status.TrustUndefined
}

// checkRecipient applies gpg's rule to a recipient named with -r or -R:
// under every trust model but always, a key is used when it is valid
// (full or ultimate), and with a note when its validity is marginal. A key
// of unknown or undefined validity, or one marked never, is refused:
// INV_RECP 10 and FAILURE encrypt 53 (Unusable public key), the status
// lines GPGME and Emacs read, unless the user, asked without --batch on the
// terminal or through --command-fd, says to use it anyway. --encrypt-to,
// --default-recipient and -f keys are not checked, as in gpg.
func checkRecipient(st *state, o *options, sw *statusWriter, ring *keyring.Ring, spec string, rc keyring.Recipient) error {
	model := o.trustModelName()
	if model == keyring.ModelAlways {
		return nil
	}
	id := rc.KeyID()
	var v keyring.OwnerTrust
	if model == keyring.ModelTOFU || model == keyring.ModelTOFUPGP {
		// gpg tells the key's history before its verdict on the key.
		var bindings []tofu.Binding
		v, bindings = ring.TOFUValidity(rc.Key, rc.UserID, model)
		reportTOFU(st, sw, rc.Key.Fingerprint(), bindings)
	} else {
		v = ring.RecipientValidity(rc, model)
	}
	switch v {
	case keyring.TrustFully, keyring.TrustUltimate:
		return nil
	case keyring.TrustMarginal:
		note(st, "%s: There is limited assurance this key belongs to the named user", id)
		return nil
	}
	bad := v == keyring.TrustNever
	if bad {
		note(st, "%s: This key is bad!  It has been marked as untrusted!", id)
	} else {
		note(st, "%s: There is no assurance this key belongs to the named user", id)
	}
	if !o.batch {
		text := "\n" + rc.Summary() + "\n"
		if bad {
			text += "This key is bad!  It has been marked as untrusted!  If you\n*really* know what you are doing, you may answer the next\nquestion with yes.\n\n"
		} else {
			text += "It is NOT certain that the key belongs to the person named\nin the user ID.  If you *really* know what you are doing,\nyou may answer the next question with yes.\n\n"
		}
		sw.Write(status.UserIDHint{KeyID: id, UserID: status.Text(rc.Key.PrimaryUserID())})
		yes, err := askBool(st, o, "untrusted_key.override", text, "Use this key anyway? (y/N) ")
		if err != nil {
			return err
		}
		if yes {
			return nil
		}
	}
	why := fmt.Sprintf("there is no assurance key %s belongs to %s", id, escape.Quoted(rc.Key.PrimaryUserID()))
	if bad {
		why = fmt.Sprintf("key %s is marked as untrusted (owner trust never)", id)
	}
	err := fmt.Errorf("recipient %q: %w: %s", spec, keyring.ErrUnusable, why)
	// gpg writes this code bare, without its source: FAILURE encrypt 53.
	sw.Write(status.InvRecp{Reason: 10, Spec: status.Text(spec)})
	statusFailureCode(sw, "encrypt", 53)
	if bad {
		return err
	}
	fpr := rc.Key.Fingerprint()
	return withHints(err,
		fmt.Sprintf("if you have checked that %s is theirs, certify it with your key: --quick-lsign-key %s (or --quick-sign-key to vouch for it publicly)", fpr, fpr),
		fmt.Sprintf("or trust it: --quick-set-ownertrust %s full, with --trust-model direct (or trust-model direct in gpg.conf)", fpr),
		"or encrypt without asking about validity: --trust-model always (--always-trust)")
}

// note writes what gpg writes with log_info: a line on standard error
// that --quiet does not silence.
func note(st *state, format string, args ...any) {
	st.say("%s", fmt.Sprintf(format, args...))
}

func cmdImportOwnerTrust(st *state, o *options) error {
	inputs := o.args
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	set := map[string]keyring.OwnerTrust{}
	for _, name := range inputs {
		r, _, done, err := openArg(st, o, name)
		var data []byte
		if err == nil {
			what := name
			if name == "-" {
				what = "standard input"
			}
			data, err = bounded.ReadAll(r, what, bounded.OwnerTrust)
			done()
		}
		if err != nil {
			return fmt.Errorf("--import-ownertrust: %w", err)
		}
		m, err := keyring.ParseOwnerTrust(data)
		if err != nil {
			return fmt.Errorf("--import-ownertrust %s: %w", name, err)
		}
		for fpr, t := range m {
			set[fpr] = t
			st.infof("inserting ownertrust of %d for %s", t, fpr)
		}
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	return ring.SetOwnerTrust(set)
}

func cmdExportOwnerTrust(st *state, o *options) error {
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	_, err = st.stdout.Write(ring.ExportOwnerTrust())
	return err
}

// ownerTrustWords are --quick-set-ownertrust's values (gpg 2.4's names).
var ownerTrustWords = map[string]keyring.OwnerTrust{
	"unknown": keyring.TrustUnknown, "undefined": keyring.TrustUndefined, "never": keyring.TrustNever,
	"marginal": keyring.TrustMarginal, "full": keyring.TrustFully, "ultimate": keyring.TrustUltimate,
}

func cmdQuickSetOwnerTrust(st *state, o *options) error {
	if len(o.args) != 2 {
		return usagef("--quick-set-ownertrust takes a key and a trust level (unknown, undefined, never, marginal, full, ultimate)")
	}
	t, ok := ownerTrustWords[strings.ToLower(o.args[1])]
	if !ok {
		return usagef("--quick-set-ownertrust: unknown trust level %q (want unknown, undefined, never, marginal, full or ultimate)", o.args[1])
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	k, err := ring.Lookup(o.args[0], false)
	if err != nil {
		return err
	}
	return ring.SetOwnerTrust(map[string]keyring.OwnerTrust{k.Fingerprint(): t})
}
