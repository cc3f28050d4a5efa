package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

func cmdImport(st *state, o *options) error {
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	inputs := o.args
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	sw, err := openStatus(st, o)
	if err != nil {
		return err
	}
	var total keyring.ImportStats
	defer func() { importResult(sw, total) }()
	for _, name := range inputs {
		r, _, done, err := openArg(st, o, name)
		if err != nil {
			return err
		}
		defer done()
		stats, err := ring.ImportWith(r, importPolicy(o))
		importedKeys(st, sw, stats)
		if !st.quiet {
			for _, n := range stats.Notes {
				st.say("%s", n)
			}
		}
		// IMPORT_RES counts what was read before an error too, as gpg's.
		total.Add(stats)
		if err != nil {
			if name == "-" {
				return fmt.Errorf("importing from standard input: %w", err)
			}
			return fmt.Errorf("importing %s: %w", name, err)
		}
	}

	if !st.quiet {
		// gpg's import summary: the total, then each count that is not zero.
		st.say("Total number processed: %d", total.Processed)
		for _, line := range []struct {
			label string
			n     int
		}{
			{"w/o user IDs", total.NoUserID}, {"imported", total.Imported}, {"unchanged", total.Unchanged},
			{"new user IDs", total.NewUserIDs}, {"new subkeys", total.NewSubkeys},
			{"new signatures", total.NewSigs}, {"secret keys read", total.SecretRead},
			{"secret keys imported", total.SecretImported}, {"new key revocations", total.Revocations},
		} {
			if line.n > 0 {
				st.say("%22s: %d", line.label, line.n)
			}
		}
	}
	if total.Processed == 0 {
		return errors.New("no keys found in the input")
	}
	return nil
}

// cmdExport is --export, --export-secret-keys (secret) and
// --export-secret-subkeys (secret and subkeysOnly).
func cmdExport(st *state, o *options, secret, subkeysOnly bool) error {
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	out, err := openOutput(st, o, o.output, false)
	if err != nil {
		return err
	}
	if err := out.RefuseBinaryTerminal(o.armor, "key data"); err != nil {
		return err
	}
	// Secret keys go to a file only its owner may read, as gpg makes it.
	out.Private = secret
	eopt := keyring.ExportOptions{SubkeysOnly: subkeysOnly, Minimal: o.exportOpts.minimal, LocalSigs: o.exportOpts.localSigs}
	if err := ring.ExportWith(out.W, o.args, secret, o.armor, eopt); err != nil {
		out.Abort()
		return err
	}
	return out.Commit()
}

// quickGenDefaultExpire is how long a key from --quick-gen-key lasts
// when no EXPIRE is given: gpg 2.2's default_expiration_interval.
const quickGenDefaultExpire = "2y"

func cmdGenKey(st *state, o *options) error {
	args := o.args
	if len(args) < 1 || len(args) > 4 {
		return usageError{msg: "--quick-gen-key takes a user ID and optionally ALGO, USAGE and EXPIRE", hints: []string{`pgpstream --quick-gen-key "Name <mail@example.org>" [future-default|ed25519|rsa3072|rsa4096|nistp256|ed448 [sign|auth|encr|cert|default [EXPIRE]]]`}}
	}
	opt := keyring.GenOptions{UserID: args[0], AllowDuplicate: o.yes}
	if len(args) > 1 {
		opt.Algo = args[1]
	}
	if len(args) > 2 {
		opt.Usage = args[2]
	}
	// EXPIRE absent, empty or "-" is gpg 2.2's default: the primary key
	// expires in 2 years, the subkey never (gpg 2.4 makes it 3 years).
	// "never" makes a key that does not expire.
	expire := quickGenDefaultExpire
	if len(args) > 3 && args[3] != "" && args[3] != "-" {
		expire = args[3]
	}
	opt.Created = clock.Now().Truncate(time.Second)
	exp, err := parseExpireAt(expire, opt.Created)
	if err != nil {
		return err
	}
	opt.Expires = exp
	opt.V6 = o.keyVersion == 6 // 4 or 6 (options.check)
	pass, err := newKeyPassphrase(st, o, args[0])
	if err != nil {
		return err
	}
	opt.Passphrase = pass
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	k, err := ring.Generate(opt)
	if err != nil {
		return err
	}
	if !st.quiet {
		st.say("key %016X created", k.KeyID())
		st.say("fingerprint %s", k.Fingerprint())
	}
	revocationStored(st, ring, k)
	// KEY_CREATED B (a primary key and a subkey) or P (the primary key
	// alone): GPGME's create_key reads the new key's fingerprint here.
	sw, err := openStatus(st, o)
	if err != nil {
		return err
	}
	kind := "P"
	if len(k.Entity().Subkeys) > 0 {
		kind = "B"
	}
	sw.Write(status.KeyCreated{Kind: kind, Fpr: k.Fingerprint()})
	return nil
}

// newKeyPassphrase is the passphrase that protects a new key: asked
// twice on a terminal, as gpg does. With no one to ask (--batch and no
// passphrase given) the key is made without one, as gpg makes it with
// --batch and an empty --passphrase. Any other failure, above all two answers
// that differ, is an error before anything is made: a key left
// unprotected by a typo is a key its owner believes protected.
func newKeyPassphrase(st *state, o *options, uid string) ([]byte, error) {
	pass, err := newPassphrases(st, o).GetFor(fmt.Sprintf("Enter a passphrase to protect the new key %q (empty: none).", uid), true)
	switch {
	case errors.Is(err, errNoPassphrase):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("no key was made: %w", err)
	case len(pass) == 0:
		return nil, nil
	}
	return pass, nil
}

