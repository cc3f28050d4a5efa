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
// atomic writer). Both formats are saved by one walk over the file's
// units (saveGnuPG): what pgpstream did not change is written back as it
// was read, and so is what it cannot read. A keybox blob is kept byte for
// byte as gpg wrote it (gpgsm's certificates, keys of versions or
// algorithms pgpstream does not use among them); a key of pubring.gpg as
// load frames it, with the ring trust packets of the key and its user
// IDs, but not those gpg 2.2 writes after each signature and subkey (its
// signature cache, which gpg computes again).
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
		if r.gnupg != "" && keyboxdHome(r.gnupg) && !r.keyboxdTold {
			r.keyboxdTold = true
			r.notify(Notice{Kind: NoticeKeyboxd, File: r.gnupg, Kept: filepath.Join(r.home, pubringName)})
		}
		return func() {}, nil
	}
	var waited bool
	l, err := dotlock.Take(r.target, dotlock.Options{Waiting: func(lock string, pid int) {
		if !waited {
			waited = true
			r.notify(Notice{Kind: NoticeLockWait, File: lock, PID: pid})
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
// written (NoticeGnuPGDamaged). Rewriting it would drop what follows the
// damage, which gpg may still hold dear.
func (r *Ring) keepOutOfDamaged() {
	for _, d := range r.damage {
		if !d.own && d.File == r.target {
			r.notify(Notice{Kind: NoticeGnuPGDamaged, File: d.File, Offset: d.Offset, Kept: filepath.Join(r.home, pubringName)})
			r.target = ""
			return
		}
	}
}

// toGnuPG reports whether save puts k into gpg's ring, when it writes
// one: every key gpg can read there, except one that only the other of gpg's rings holds
// (a home with both pubring.kbx and pubring.gpg) and pgpstream did not
// change, which stays where it is. What gpg can read is what gpg 2.2's
// keybox can hold (keybox.CheckKeyblock: v4 keys within its blob size),
// asked without encoding the blob; the same keys go into pubring.gpg,
// from which gpg 2.2 reads no v5 or v6 key either. refused is why not,
// when the reason is that gpg's ring cannot hold k.
func (r *Ring) toGnuPG(k *Key) (into bool, refused error) {
	if r.target == "" || k.from != "" && k.from != filepath.Base(r.target) && k.gnupgOnly() {
		return false, nil
	}
	if err := keybox.CheckKeyblock(k.pub.ringBytes()); err != nil {
		return false, err
	}
	return true, nil
}

// writableInGnuPG reports whether a change to k (a deletion) may be
// saved: keys of the ring save writes may, those only in gpg's other ring
// may not.
func (r *Ring) writableInGnuPG(k *Key) bool {
	return k.from == "" || r.target != "" && k.from == filepath.Base(r.target)
}

// saveGnuPG writes gpg's ring r.target with the keys toGnuPG picks, in
// one walk over the file's units (ringUnit) whatever its format: each
// unit as it is, unless it holds a key pgpstream read, which is left out
// when it was deleted or is a second copy, kept when it is unchanged, and
// otherwise replaced by the key's encoding; then the new keys, at the
// end. The format (ringFormat) decides only how the file is cut into
// units and how a key is encoded as one.
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
	name := filepath.Base(path)
	format := formatOf(name, now32())
	units, err := format.units(path, data)
	if err != nil {
		return fmt.Errorf("keyring: %s is not rewritten (repair it with gpg first): %w", path, err)
	}
	byFpr := map[string]*Key{}
	for _, k := range keys {
		byFpr[k.Fingerprint()] = k
	}
	done := map[string]bool{}
	var out bytes.Buffer
	put := func(k *Key) error {
		done[k.Fingerprint()] = true
		unit, err := format.encode(k)
		if err != nil {
			return fmt.Errorf("keyring: key %s: %w", k.Fingerprint(), err)
		}
		out.Write(unit)
		return nil
	}
	for _, u := range units {
		k := byFpr[u.fpr]
		switch {
		case u.fpr == "", k == nil && !r.loaded[u.fpr]:
			out.Write(u.data) // not a key pgpstream reads
		case k == nil, done[u.fpr]:
			// deleted, or a second copy of a key, folded into the first
		case k.unchangedIn(name):
			done[u.fpr] = true
			out.Write(u.data)
		default:
			if err := put(k); err != nil {
				return err
			}
		}
	}
	for _, k := range keys {
		if !done[k.Fingerprint()] {
			if err := put(k); err != nil {
				return err
			}
		}
	}
	return writeAtomic(path, out.Bytes(), mode)
}

// ringUnit is one record of gpg's ring as saveGnuPG walks it: a blob of
// pubring.kbx, a transferable key of pubring.gpg. fpr is the primary
// key's fingerprint (upper-case hex) when the unit holds an OpenPGP key
// it names, "" for a unit that is kept whatever the ring holds (the
// keybox's header blob, gpgsm's certificates, a key whose fingerprint
// cannot be computed); data is the unit as written back when kept.
type ringUnit struct {
	fpr  string
	data []byte
}

// ringFormat is what differs between gpg's two rings for saveGnuPG.
type ringFormat interface {
	// units cuts the file at path, as read, into its units; a file it
	// cannot cut whole is an error, since rewriting it would drop what
	// follows the damage.
	units(path string, data []byte) ([]ringUnit, error)
	// encode is k as a unit of the format.
	encode(k *Key) ([]byte, error)
}

// formatOf is the format of gpg's ring file name; now is the time a new
// keybox's header blob and the blobs written are stamped with.
func formatOf(name string, now uint32) ringFormat {
	if name == kbxName {
		return keyboxFormat{now: now}
	}
	return packetRingFormat{}
}

// keyboxFormat is pubring.kbx: a unit is a blob, as gpg wrote it
// (keybox.Split), and a key is encoded as gpg 2.2 encodes it
// (keybox.EncodeBlob).
type keyboxFormat struct{ now uint32 }

func (f keyboxFormat) units(_ string, data []byte) ([]ringUnit, error) {
	blobs, err := keybox.Split(data)
	if err != nil {
		return nil, err
	}
	if len(blobs) == 0 { // a new (or empty) keybox starts with its header
		return []ringUnit{{data: keybox.HeaderBlob(f.now)}}, nil
	}
	units := make([]ringUnit, 0, len(blobs))
	for _, b := range blobs {
		u := ringUnit{data: b.Data}
		switch {
		case b.Type == 0:
			continue // an empty blob is a deleted key's: dropped, as gpg compacts them away
		case b.Type == 2 && b.Fingerprint != nil:
			u.fpr = fmt.Sprintf("%X", b.Fingerprint)
		}
		units = append(units, u)
	}
	return units, nil
}

func (f keyboxFormat) encode(k *Key) ([]byte, error) {
	return keybox.EncodeBlob(k.pub.ringBytes(), f.now)
}

// packetRingFormat is pubring.gpg: a unit is a transferable key, framed
// as load frames it (parseRing) and written back as load read it, with
// the ring trust packets load keeps; a key is encoded the same way.
type packetRingFormat struct{}

func (packetRingFormat) units(path string, data []byte) ([]ringUnit, error) {
	f := parseRing(path, data)
	if f.damage != nil {
		return nil, f.damage
	}
	units := make([]ringUnit, 0, len(f.blocks))
	for _, b := range f.blocks {
		u := ringUnit{data: b.ringBytes()}
		if fp, err := fingerprintOf(b.primary.pkt); err == nil {
			u.fpr = fmt.Sprintf("%X", fp)
		}
		units = append(units, u)
	}
	return units, nil
}

func (packetRingFormat) encode(k *Key) ([]byte, error) { return k.pub.ringBytes(), nil }

// unchangedIn reports whether k is as gpg's ring file name holds it.
func (k *Key) unchangedIn(name string) bool {
	return k.from == name && k.storedRing != nil && bytes.Equal(k.pub.ringBytes(), k.storedRing)
}
