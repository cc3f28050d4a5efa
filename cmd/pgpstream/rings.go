package main

// Opening the home's keys for a command: the runtime half of the options
// that name them (--homedir, --keyring, --no-default-keyring), which
// check has already validated.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pgpstream/pgpstream/internal/bounded"
	"github.com/pgpstream/pgpstream/keybox"
	"github.com/pgpstream/pgpstream/keyring"
)

// openRing opens the keys of the home in use. --keyring FILE adds the
// certificates in FILE (binary or armored OpenPGP, or a keybox) and
// --no-default-keyring leaves the home's keys out, as in gpg; pgpstream
// then works on a private copy that is removed afterwards, so neither
// the home nor FILE is written (commands that change keys refuse
// --keyring, in check).
func openRing(st *state, o *options) (*keyring.Ring, error) {
	if !st.homeNoted && !o.noDefaultRing {
		st.homeNoted = true
		notices, err := keyring.HomeNotices(o.home)
		if err != nil {
			return nil, err
		}
		for _, n := range notices {
			st.notice(n)
		}
	}
	if !o.noDefaultRing && len(o.keyrings) == 0 {
		return ringAt(st, o, o.home)
	}
	dir, err := os.MkdirTemp("", "pgpstream-keyring-*")
	if err != nil {
		return nil, err
	}
	st.onCleanup(func() { os.RemoveAll(dir) })
	if !o.noDefaultRing {
		limits := map[string]bounded.Limit{"pubring.pgp": bounded.KeyData, "secring.pgp": bounded.KeyData, "ownertrust.txt": bounded.OwnerTrust}
		for _, name := range []string{"pubring.pgp", "secring.pgp", "ownertrust.txt"} {
			b, err := bounded.ReadFile(filepath.Join(o.home, name), limits[name])
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, name), b, 0o600)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	gnupg := "-"
	if !o.noDefaultRing && keyring.IsGnuPGHome(o.home) {
		gnupg = o.home // gpg's rings and agent stay in use beside FILE
	}
	ring, err := ringWith(st, o, dir, gnupg, o.home)
	if err != nil {
		return nil, err
	}
	for _, file := range o.keyrings {
		if !strings.ContainsRune(file, '/') {
			file = filepath.Join(o.home, file) // as gpg reads a bare name
		}
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("--keyring: %w", err)
		}
		fi, _ := f.Stat()
		if fi != nil && fi.Mode().IsRegular() && fi.Size() == 0 || file == os.DevNull {
			f.Close()
			continue // an empty keyring, as gpg creates them
		}
		_, err = ring.Import(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--keyring %s: %w", file, err)
		}
	}
	return ring, nil
}

// ringAt opens the ring in dir with the options' key policy, and says
// what reading it found (keyring.Ring.Notices: a home others may read,
// keys or trust files of gpg's not used) unless --no-permission-warning.
func ringAt(st *state, o *options, dir string) (*keyring.Ring, error) {
	return ringWith(st, o, dir, "", "")
}

// ringWith is ringAt with the GnuPG home whose rings and agent are used
// (keyring.Options.GnuPGHome). copyOf, when not "", is the home whose
// files dir holds private copies of (see openRing): they may be written,
// and are named as the home's in warnings.
//
// A ring file of the home that is damaged is a warning, and its keys
// before the damage are used, as gpg uses the keys it can read. A change
// that would write it again needs --yes, which first keeps the damaged
// file beside it (keyring.Options.RewriteDamaged).
func ringWith(st *state, o *options, dir, gnupg, copyOf string) (*keyring.Ring, error) {
	opt := keyring.Options{AllowWeakKeySignatures: o.allowWeakKeySigs, AllowNonSelfSignedUID: o.allowNonSelfsignedUID, GnuPGHome: gnupg, Agent: agentOptions(st, o), RewriteDamaged: o.yes}
	if copyOf == "" {
		opt.Notify = st.notice
	} else {
		opt.RewriteDamaged = true // a copy, removed afterwards
	}
	r, err := keyring.OpenWith(dir, opt)
	if err != nil {
		return nil, err
	}
	named := func(file string) string {
		if copyOf != "" && filepath.Dir(file) == dir {
			return filepath.Join(copyOf, filepath.Base(file))
		}
		return file
	}
	for _, d := range r.Damage() {
		st.warnf("%s: reading stopped at byte %d: %v; %d key(s) before it are used, nothing after it", named(d.File), d.Offset, d.Err, d.Keys)
	}
	r.SetTrustModel(o.trustModelName())
	r.SetTrustParams(o.trustParams())
	r.SetTOFUDefault(o.tofuDefault)
	if !o.noPermissionWarning {
		for _, n := range r.Notices() {
			n.File = named(n.File)
			// gpg's wording and capitals, which users search for.
			st.say("WARNING: %s", noticeText(n))
		}
	}
	return r, nil
}