// cmdDelete deletes keys (what "public", "secret" or "both" parts) named
// by full fingerprint (a subkey's names the whole key, as in gpg).
// pgpstream never asks, so it always runs as gpg's --batch mode does,
// where a key named by fingerprint is deleted without --yes and gpg takes
// nothing else for secret keys; pgpstream takes only that for public keys
// too, since a pattern such as "example" may match several keys (gpg
// deletes the first). Secret keys gpg-agent holds are deleted by the
// agent, which asks its user to confirm unless --yes is given, as with gpg.
func cmdDelete(st *state, o *options, what string) error {
	// --batch is required (options.check).
	if len(o.args) == 0 {
		return usagef("name the keys to delete (by fingerprint)")
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	var n int
	switch what {
	case "secret":
		n, err = ring.DeleteSecret(o.args, o.yes)
	default:
		n, err = ring.Delete(o.args, what == "both", o.yes)
	}
	// DELETE_PROBLEM: python-gnupg and GPGME tell the reasons apart by it.
	switch {
	case errors.Is(err, keyring.ErrHasSecret):
		if sw, serr := openStatus(st, o); serr == nil {
			sw.Write(status.DeleteProblem{Reason: 2})
		}
		return withHints(err, "delete the secret key first with --delete-secret-keys, or both with --delete-secret-and-public-key")
	case errors.Is(err, keyring.ErrNoKey):
		if sw, serr := openStatus(st, o); serr == nil {
			sw.Write(status.DeleteProblem{Reason: 1})
		}
	}
	if errors.Is(err, keyring.ErrNotFingerprint) {
		return usageError{msg: "can't do this in batch mode: " + strings.TrimPrefix(err.Error(), "keyring: "), hints: []string{"specify the key by its full fingerprint (pgpstream --list-keys --with-colons shows it on the fpr line)"}}
	}
	if err != nil {
		return err
	}
	st.infof("deleted %d key(s)", n)
	return nil
}

// readPassphraseFd reads --passphrase-fd's line before the command reads
// anything else, as gpg does: clients such as python-gnupg write the
// passphrase and then the data to the same standard input. Once read it
// stands as --passphrase did, so every later use sees the same one.
func readPassphraseFd(st *state, o *options) error {
	if o.passphraseFd < 0 || o.passphraseSet || o.cmd == commandPasswd {
		return nil // --passwd reads two lines, the old and the new one
	}
	v, err := newPassphrases(st, o).Read(false)
	if err != nil {
		return err
	}
	o.passphrase, o.passphraseSet, o.passphraseFd = string(v), true, -1
	return nil
}

// ringKeys adapts the keyring to what decryption asks for.
type ringKeys struct {
	ring        *keyring.Ring
	pass        *passphrases
	st          *state
	agentWarned bool          // the agent's failure was told
	skesk       *packet.SKESK // the message's first, for the passphrase's cache id
}

func (k *ringKeys) DecryptionKeys(p *packet.PKESK) []*gcpacket.PrivateKey {
	if k.ring == nil {
		return nil
	}
	out := k.ring.SecretKeysFor(p)
	if err := k.ring.AgentError(); err != nil && len(out) == 0 && !k.agentWarned {
		k.agentWarned = true
		k.st.warnf("the secret keys of gpg-agent are not available: %v", err)
	}
	return out
}

func (k *ringKeys) Unlock(priv *gcpacket.PrivateKey) error {
	if !priv.Encrypted {
		return nil
	}
	desc := fmt.Sprintf("Enter the passphrase to unlock the secret key %016X (%v, created %s) to decrypt the message.",
		priv.KeyId, gpgAlgoName(priv.PubKeyAlgo), priv.CreationTime.UTC().Format("2006-01-02"))
	err := k.pass.UnlockKey(priv, desc, func(pass []byte) error { return keyring.Unlock(priv, pass) }, nil)
	if errors.Is(err, errNoPassphrase) {
		return fmt.Errorf("secret key %016X is %w", priv.KeyId, filter.ErrKeyLocked)
	}
	if err != nil {
		return fmt.Errorf("secret key %016X: %w", priv.KeyId, err)
	}
	return nil
}

func (k *ringKeys) Passphrase() ([]byte, error) {
	var cipher packet.CipherAlgo
	var mode, hash byte
	var salt []byte
	if k.skesk != nil {
		cipher = k.skesk.Cipher
		mode, hash, salt = k.skesk.S2K()
	}
	return k.pass.Symmetric("Enter the passphrase the message was encrypted with.", cipher, mode, hash, salt, false)
}

// agentOptions is how the ring uses a GnuPG home's gpg-agent: through
// the invocation's agent session (agentSession, which passes gpg's
// --pinentry-mode on), and in loopback mode the agent's passphrase
// inquiry is answered from --passphrase* (or the terminal), as gpg
// answers it.
func agentOptions(st *state, o *options) keyring.AgentOptions {
	pp := newPassphrases(st, o)
	return keyring.AgentOptions{
		Session: agentSession(st, o),
		Passphrase: func(p keyring.AgentPrompt) ([]byte, error) {
			agentKeyHint(st, o, p) // prompt.go
			return pp.GetFor(agentPrompt(p.Desc), false)
		},
	}
}

// agentPrompt is the agent's prompt (SETKEYDESC text, percent-escaped
// by the agent) as one terminal line.
func agentPrompt(desc string) string {
	if d, err := url.PathUnescape(desc); err == nil {
		desc = d
	}
	return strings.Join(strings.Fields(desc), " ")
}
