package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/internal/escape"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/tofu"
)

// cmdTOFUPolicy is gpg's --tofu-policy POLICY KEY...: each key, named by
// key ID or fingerprint as gpg requires, gets the policy on every user
// ID that is not revoked. The first key that cannot be found or set ends
// the command with FAILURE tofu-driver, as in gpg.
func cmdTOFUPolicy(st *state, o *options) error {
	if len(o.args) < 2 {
		return usagef("--tofu-policy takes a policy (auto, good, unknown, bad or ask) and one or more keys")
	}
	p, err := tofu.ParsePolicy(o.args[0])
	if err != nil {
		return usagef("--tofu-policy: %v", err)
	}
	sw, err := openStatus(st, o)
	if err != nil {
		return err
	}
	fail := func(code int, err error) error {
		statusFailureCode(sw, "tofu-driver", code)
		return err
	}
	ring, err := openRing(st, o)
	if err != nil {
		return fail(gpgErrGeneral, err)
	}
	for _, spec := range o.args[1:] {
		if !keyIDSpec(spec) {
			return fail(gpgErrGeneral, fmt.Errorf("'%s' does not appear to be a valid key ID, fingerprint or keygrip", escape.Human(spec)))
		}
		k, err := ring.Lookup(spec, false)
		if err != nil {
			return fail(gpgErrNoPubkey, fmt.Errorf("key \"%s\" not found: %w", escape.Human(spec), err))
		}
		uids, old, err := ring.SetTOFUPolicy(k, p)
		if err != nil {
			return fail(gpgErrGeneral, err)
		}
		for i, uid := range uids {
			if old[i] == tofu.None {
				st.say("Setting TOFU trust policy for new binding <key: %s, user id: %s> to %s.", k.Fingerprint(), escape.Human(uid), p)
			} else {
				st.say("Changing TOFU trust policy for binding <key: %s, user id: %s> from %s to %s.", k.Fingerprint(), escape.Human(uid), old[i], p)
			}
		}
	}
	return nil
}

// gpg's error codes in the FAILURE lines --tofu-policy writes.
const (
	gpgErrGeneral  = 1
	gpgErrNoPubkey = 9
)

// keyIDSpec says whether spec names a key as gpg's --tofu-policy
// accepts it: a key ID (8 or 16 hex digits) or a fingerprint, with or
// without 0x, or a keygrip (&40 hex digits).
func keyIDSpec(spec string) bool {
	s := strings.TrimPrefix(strings.TrimPrefix(spec, "0x"), "0X")
	if g, ok := strings.CutPrefix(spec, "&"); ok {
		s = g
		if len(s) != 40 {
			return false
		}
	}
	switch len(s) {
	case 8, 16, 32, 40, 64:
	default:
		return false
	}
	return strings.Trim(strings.ToUpper(s), "0123456789ABCDEF") == ""
}

// tofuTrust is the signer's validity under the TOFU models, once the
// good signature r is recorded in the history, which is then reported
// (reportTOFU).
func (s *sigReporter) tofuTrust(k *keyring.Key, r filter.SignatureResult) keyring.OwnerTrust {
	signerUID := ""
	created := clock.Now()
	if r.Sig != nil {
		signerUID, created = r.Sig.SignerUserID, r.Sig.Created
	}
	v, bindings, err := s.ring.RegisterSignature(k, escape.Printable(signerUID), r.Digest, created, s.trustModel)
	if err != nil {
		s.st.warnf("TOFU: error registering signature: %v", err)
		return keyring.TrustUndefined
	}
	reportTOFU(s.st, s.status, k.Fingerprint(), bindings)
	return v
}

// reportTOFU tells what the history says of the bindings of the key fpr
// whose validity was just asked for (gpg's show_statistics, from
// tofu_get_validity): each binding's TOFU_USER, TOFU_STATS and
// TOFU_STATS_LONG on the status stream and its sentence on standard
// error, with gpg's warnings for a key seen little; a binding in conflict
// only on the status stream, with each key it conflicts with, as gpg in
// --batch. A key trusted ultimately has nothing to tell.
func reportTOFU(st *state, sw *statusWriter, fpr string, bindings []tofu.Binding) {
	now := clock.Now().Unix()
	warn, conflict := false, false
	for _, b := range bindings {
		if b.Trust == tofu.TrustUltimate {
			continue
		}
		if b.Policy == tofu.Ask {
			conflict = true
			for _, c := range b.Conflicts {
				tofuStats(sw, c.Fingerprint, b.Email, tofu.Ask, c.Stats)
			}
			continue
		}
		tofuStats(sw, fpr, b.Email, b.Policy, b.Stats)
		// gpg wraps the sentence at 72 columns, '~' keeping words
		// together; the status line has it with its line breaks
		// (%0A), standard error line by line, each escaped whole.
		long := func(email string) string {
			t := tofuStatsText(email, b.Stats, now)
			if st.verbose {
				t += "  (policy: " + b.Policy.String() + ")"
			}
			return formatText(t+"\n", 72, 80)
		}
		sw.Write(status.TofuStatsLong{Text: status.Text(strings.TrimSuffix(long(b.Email), "\n"))})
		sayWrapped(st, strings.ReplaceAll(long(escape.Human(b.Email)), "~", " "))
		if b.Policy == tofu.Auto {
			switch b.Stats.Signatures {
			case 0:
				st.say("Warning: we have yet to see a message signed using this key and user id!")
			case 1:
				st.say("Warning: we've only seen one message signed using this key and user id!")
			}
			switch b.Stats.Encryptions {
			case 0:
				st.say("Warning: you have yet to encrypt a message to this key!")
			case 1:
				st.say("Warning: you have only encrypted one message to this key!")
			}
			n, e := b.Stats.Signatures, b.Stats.Encryptions
			warn = warn || n*n+e*e < 8*8
		}
	}
	if warn && !conflict {
		sayWrapped(st, formatText("Warning: if you think you've seen more signatures by this key and user id, "+
			"then this key might be a forgery!  Carefully examine the email address for small variations.  "+
			"If the key is suspect, then use\n  gpg --tofu-policy bad "+fpr+"\nto mark it as being bad.\n", 72, 80))
	}
}

