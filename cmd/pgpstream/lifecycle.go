package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/output"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/keyring"
)

// lifeCtx is what the commands that change a key over its life read from
// the command line.
type lifeCtx struct {
	st    *state
	o     *options // for the status descriptor
	args  []string
	batch bool
	yes   bool
	armor bool
	out   func() (*output.Output, error) // opens --output (default standard output)
	ring  func() (*keyring.Ring, error)  // opens the home
	pass  func() ([]byte, error)         // the passphrase, as every command reads it
	// passLines reads the passphrase source's first two lines, for
	// --passwd: the old passphrase and the new one.
	passLines func() (old, new []byte, err error)
}

func (lc *lifeCtx) passFunc() keyring.PassphraseFunc {
	return func() ([]byte, error) {
		p, err := lc.pass()
		if errors.Is(err, errNoPassphrase) {
			return nil, withHints(errors.New("the key is protected by a passphrase and none was given"), "give it with --passphrase-file FILE or --passphrase-fd N")
		}
		return p, err
	}
}

func parseExpireArg(s string) (time.Time, error) { return parseExpireAt(s, clock.Now()) }

// parseExpireAt is parseExpireArg for an expiry relative to now.
func parseExpireAt(s string, now time.Time) (time.Time, error) {
	t, err := keyring.ParseExpire(s, now)
	if err != nil {
		return time.Time{}, usageError{msg: err.Error(), hints: []string{"EXPIRE is never, an ISO date (2030-01-31), seconds=N, or N with d, w, m or y"}}
	}
	return t, nil
}

// cmdQuickSetExpire is gpg's --quick-set-expire FPR EXPIRE [SUBFPR...|*].
func cmdQuickSetExpire(lc *lifeCtx) error {
	if len(lc.args) < 2 {
		return usageError{msg: "--quick-set-expire takes a fingerprint and an expiry", hints: []string{"pgpstream --quick-set-expire FINGERPRINT 1y [SUBKEY-FINGERPRINT...|'*']"}}
	}
	exp, err := parseExpireArg(lc.args[1])
	if err != nil {
		return err
	}
	subs := lc.args[2:]
	all := len(subs) == 1 && subs[0] == "*"
	if all {
		subs = nil
	}
	ring, err := lc.ring()
	if err != nil {
		return err
	}
	return ring.SetExpire(lc.args[0], exp, subs, all, lc.passFunc())
}

// cmdQuickAddKey is gpg's --quick-add-key FPR [ALGO [USAGE [EXPIRE]]].
func cmdQuickAddKey(lc *lifeCtx) error {
	if len(lc.args) < 1 || len(lc.args) > 4 {
		return usageError{msg: "--quick-add-key takes a fingerprint and optionally ALGO, USAGE and EXPIRE", hints: []string{"pgpstream --quick-add-key FINGERPRINT [default|cv25519|ed25519|rsa3072 ...] [encr|sign|auth] [EXPIRE]"}}
	}
	var opt keyring.AddKeyOptions
	if len(lc.args) > 1 {
		opt.Algo = lc.args[1]
	}
	if len(lc.args) > 2 {
		opt.Usage = lc.args[2]
	}
	if len(lc.args) > 3 {
		exp, err := parseExpireArg(lc.args[3])
		if err != nil {
			return err
		}
		opt.Expires = exp
	}
	ring, err := lc.ring()
	if err != nil {
		return err
	}
	fpr, err := ring.AddKey(lc.args[0], opt, lc.passFunc())
	if err != nil {
		return err
	}
	if !lc.st.quiet {
		lc.st.say("subkey %s added", fpr)
	}
	// KEY_CREATED S: GPGME's create_subkey waits for it.
	sw, err := openStatus(lc.st, lc.o)
	if err != nil {
		return err
	}
	sw.Write(status.KeyCreated{Kind: "S", Fpr: fpr})
	return nil
}

