package keyring

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pgpstream/pgpstream/internal/bounded"
	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// ErrDamaged is wrapped by every *Damage: a ring file of the home could
// be read only up to some byte.
var ErrDamaged = errors.New("keyring: damaged ring file")

// Damage says where reading a ring file stopped (a file cut short in the
// middle of a key, bytes appended, a key that does not parse). The keys
// before Offset are used, as gpg uses the keys it can read; nothing from
// Offset on is, since the key there may lack what followed it (a
// revocation, a binding signature).
type Damage struct {
	File   string
	Offset int64 // the start of the first key not read
	Keys   int   // keys read before it
	Err    error // what was wrong, at Offset or after it
	own    bool  // pgpstream's pubring.pgp or secring.pgp, not one of gpg's
	data   []byte
}

func (d *Damage) Error() string {
	return fmt.Sprintf("%s: reading stopped at byte %d: %v", d.File, d.Offset, d.Err)
}

func (d *Damage) Is(target error) bool { return target == ErrDamaged }

// Damage returns where reading the home's ring files stopped, one entry
// a damaged file; nil when every ring was read whole.
func (r *Ring) Damage() []*Damage { return r.damage }

// ringFile is a ring file's keys, as far as they could be read.
type ringFile struct {
	path   string
	data   []byte
	blocks []*block
	starts []int64 // each block's offset in data
	damage *Damage
}

// readRingFile reads the ring at path: a missing file is an empty ring, a
// file that cannot be read or is over bounded.KeyData bounded.ReadFile's
// error (which names path), and a damaged one the keys before the damage
// (see parseRing).
func readRingFile(path string) (*ringFile, error) {
	data, err := bounded.ReadFile(path, bounded.KeyData)
	if errors.Is(err, os.ErrNotExist) {
		return &ringFile{path: path}, nil
	}
	if err != nil {
		return nil, err
	}
	f := parseRing(path, data)
	for i, b := range f.blocks {
		// A ring written by hand or by an older version may hold a
		// flood of certifications; no more are read than an import keeps.
		if err := tidyStored(b); err != nil {
			f.cut(i, err)
			break
		}
	}
	return f, nil
}

// parseRing frames data into keys. Where the framing breaks, reading
// stops, and the key being read there is left out with everything after
// it: what it lacks cannot be known. (gpg 2.2.40 leaves that key out too
// when bytes were appended to pubring.gpg.)
func parseRing(path string, data []byte) *ringFile {
	f := &ringFile{path: path, data: data}
	var pkts []rawPacket
	lastKey := 0 // index in pkts of the last key packet that began a block
	for off := 0; off < len(data); {
		h, body, rest, err := pgppacket.SplitPacket(data[off:], int64(off))
		if err == nil && len(f.starts) == 0 && !beginsBlock(byte(h.Tag)) && !ignoredTag(byte(h.Tag)) {
			err = fmt.Errorf("%w: packet at offset %d: expected a public or secret key packet first, got tag %d", ErrMalformed, off, h.Tag)
		}
		if err != nil {
			stop := int64(0)
			if len(f.starts) > 0 {
				stop = f.starts[len(f.starts)-1]
				f.starts = f.starts[:len(f.starts)-1]
				pkts = pkts[:lastKey]
			}
			f.damage = &Damage{File: path, Offset: stop, Err: err, data: data}
			break
		}
		if beginsBlock(byte(h.Tag)) {
			f.starts = append(f.starts, int64(off))
			lastKey = len(pkts)
		}
		end := len(data) - len(rest)
		hdr := data[off : end-len(body)]
		pkts = append(pkts, rawPacket{tag: byte(h.Tag), body: body, hdr: append([]byte(nil), hdr...), hdrLen: len(body)})
		off = end
	}
	f.blocks, _ = splitRingBlocks(pkts) // cannot fail: the first packet kept is a key
	if f.damage != nil {
		f.damage.Keys = len(f.blocks)
	}
	return f
}

func beginsBlock(tag byte) bool { return tag == tagPublicKey || tag == tagSecretKey }

// ignoredTag is a packet splitBlocks drops wherever it is.
func ignoredTag(tag byte) bool { return tag == tagTrust || tag == tagMarker || tag == tagPadding }

// cut stops reading at block i, which could not be read for err: it and
// every block after it are left out.
func (f *ringFile) cut(i int, err error) {
	f.damage = &Damage{File: f.path, Offset: f.starts[i], Keys: i, Err: err, data: f.data}
	f.blocks, f.starts = f.blocks[:i], f.starts[:i]
}

// checkRewrite refuses a change that would rewrite a damaged ring file of
// pgpstream's own, unless Options.RewriteDamaged allows it: the rewrite
// would drop, silently, what could not be read.
func (r *Ring) checkRewrite() error {
	if r.opt.RewriteDamaged {
		return nil
	}
	for _, d := range r.damage {
		if d.own {
			return fmt.Errorf("%w; a change would write it again without what follows that byte", d)
		}
	}
	return nil
}

// keepDamaged copies each damaged ring file of pgpstream's own to a new
// name beside it before save replaces it (NoticeDamagedKept).
func (r *Ring) keepDamaged() error {
	for _, d := range r.damage {
		if !d.own {
			continue
		}
		kept, err := keepCopy(d.File, d.data)
		if err != nil {
			return fmt.Errorf("keyring: keeping a copy of the damaged %s: %w", d.File, err)
		}
		r.notify(Notice{Kind: NoticeDamagedKept, File: d.File, Offset: d.Offset, Kept: kept})
	}
	return nil
}

// keepCopy writes data to the first free name of path.damaged,
// path.damaged.1, ..., synced: the directory is synced when the ring
// file is renamed next to it (writeAtomic).
func keepCopy(path string, data []byte) (string, error) {
	for n := 0; n < 1000; n++ {
		name := path + ".damaged"
		if n > 0 {
			name = fmt.Sprintf("%s.%d", name, n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", err
		}
		return name, nil
	}
	return "", fmt.Errorf("%s.damaged.1 to .999 all exist", filepath.Base(path))
}