// sayWrapped writes text of several lines as gpg's log does: the first
// after the program's name, the others indented under it.
func sayWrapped(st *state, text string) {
	indent := strings.Repeat(" ", len(st.prog)+2)
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if i == 0 {
			st.say("%s", l)
		} else {
			st.sayMore("%s%s", indent, l)
		}
	}
}

// tofuStats writes the TOFU_USER and TOFU_STATS lines of one binding.
func tofuStats(sw *statusWriter, fpr, email string, p tofu.Policy, st tofu.Stats) {
	sw.Write(status.TofuUser{Fpr: fpr, Email: email})
	sw.Write(status.TofuStats{
		Summary: st.Summary(p), Signatures: st.Signatures, Encryptions: st.Encryptions, Policy: p.String(),
		FirstSig: st.FirstSignature, LastSig: st.LastSignature, FirstEnc: st.FirstEncryption, LastEnc: st.LastEncryption,
		Validity: st.Validity(), SigDays: st.SignatureDays, EncDays: st.EncryptionDays,
	})
}

// tofuStatsText is gpg's sentence for a binding's history, '~' for the
// spaces it keeps from wrapping: "alice@example.org: Verified 3~signatures
// in the past 2~days.  Encrypted 0 messages."
func tofuStatsText(email string, st tofu.Stats, now int64) string {
	if st.Signatures == 0 && st.Encryptions == 0 {
		return email + ": Verified 0~signatures and encrypted 0~messages."
	}
	var b strings.Builder
	if st.Signatures == 0 {
		fmt.Fprintf(&b, "%s: Verified 0 signatures.", email)
	} else {
		fmt.Fprintf(&b, "%s: Verified %d~signatures in the past %s.", email, st.Signatures, timeAgo(now-st.FirstSignature))
	}
	b.WriteString("  ")
	if st.Encryptions == 0 {
		b.WriteString("Encrypted 0 messages.")
	} else {
		fmt.Fprintf(&b, "Encrypted %d~messages in the past %s.", st.Encryptions, timeAgo(now-st.FirstEncryption))
	}
	return b.String()
}

// timeAgo is gpg's rounding of a span: the largest unit of which it is
// more than two.
func timeAgo(t int64) string {
	for _, u := range []struct {
		secs  int64
		units string
	}{
		{365 * 86400, "years"}, {30 * 86400, "months"}, {7 * 86400, "weeks"},
		{86400, "days"}, {3600, "hours"}, {60, "minutes"},
	} {
		if t > 2*u.secs {
			return fmt.Sprintf("%d~%s", t/u.secs, u.units)
		}
	}
	if t == 1 {
		return "1~second"
	}
	return fmt.Sprintf("%d~seconds", t)
}

// formatText is gpg's format_text: text broken into lines of about
// target columns (characters, not bytes) at spaces, a line over max
// columns weighing heavily against breaking after it. A word that ends
// at a newline is never moved, as in gpg.
func formatText(in string, target, maxCols int) string {
	t := []byte(in)
	line, p := 0, 0
	lastSpace, lastSpaceCols := -1, 0
	copiedLastSpace := false
	for {
		for p < len(t) && t[p] != '\n' && t[p] != ' ' {
			p++
		}
		if p < len(t) && t[p] == '\n' {
			p++
			line, lastSpace, lastSpaceCols, copiedLastSpace = p, -1, 0, true
			continue
		}
		cols := utf8.RuneCount(t[line:p])
		if cols < target {
			if p >= len(t) {
				break
			}
			lastSpace, lastSpaceCols = p, cols
			p++
			for p < len(t) && t[p] == ' ' {
				p++
			}
			continue
		}
		left, right := target-lastSpaceCols, 2*(cols-target)
		if cols > maxCols {
			right += 4 * (cols - maxCols)
		}
		if lastSpaceCols != 0 && left <= right {
			p = lastSpace
		}
		if p >= len(t) {
			break
		}
		t[p] = '\n'
		p++
		q := p
		for q < len(t) && t[q] == ' ' {
			q++
		}
		t = append(t[:p], t[q:]...)
		line, lastSpace, lastSpaceCols, copiedLastSpace = p, -1, 0, false
	}
	out := strings.TrimRight(string(t), " ")
	if !copiedLastSpace && strings.HasSuffix(out, "\n") {
		out = out[:len(out)-1]
	}
	return out
}
