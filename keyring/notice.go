package keyring

import (
	"os"
	"path/filepath"
)

// Notice is a fact about where the ring keeps keys that its user should
// know, reported through Options.Notify (changes), Ring.Notices (what
// reading the ring found) or HomeNotices (a GnuPG home, before it is
// opened): the ring decides what is so, and the caller words it, once.
// Each kind says which fields it sets, and which of the three reports it.
type Notice struct {
	Kind NoticeKind
	// File is the file or directory the notice is about.
	File string
	// Kept is where the change, a key or File's keys are kept instead.
	Kept string
	// Offset is where reading File stopped, for the damage notices.
	Offset int64
	// Key is the fingerprint of the key the notice is about.
	Key string
	// Count is how many keys, where the notice is about more than one.
	Count int
	// PID is the process that holds the lock File.
	PID int
	// Err is why, where a library error says it.
	Err error
}

// NoticeKind says which fact a Notice reports.
type NoticeKind int

const (
	// NoticeKeyboxd: the GnuPG home File keeps its public keys in gpg
	// 2.4's keyboxd (common.conf: use-keyboxd), which pgpstream neither
	// reads nor writes; what pgpstream imports or changes is kept in
	// Kept, the home's pubring.pgp. HomeNotices reports it, and a change
	// once per Ring.
	NoticeKeyboxd NoticeKind = iota + 1
	// NoticeSecring: the GnuPG home File has gpg 1.x's secring.gpg,
	// which pgpstream does not read, and no private-keys-v1.d: gpg 2.1
	// and later move its keys into gpg-agent the first time they run
	// there.
	NoticeSecring
	// NoticeGnuPGDamaged: gpg's ring File, damaged at Offset (see
	// Damage), is not rewritten; the change is kept in Kept.
	NoticeGnuPGDamaged
	// NoticeDamagedKept: pgpstream's own ring File was damaged at
	// Offset; before it is written anew from the keys that were read,
	// it is kept as Kept (Options.RewriteDamaged).
	NoticeDamagedKept
	// NoticeMovedToGnuPG: the keys of File, pgpstream's pubring.pgp in
	// a GnuPG home, are now in gpg's ring Kept, and File is removed.
	NoticeMovedToGnuPG
	// NoticeNotInGnuPG: Key, new to the ring, is kept in Kept, not in
	// gpg's ring File, which cannot hold it: Err wraps
	// keybox.ErrUnsupportedKey for a key gpg does not read (v6).
	NoticeNotInGnuPG
	// NoticeLockWait: the change waits for gpg's lock File, held by PID.
	NoticeLockWait
	// NoticeTOFUUnusable: the TOFU history File cannot be opened or
	// used, Err says why; validity under the TOFU models is undefined.
	// Told once per Ring.
	NoticeTOFUUnusable

	// The kinds below are what reading the ring found: Ring.Notices
	// reports them, in the order found.

	// NoticeUnsafeHome: the ring's home directory File may be read by
	// other users (gpg's "unsafe permissions on homedir").
	NoticeUnsafeHome
	// NoticeUnsafeSecring: the ring's secret ring File may be read by
	// other users.
	NoticeUnsafeSecring
	// NoticeKeySkipped: the key in gpg's keybox File whose blob is at
	// Offset is not used: Err says why its keyblock cannot be read. The
	// keys before and after it are.
	NoticeKeySkipped
	// NoticeGnuPGUnused: none of the keys in gpg's ring File (pubring.kbx
	// or pubring.gpg) is used: Err says why it cannot be read.
	NoticeGnuPGUnused
	// NoticeUnreadableKeys: Count keys in gpg's ring File are not used,
	// being ones pgpstream cannot read (v3 keys, unknown algorithms, no
	// user ID), as gpg passes over them; Key is the first, Err says why
	// it is not read.
	NoticeUnreadableKeys
	// NoticeTrustUnread: the trust file File (the ring's ownertrust.txt,
	// or gpg's trustdb.gpg) is not read, Err says why: the owner trust
	// and validity it holds are not used.
	NoticeTrustUnread
)

// Notices returns what reading the ring found worth telling the user
// (the kinds from NoticeUnsafeHome on): Open's read, and after a change,
// the read under its lock. Damage that stopped reading a ring file is
// Damage's.
func (r *Ring) Notices() []Notice { return r.notices }

// notify tells Options.Notify, if set.
func (r *Ring) notify(n Notice) {
	if r.opt.Notify != nil {
		r.opt.Notify(n)
	}
}

// HomeNotices is what of the GnuPG home dir pgpstream cannot use, for a
// caller to tell once: its secret keys in private-keys-v1.d are used
// through gpg-agent, and its public keys in pubring.kbx and pubring.gpg
// are read (gnupg.go); left are gpg 2.4's keyboxd (NoticeKeyboxd) and gpg
// 1.x's secret ring (NoticeSecring). A common.conf that cannot be read
// is an error (UsesKeyboxd).
func HomeNotices(dir string) ([]Notice, error) {
	var out []Notice
	if yes, err := UsesKeyboxd(dir); err != nil {
		return nil, err
	} else if yes {
		out = append(out, Notice{Kind: NoticeKeyboxd, File: dir, Kept: filepath.Join(dir, pubringName)})
	}
	if _, err := os.Stat(filepath.Join(dir, "secring.gpg")); err == nil {
		if _, err := os.Stat(filepath.Join(dir, agentKeysDir)); err != nil {
			out = append(out, Notice{Kind: NoticeSecring, File: dir})
		}
	}
	return out, nil
}