// cmdQuickAddUID is gpg's --quick-add-uid KEY NEWUID.
func cmdQuickAddUID(lc *lifeCtx) error {
	err := lc.changeUserID("--quick-add-uid takes a key and the new user ID", (*keyring.Ring).AddUserID)
	if errors.Is(err, keyring.ErrUserIDExists) {
		// gpg's wording.
		return errors.New("Such a user ID already exists on this key!")
	}
	return err
}

// cmdQuickRevokeUID is gpg's --quick-revoke-uid KEY UID.
func cmdQuickRevokeUID(lc *lifeCtx) error {
	return lc.changeUserID("--quick-revoke-uid takes a key and the user ID to revoke", (*keyring.Ring).RevokeUserID)
}

// cmdQuickSetPrimaryUID is gpg's --quick-set-primary-uid KEY UID.
func cmdQuickSetPrimaryUID(lc *lifeCtx) error {
	return lc.changeUserID("--quick-set-primary-uid takes a key and the user ID to make primary", (*keyring.Ring).SetPrimaryUserID)
}

// changeUserID runs one of the user-ID quick commands, KEY UID: the key
// found as keyFpr finds it, the change made by the ring's method.
func (lc *lifeCtx) changeUserID(usage string, change func(r *keyring.Ring, fpr, uid string, pass keyring.PassphraseFunc) error) error {
	if len(lc.args) != 2 {
		return usageError{msg: usage, hints: []string{"pgpstream --" + lc.o.cmd.String() + ` FINGERPRINT "Name <mail@example.org>"`}}
	}
	ring, err := lc.ring()
	if err != nil {
		return err
	}
	fpr, err := lc.keyFpr(ring, lc.args[0])
	if err != nil {
		return err
	}
	return change(ring, fpr, lc.args[1], lc.passFunc())
}

// keyFpr is the fingerprint of the key spec names for the commands that
// change a user ID. As gpg's quick commands, they take any specification
// (a fingerprint, "=Name <mail>", an address) that names exactly one key
// with its secret part; the commands that change keys themselves
// (--quick-set-expire, --quick-add-key) take only a fingerprint, in gpg
// as here.
func (lc *lifeCtx) keyFpr(ring *keyring.Ring, spec string) (string, error) {
	if isFullFingerprint(spec) {
		return spec, nil
	}
	k, err := ring.Lookup(spec, true)
	if err != nil {
		return "", err
	}
	return k.Fingerprint(), nil
}

// isFullFingerprint reports whether s is a v4 or v6 fingerprint in hex
// (with or without 0x), which the ring's editors take as it is.
func isFullFingerprint(s string) bool {
	n, bang := hexKeySpec(s)
	return (n == 40 || n == 64) && !bang
}

