package keyring

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pgpstream/pgpstream/internal/bounded"
	"github.com/pgpstream/pgpstream/internal/dotlock"
	"github.com/pgpstream/pgpstream/keybox"
)

// In a GnuPG home that is the ring's own directory, what pgpstream
// imports, changes and deletes is saved where gpg and gpgv read it: in
// gpg's public ring, pubring.kbx if there is one, else pubring.gpg if
// there is one (gpg 1.x's format, which gpg 2 keeps using where it finds
// it), else a new pubring.kbx, as gpg 2.1 and later would make. gpg's
// rule for such a change is followed: its dotlock on the file
// (internal/dotlock) is held from before the ring is read again until the
// new file has its name, and the new file replaces the old whole (the
// atomic writer). A blob or key pgpstream did not change stays as gpg
// wrote it, and so do those it cannot read (gpgsm's certificates in the
// keybox, keys of versions or algorithms pgpstream does not use).
//
// Keys gpg cannot read (v6 keys: gpg 2.2 and 2.4 read v4 keys only, and
// the version 1 keybox blob holds 20-byte fingerprints) stay in
// pubring.pgp, as do all keys in a gpg 2.4 home that keeps its keys in
// keyboxd (common.conf: use-keyboxd), whose database pgpstream does not
// write. Keys an earlier pgpstream kept in a GnuPG home's pubring.pgp
// move into gpg's ring at the next change: gpg's ring is written first,
// and pubring.pgp is then written without them (removed when nothing is
// left), so a crash between the two leaves a key in both, which load
// folds into one.

// gnupgTarget is the gpg ring save writes, a full path, or "" when keys
// stay in pgpstream's own files.
func (r *Ring) gnupgTarget() string {
	if r.gnupg == "" || filepath.Clean(r.gnupg) != filepath.Clean(r.home) || keyboxdHome(r.gnupg) {
		return ""
	}
	kbx := filepath.Join(r.gnupg, kbxName)
	if _, err := os.Stat(kbx); err == nil {
		return kbx
	}
	ring := filepath.Join(r.gnupg, gpgRingName)
	if _, err := os.Stat(ring); err == nil {
		return ring
	}
	return kbx
}

// UsesKeyboxd reports whether the GnuPG home dir keeps its public keys
// in gpg 2.4's keyboxd: a line "use-keyboxd" in its common.conf. A
// common.conf that cannot be read (other than missing) is an error.
func UsesKeyboxd(dir string) (bool, error) {
	b, err := bounded.ReadFile(filepath.Join(dir, "common.conf"), bounded.Config)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "use-keyboxd" {
			return true, nil
		}
	}
	return false, nil
}

// keyboxdHome is UsesKeyboxd for the decision to write gpg's ring: a
// common.conf that cannot be read counts as keyboxd's, so that gpg's
// ring is written only where it is known to be gpg's store.
func keyboxdHome(dir string) bool {
	yes, err := UsesKeyboxd(dir)
	return yes || err != nil
}

// lockGnuPG takes gpg's dotlock on the ring save will write, if any, and
// records it in r.target for save; the returned function releases it.
func (r *Ring) lockGnuPG() (func(), error) {
	r.target = r.gnupgTarget()
	if r.target == "" {
		if r.gnupg != "" && keyboxdHome(r.gnupg) && r.opt.Warn != nil && !r.keyboxdTold {
			r.keyboxdTold = true
			r.opt.Warn(fmt.Sprintf("%s keeps GnuPG's keys in keyboxd, which pgpstream does not write: the change is kept in %s", r.gnupg, filepath.Join(r.home, pubringName)))
		}
		return func() {}, nil
	}
	var waited bool
	l, err := dotlock.Take(r.target, dotlock.Options{Waiting: func(lock string, pid int) {
		if r.opt.Warn != nil && !waited {
			waited = true
			r.opt.Warn(fmt.Sprintf("waiting for lock %s (held by %d) ...", lock, pid))
		}
	}})
	if err != nil {
		r.target = ""
		return nil, fmt.Errorf("keyring: %w", err)
	}
	return func() {
		l.Release()
		r.target = ""
	}, nil
}

// keepOutOfDamaged leaves a gpg ring that could be read only in part as
// it is: the change goes to pubring.pgp, as where gpg's ring is not
// written, and Warn says so. Rewriting it would drop what follows the
// damage, which gpg may still hold dear.
func (r *Ring) keepOutOfDamaged() {
	for _, d := range r.damage {
		if !d.own && d.File == r.target {
			if r.opt.Warn != nil {
				r.opt.Warn(fmt.Sprintf("%s is damaged at byte %d and not rewritten: the change is kept in %s", d.File, d.Offset, filepath.Join(r.home, pubringName)))
			}
			r.target = ""
			return
		}
	}
}

