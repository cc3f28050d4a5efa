package main

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/ask"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/output"
	"github.com/pgpstream/pgpstream/internal/bounded"
	"github.com/pgpstream/pgpstream/keyring"
)

// The commands that change a key over its life, and --export-ssh-key,
// as option table entries (see optTable).
var lifecycleOpts = []optDef{
	{long: "quick-set-expire", kind: kCommand, cmd: commandQuickSetExpire, cat: catCommand, usage: "FPR EXPIRE [SUBFPR...|*]: set when the key (or the named subkeys, or all) expires"},
	{long: "quick-add-key", kind: kCommand, cmd: commandQuickAddKey, cat: catCommand, usage: "FPR [ALGO [USAGE [EXPIRE]]]: add a subkey"},
	{long: "quick-addkey", alias: "quick-add-key", kind: kCommand, hidden: true},
	{long: "quick-add-uid", kind: kCommand, cmd: commandQuickAddUID, cat: catCommand, usage: "KEY NEWUID: add a user ID"},
	{long: "quick-adduid", alias: "quick-add-uid", kind: kCommand, hidden: true},
	{long: "quick-revoke-uid", kind: kCommand, cmd: commandQuickRevokeUID, cat: catCommand, usage: "KEY UID: revoke a user ID (UID as listed, or its hash from the uid record)"},
	{long: "quick-set-primary-uid", kind: kCommand, cmd: commandQuickSetPrimaryUID, cat: catCommand, usage: "KEY UID: make a user ID the primary one"},
	{long: "quick-revuid", alias: "quick-revoke-uid", kind: kCommand, hidden: true},
	{long: "generate-revocation", kind: kCommand, cmd: commandGenerateRevocation, cat: catCommand, usage: "KEY: write a revocation certificate (asks for a reason on standard input; not in --batch)"},
	{long: "gen-revoke", alias: "generate-revocation", kind: kCommand, hidden: true},
	{long: "export-ssh-key", kind: kCommand, cmd: commandExportSSHKey, cat: catCommand, usage: "KEY: print the authentication key (KEYID! for a given one) as an OpenSSH public key"},
	{long: "passwd", kind: kCommand, cmd: commandPasswd, cat: catCommand, usage: "FPR: change the key's passphrase (in batch: the passphrase source's first line is the old one, its second the new)"},
	{long: "change-passphrase", alias: "passwd", kind: kCommand, hidden: true},
	{long: "export-options", arg: "LIST", cat: catKeys, usage: "export-minimal: only the newest self-signature of each user ID and subkey; export-local-sigs: non-exportable certifications too", set: listOption(exportOptionList, func(o *options) *exportOpts { return &o.exportOpts })},
}

// dispatchLifecycle runs one of the commands of lifecycleOpts; ok is
// false for any other command.
func dispatchLifecycle(st *state, o *options) (ok bool, err error) {
	var run func(*lifeCtx) error
	switch o.cmd {
	case commandQuickSetExpire:
		run = cmdQuickSetExpire
	case commandQuickAddKey:
		run = cmdQuickAddKey
	case commandQuickAddUID:
		run = cmdQuickAddUID
	case commandQuickRevokeUID:
		run = cmdQuickRevokeUID
	case commandQuickSetPrimaryUID:
		run = cmdQuickSetPrimaryUID
	case commandGenerateRevocation:
		run = cmdGenRevoke
	case commandExportSSHKey:
		run = cmdExportSSHKey
	case commandPasswd:
		run = cmdPasswd
	default:
		return false, nil
	}
	lc := &lifeCtx{
		st: st, o: o, args: o.args, batch: o.batch, yes: o.yes, armor: o.armor,
		out:  func() (*output.Output, error) { return openOutput(st, o, o.output, false) },
		ring: func() (*keyring.Ring, error) { return openRing(st, o) },
	}
	// Made only when asked: with --passphrase-fd 0 it reads standard
	// input at once, which --passwd reads itself.
	var pp *passphrases
	lc.pass = func() ([]byte, error) {
		if pp == nil {
			pp = newPassphrases(st, o)
		}
		return pp.Get(false)
	}
	lc.passLines = func() ([]byte, []byte, error) { return passphraseLines(st, o) }
	return true, run(lc)
}

// passphraseLines reads the old and the new passphrase for --passwd from
// --passphrase-file or --passphrase-fd, a line each.
func passphraseLines(st *state, o *options) ([]byte, []byte, error) {
	switch {
	case o.passphraseFile != "":
		b, err := bounded.ReadLines(o.passphraseFile, 2, bounded.Line)
		if err != nil {
			return nil, nil, fmt.Errorf("reading the passphrases: %w", err)
		}
		return twoLines(b)
	case o.passphraseFd >= 0:
		r, err := readFD(st, "--passphrase-fd", o.passphraseFd)
		if err != nil {
			return nil, nil, err
		}
		old, err := ask.ReadFDLine(r)
		if err != nil {
			return nil, nil, err
		}
		nw, err := ask.ReadFDLine(r)
		return old, nw, err
	}
	if old, nw, err := askPasswd(st, o); !errors.Is(err, errNoPassphrase) {
		return old, nw, err // asked (internal/ask)
	}
	return nil, nil, usageError{msg: "--passwd needs the old and the new passphrase, a line each, from --passphrase-file or --passphrase-fd", hints: []string{"printf '%s\\n%s\\n' OLD NEW > pw; pgpstream --batch --passphrase-file pw --passwd FINGERPRINT"}}
}

func twoLines(b []byte) ([]byte, []byte, error) {
	lines := bytes.SplitN(b, []byte("\n"), 3)
	if len(lines) < 2 {
		return nil, nil, usagef("--passwd: the passphrase source has one line; the second is the new passphrase")
	}
	return lines[0], lines[1], nil // a CR is kept, as firstLine keeps it
}