// notice tells the user a fact the keyring reports (keyring.Notice), in
// the one wording each kind has here. A fact of the home (keyboxd, gpg
// 1.x's secret ring) is told once per invocation, whether the check
// before the ring is opened (openRing) or a change found it.
func (s *state) notice(n keyring.Notice) {
	if n.Kind == keyring.NoticeKeyboxd || n.Kind == keyring.NoticeSecring {
		told := homeNotice{n.Kind, filepath.Clean(n.File)}
		if s.homeNotices[told] {
			return
		}
		if s.homeNotices == nil {
			s.homeNotices = map[homeNotice]bool{}
		}
		s.homeNotices[told] = true
	}
	s.warnf("%s", noticeText(n))
}

// homeNotice is a fact of a home told (state.notice).
type homeNotice struct {
	kind keyring.NoticeKind
	home string
}

// noticeText is the warning for n.
func noticeText(n keyring.Notice) string {
	switch n.Kind {
	case keyring.NoticeKeyboxd:
		return fmt.Sprintf("%s keeps its public keys in gpg 2.4's keyboxd (common.conf: use-keyboxd), which pgpstream neither reads nor writes; its secret keys in gpg-agent are used, and the keys pgpstream imports or changes stay in %s", n.File, n.Kept)
	case keyring.NoticeSecring:
		return fmt.Sprintf("%s has gpg 1.x's secring.gpg, which pgpstream does not read: run gpg --list-secret-keys once to move its keys into gpg-agent", n.File)
	case keyring.NoticeGnuPGDamaged:
		return fmt.Sprintf("%s is damaged at byte %d and not rewritten: the change is kept in %s", n.File, n.Offset, n.Kept)
	case keyring.NoticeDamagedKept:
		return fmt.Sprintf("%s was damaged at byte %d: it is kept as %s, and written anew from the keys that were read", n.File, n.Offset, n.Kept)
	case keyring.NoticeMovedToGnuPG:
		return fmt.Sprintf("the keys of %s are now in GnuPG's %s; %s is removed", n.File, n.Kept, n.File)
	case keyring.NoticeNotInGnuPG:
		if errors.Is(n.Err, keybox.ErrUnsupportedKey) {
			return fmt.Sprintf("key %s stays in %s, which gpg does not read: GnuPG's %s holds v4 keys only", n.Key, n.Kept, n.File)
		}
		return fmt.Sprintf("key %s stays in %s, which gpg does not read: %v", n.Key, n.Kept, n.Err)
	case keyring.NoticeLockWait:
		return fmt.Sprintf("waiting for lock %s (held by %d) ...", n.File, n.PID)
	case keyring.NoticeTOFUUnusable:
		return fmt.Sprintf("%v; TOFU validity is undefined", n.Err)
	case keyring.NoticeUnsafeHome:
		return fmt.Sprintf("unsafe permissions on homedir '%s'", n.File)
	case keyring.NoticeUnsafeSecring:
		return fmt.Sprintf("unsafe permissions on secret keyring '%s'", n.File)
	case keyring.NoticeKeySkipped:
		return fmt.Sprintf("%s: the key at offset %d is skipped: %v", n.File, n.Offset, n.Err)
	case keyring.NoticeGnuPGUnused:
		return fmt.Sprintf("GnuPG's keys in %s are not used: %v", n.File, n.Err)
	case keyring.NoticeUnreadableKeys:
		return fmt.Sprintf("%s: %d key(s) pgpstream cannot read are not used (the first, %s: %v)", n.File, n.Count, n.Key, n.Err)
	case keyring.NoticeTrustUnread:
		return fmt.Sprintf("%s is not read: %v", n.File, n.Err)
	}
	return fmt.Sprintf("%+v", n) // a kind this version does not word
}