// toGnuPG reports whether save puts k into gpg's ring: every key gpg
// can read there, except one that only the other of gpg's rings holds
// (a home with both pubring.kbx and pubring.gpg) and pgpstream did not
// change, which stays where it is. What gpg can read is what gpg 2.2's
// keybox can hold (keybox.CheckKeyblock: v4 keys within its blob size),
// asked without encoding the blob; the same keys go into pubring.gpg,
// from which gpg 2.2 reads no v5 or v6 key either.
func (r *Ring) toGnuPG(k *Key) bool {
	if k.from != "" && k.from != filepath.Base(r.target) && k.gnupgOnly() {
		return false
	}
	return keybox.CheckKeyblock(k.pub.ringBytes()) == nil
}

// writableInGnuPG reports whether a change to k (a deletion) may be
// saved: keys of the ring save writes may, those only in gpg's other ring
// may not.
func (r *Ring) writableInGnuPG(k *Key) bool {
	return k.from == "" || r.target != "" && k.from == filepath.Base(r.target)
}

// saveGnuPG writes gpg's ring r.target with the keys toGnuPG picks: the
// file as it is, each blob or key of it replaced by the ring's version
// when pgpstream changed it, left out when it was deleted, and new keys
// at the end.
func (r *Ring) saveGnuPG(keys []*Key) error {
	path := r.target
	data, err := bounded.ReadFile(path, bounded.KeyData)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("keyring: %w", err)
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	byFpr := map[string]*Key{}
	for _, k := range keys {
		byFpr[k.Fingerprint()] = k
	}
	done := map[string]bool{}
	now := now32()
	var out bytes.Buffer
	if filepath.Base(path) == kbxName {
		blobs, err := keybox.Split(data)
		if err != nil {
			return fmt.Errorf("keyring: %s is not rewritten (repair it with gpg first): %w", path, err)
		}
		if len(blobs) == 0 {
			out.Write(keybox.HeaderBlob(now))
		}
		for _, b := range blobs {
			if b.Type != 2 || b.Fingerprint == nil {
				if b.Type != 0 { // an empty blob is a deleted key's: dropped, as gpg compacts them away
					out.Write(b.Data)
				}
				continue
			}
			fpr := fmt.Sprintf("%X", b.Fingerprint)
			k := byFpr[fpr]
			switch {
			case k == nil && r.loaded[fpr]:
				continue // deleted
			case k == nil:
				out.Write(b.Data) // a key pgpstream does not read
				continue
			case done[fpr]:
				continue // a second blob of a key, folded into the first
			}
			done[fpr] = true
			if k.unchangedIn(kbxName) {
				out.Write(b.Data)
				continue
			}
			blob, err := keybox.EncodeBlob(k.pub.ringBytes(), now)
			if err != nil {
				return fmt.Errorf("keyring: key %s: %w", fpr, err)
			}
			out.Write(blob)
		}
		for _, k := range keys {
			if done[k.Fingerprint()] {
				continue
			}
			blob, err := keybox.EncodeBlob(k.pub.ringBytes(), now)
			if err != nil {
				return fmt.Errorf("keyring: key %s: %w", k.Fingerprint(), err)
			}
			out.Write(blob)
		}
	} else {
		f := parseRing(path, data)
		if f.damage != nil {
			return fmt.Errorf("keyring: %s is not rewritten (repair it with gpg first): %w", path, f.damage)
		}
		for _, b := range f.blocks {
			fp, err := fingerprintOf(b.primary.pkt)
			if err != nil {
				out.Write(b.ringBytes())
				continue
			}
			fpr := fmt.Sprintf("%X", fp)
			k := byFpr[fpr]
			switch {
			case k == nil && r.loaded[fpr], k != nil && done[fpr]:
				continue
			case k == nil:
				out.Write(b.ringBytes())
				continue
			}
			done[fpr] = true
			out.Write(k.pub.ringBytes())
		}
		for _, k := range keys {
			if !done[k.Fingerprint()] {
				out.Write(k.pub.ringBytes())
			}
		}
	}
	return writeAtomic(path, out.Bytes(), mode)
}

// unchangedIn reports whether k is as gpg's ring file name holds it.
func (k *Key) unchangedIn(name string) bool {
	return k.from == name && k.storedRing != nil && bytes.Equal(k.pub.ringBytes(), k.storedRing)
}