// cmdGenRevoke is gpg's --generate-revocation (--gen-revoke) KEY. Like
// gpg it asks whether to go on, for a reason and for a description, and
// so refuses --batch ("can't do this in batch mode"); the answers are
// read from standard input, a line each.
func cmdGenRevoke(lc *lifeCtx) error {
	if len(lc.args) != 1 {
		return usageError{msg: "--generate-revocation takes one key, by fingerprint", hints: []string{"pgpstream --generate-revocation FINGERPRINT > revoke.asc"}}
	}
	if lc.batch {
		return usageError{msg: "can't do this in batch mode", hints: []string{"a revocation certificate needs a reason: run without --batch and answer on standard input; one made at key creation is in the home's openpgp-revocs.d"}}
	}
	ring, err := lc.ring()
	if err != nil {
		return err
	}
	k, err := ring.Lookup(lc.args[0], true)
	if err != nil {
		return err
	}
	st := lc.st
	in := bufio.NewReader(st.stdin)
	ask := func(q string) (string, error) {
		fmt.Fprint(st.stderr, q)
		line, err := in.ReadString('\n')
		if err != nil && (err != io.EOF || line == "") {
			return "", errors.New("no answer on standard input")
		}
		return strings.TrimSpace(line), nil
	}
	io.WriteString(st.stderr, "\n")
	st.sayMore("sec  %s \"%s\"", k.Fingerprint(), k.PrimaryUserID())
	io.WriteString(st.stderr, "\n")
	if a, err := ask("Create a revocation certificate for this key? (y/N) "); err != nil || !yes(a) {
		return errors.New("revocation certificate not created")
	}
	fmt.Fprint(st.stderr, "Please select the reason for the revocation:\n  0 = No reason specified\n  1 = Key has been compromised\n  2 = Key is superseded\n  3 = Key is no longer used\n  Q = Cancel\n")
	a, err := ask("Your decision? ")
	if err != nil {
		return err
	}
	reason, cerr := strconv.Atoi(a)
	if cerr != nil || reason < 0 || reason > 3 {
		return errors.New("revocation certificate not created")
	}
	fmt.Fprint(st.stderr, "Enter an optional description; end it with an empty line:\n")
	var desc []string
	for {
		l, err := ask("> ")
		if err != nil || l == "" {
			break
		}
		desc = append(desc, l)
	}
	if a, err := ask("Is this okay? (y/N) "); err != nil || !yes(a) {
		return errors.New("revocation certificate not created")
	}
	rev, err := ring.RevocationCertificate(k.Fingerprint(), reason, strings.Join(desc, "\n"), lc.passFunc())
	if err != nil {
		return err
	}
	armored, err := keyring.ArmorRevocation(rev)
	if err != nil {
		return err
	}
	out, err := lc.out()
	if err != nil {
		return err
	}
	if _, err := out.W.Write(armored); err != nil {
		out.Abort()
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	if !st.quiet {
		st.say("Revocation certificate created.")
	}
	return nil
}

func yes(a string) bool {
	a = strings.ToLower(a)
	return a == "y" || a == "yes"
}

// cmdExportSSHKey is gpg's --export-ssh-key KEY.
func cmdExportSSHKey(lc *lifeCtx) error {
	if len(lc.args) != 1 {
		return usageError{msg: "--export-ssh-key takes one key", hints: []string{"pgpstream --export-ssh-key alice@example.org   (KEYID! for a given subkey)"}}
	}
	ring, err := lc.ring()
	if err != nil {
		return err
	}
	line, err := ring.ExportSSH(lc.args[0])
	if err != nil {
		return fmt.Errorf("export as ssh key failed: %w", err)
	}
	out, err := lc.out()
	if err != nil {
		return err
	}
	if _, err := io.WriteString(out.W, line); err != nil {
		out.Abort()
		return err
	}
	return out.Commit()
}

// cmdPasswd is gpg's --passwd KEY. In batch the passphrase source gives
// two lines: the old passphrase, then the new one (an empty line leaves
// the key unprotected). gpg 2.2 with --pinentry-mode loopback and
// --passphrase-file answers every prompt with the file's first line, so
// it cannot change a passphrase that way at all.
func cmdPasswd(lc *lifeCtx) error {
	if len(lc.args) != 1 {
		return usageError{msg: "--passwd takes one key, by fingerprint", hints: []string{"pgpstream --batch --passphrase-file old-and-new.txt --passwd FINGERPRINT"}}
	}
	// Opened before the questions, which may go to it too.
	sw, err := openStatus(lc.st, lc.o)
	if err != nil {
		return err
	}
	oldPw, newPw, err := lc.passLines()
	if err != nil {
		return err
	}
	ring, err := lc.ring()
	if err != nil {
		return err
	}
	if err := ring.ChangePassphrase(lc.args[0], oldPw, newPw); err != nil {
		return err
	}
	// GPGME's passwd operation waits for this line.
	sw.Write(status.Success{Location: "keyedit.passwd"})
	return nil
}

// revocationStored tells where Generate left the key's revocation
// certificate, in gpg's words.
func revocationStored(st *state, ring *keyring.Ring, k *keyring.Key) {
	if p := ring.RevocationFile(k); !st.quiet {
		if _, err := os.Stat(p); err == nil {
			st.say("revocation certificate stored as '%s'", p)
		}
	}
}
