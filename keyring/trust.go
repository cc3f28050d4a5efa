package keyring

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/crypto/ripemd160"

	"github.com/pgpstream/pgpstream/internal/bounded"
)

// OwnerTrust is how far the user trusts a key's owner to certify other
// keys, with GnuPG's numbers (the values --export-ownertrust writes).
type OwnerTrust int

const (
	TrustUnknown   OwnerTrust = 0
	TrustExpired   OwnerTrust = 1
	TrustUndefined OwnerTrust = 2
	TrustNever     OwnerTrust = 3
	TrustMarginal  OwnerTrust = 4
	TrustFully     OwnerTrust = 5
	TrustUltimate  OwnerTrust = 6
)

// Letter is the trust's letter in gpg's --with-colons listings.
func (t OwnerTrust) Letter() string {
	switch t {
	case TrustExpired:
		return "e"
	case TrustUndefined:
		return "q"
	case TrustNever:
		return "n"
	case TrustMarginal:
		return "m"
	case TrustFully:
		return "f"
	case TrustUltimate:
		return "u"
	}
	return "-"
}

// Word is the validity as gpg prints it after a user ID: [ultimate].
func (t OwnerTrust) Word() string {
	switch t {
	case TrustExpired:
		return "expired"
	case TrustUndefined:
		return "undefined"
	case TrustNever:
		return "never"
	case TrustMarginal:
		return "marginal"
	case TrustFully:
		return "full"
	case TrustUltimate:
		return "ultimate"
	}
	return "unknown"
}

// Trust models, gpg's --trust-model: what makes a key valid.
const (
	// ModelPGP: a key is valid when its owner is trusted ultimately (a key
	// made here, or one given ultimate trust), or through the
	// certifications of keys so trusted (the web of trust, wot.go).
	ModelPGP = "pgp"
	// ModelDirect: a key is as valid as its owner is trusted.
	ModelDirect = "direct"
	// ModelAlways: every key is used; validity is not asked.
	ModelAlways = "always"
)

// trustName is the owner-trust file in the home: gpg's --export-ownertrust
// lines, "FINGERPRINT:LEVEL:", so it reads as what it is.
const trustName = "ownertrust.txt"

func (r *Ring) trustPath() string { return filepath.Join(r.home, trustName) }

// readTrust reads the owner-trust file; a missing file is no trust set.
// The error is bounded.ReadFile's, which names path, or
// ParseOwnerTrust's, which does not.
func readTrust(path string) (map[string]OwnerTrust, error) {
	data, err := bounded.ReadFile(path, bounded.OwnerTrust)
	if os.IsNotExist(err) {
		return map[string]OwnerTrust{}, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseOwnerTrust(data)
}

// ParseOwnerTrust reads --export-ownertrust's format: one
// "FINGERPRINT:LEVEL:" a line, # comments.
func ParseOwnerTrust(data []byte) (map[string]OwnerTrust, error) {
	m := map[string]OwnerTrust{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, ":")
		if len(f) < 2 {
			return nil, fmt.Errorf("line %d: want FINGERPRINT:LEVEL:", n)
		}
		fpr := strings.ToUpper(f[0])
		if len(fpr) != 40 && len(fpr) != 64 || strings.Trim(fpr, "0123456789ABCDEF") != "" {
			return nil, fmt.Errorf("line %d: %q is not a fingerprint", n, f[0])
		}
		v, err := strconv.Atoi(f[1])
		if err != nil || v < 0 || v > int(TrustUltimate) {
			return nil, fmt.Errorf("line %d: trust level %q: want 0 to 6", n, f[1])
		}
		m[fpr] = OwnerTrust(v)
	}
	return m, sc.Err()
}

// readTrustFiles reads ownertrust.txt and, in a GnuPG home, trustdb.gpg,
// for OwnerTrust and Validity to use. Only a file over its limit is an
// error: one that cannot be read or parsed is a notice, and no trust.
// An empty trustdb.gpg is none, as gpg takes it (tdbio.c writes the
// version record into it).
func (r *Ring) readTrustFiles() error {
	r.trust, r.gpgValid, r.trustDB, r.web = nil, nil, nil, nil
	path := r.trustPath()
	m, err := readTrust(path)
	if errors.Is(err, bounded.ErrTooLarge) {
		return fmt.Errorf("keyring: %w", err)
	}
	if err != nil {
		r.notices = append(r.notices, Notice{Kind: NoticeTrustUnread, File: path, Err: err})
		m = map[string]OwnerTrust{}
	}
	r.ownTrust = m
	if r.gnupg == "" {
		return nil
	}
	path = filepath.Join(r.gnupg, trustDBName)
	data, err := bounded.ReadFile(path, bounded.TrustDB)
	switch {
	case errors.Is(err, bounded.ErrTooLarge):
		return fmt.Errorf("keyring: %w", err)
	case errors.Is(err, os.ErrNotExist), err == nil && len(data) == 0:
		data = nil
	case err == nil && !isTrustDB(data):
		r.notices = append(r.notices, Notice{Kind: NoticeTrustUnread, File: path, Err: errNotTrustDB})
		data = nil
	case err != nil:
		r.notices = append(r.notices, Notice{Kind: NoticeTrustUnread, File: path, Err: err})
	}
	r.trustDB = data
	return nil
}

// errNotTrustDB is a trustdb.gpg that does not begin with gpg's version
// record.
var errNotTrustDB = errors.New("not a GnuPG trust database")

// isTrustDB reports whether data begins with trustdb.gpg's version record
// (GnuPG's g10/tdbio.c): 40 bytes, type 1, "gpg" in bytes 1 to 3.
func isTrustDB(data []byte) bool {
	return len(data) >= 40 && data[0] == 1 && string(data[1:4]) == "gpg"
}

// OwnerTrust is the owner trust set for the key with fingerprint fpr.
func (r *Ring) OwnerTrust(fpr string) OwnerTrust {
	if r.trust == nil {
		m := maps.Clone(r.ownTrust)
		if m == nil {
			m = map[string]OwnerTrust{}
		}
		r.gnupgTrust(m) // a GnuPG home's trustdb.gpg, under ownertrust.txt
		r.trust = m
	}
	return r.trust[strings.ToUpper(fpr)]
}

// ListedOwnerTrust is the owner trust a listing shows: the one set, or
// what a trust signature gave the key under the pgp model, if more
// (gpg's min_ownertrust).
func (r *Ring) ListedOwnerTrust(fpr string) OwnerTrust {
	t := r.OwnerTrust(fpr)
	if r.model == ModelPGP || r.model == "" {
		t = max(t, r.webOfTrust().minTrust[strings.ToUpper(fpr)])
	}
	return t
}

// Validity is how valid a key is under the trust model: the binding of
// its user IDs to its owner, as gpg's TRUST_ lines and listings report it,
// and as encryption checks it. Under ModelPGP a key is valid when it is
// trusted ultimately, or through certifications: as the web of trust
// computes it from the ring (wot.go), or as gpg, sharing the home, found
// it (its trustdb.gpg, see gnupgValidity), whichever is more valid. So a
// key gpg --lsign-key made valid stays valid here, and so does one
// certified only in pgpstream's own ring, which gpg does not read.
func (r *Ring) Validity(fpr, model string) OwnerTrust {
	t := r.OwnerTrust(fpr)
	switch model {
	case ModelDirect:
		if t == TrustUndefined || t == TrustExpired {
			return TrustUnknown
		}
		return t
	case ModelTOFU, ModelTOFUPGP:
		return r.tofuModelValidity(fpr, "", model)
	default:
		if t == TrustUltimate {
			return TrustUltimate
		}
		return max(r.gnupgValid(fpr, "", false), r.webOfTrust().valid[strings.ToUpper(fpr)].best)
	}
}

// RecipientValidity is the validity gpg checks before it encrypts to rc:
// that of the user ID rc was named by, or, named by key ID or
// fingerprint, the key's (see Validity). A key with two user IDs, one of
// them certified, is valid by that one's address and not by the other's.
func (r *Ring) RecipientValidity(rc Recipient, model string) OwnerTrust {
	if rc.UserID == "" {
		return r.Validity(rc.Key.Fingerprint(), model)
	}
	return r.UserIDValidity(rc.Key.Fingerprint(), rc.UserID, model)
}

// UserIDValidity is the validity of one user ID of the key with
// fingerprint fpr, which gpg lists after it ([ full ]): under ModelPGP
// the key's owner trust if ultimate, else what the web of trust or
// trustdb.gpg gives that user ID; under ModelDirect the key's validity,
// the same for all.
func (r *Ring) UserIDValidity(fpr, uid, model string) OwnerTrust {
	if isTOFU(model) {
		return r.tofuModelValidity(fpr, uid, model)
	}
	if model == ModelDirect || r.OwnerTrust(fpr) == TrustUltimate {
		return r.Validity(fpr, model)
	}
	return max(r.gnupgValid(fpr, uid, true), r.webOfTrust().valid[strings.ToUpper(fpr)].uids[uid])
}

// gnupgValid is the validity gpg's trustdb.gpg gives the key with
// fingerprint fpr: its best user ID's, or, with byUID, uid's.
func (r *Ring) gnupgValid(fpr, uid string, byUID bool) OwnerTrust {
	if r.gpgValid == nil {
		r.gpgValid = map[string]gnupgKeyValidity{}
		if r.trustDB != nil {
			r.gpgValid = gnupgValidity(r.trustDB)
		}
	}
	kv := r.gpgValid[strings.ToUpper(fpr)]
	v := kv.best
	if byUID {
		h := ripemd160.New()
		h.Write([]byte(uid))
		v = kv.uids[string(h.Sum(nil))]
	}
	switch v {
	case TrustNever, TrustMarginal, TrustFully, TrustUltimate:
		return v
	}
	return TrustUnknown
}

// gnupgKeyValidity is what trustdb.gpg records of one key's validity.
type gnupgKeyValidity struct {
	best OwnerTrust            // the most valid user ID's
	uids map[string]OwnerTrust // by RIPEMD-160 of the user ID, as gpg keys them
}

// gnupgValidity reads the validity gpg computed for each key under its
// pgp (or classic) model, from the trust database's bytes; an empty or
// malformed one, or one built under another model, gives none.
//
// trustdb.gpg (GnuPG's g10/tdbio.c) is an array of 40-byte records, the
// first byte the record type. Record 0, the version record (type 1, "gpg"
// in bytes 1 to 3), has the trust model at byte 8: 0 classic, 1 pgp,
// 7 tofu+pgp build validity from certifications. A trust record (type 12)
// has a primary key's fingerprint at bytes 2 to 21 and, at bytes 26 to
// 29, the number of its first valid record; a valid record (type 13) has
// one user ID's RIPEMD-160 at bytes 2 to 21, its validity at byte 22 (in
// the low bits, numbered as OwnerTrust is) and the next valid record at
// bytes 23 to 26. A key is as valid as its most valid user ID.
func gnupgValidity(data []byte) map[string]gnupgKeyValidity {
	m := map[string]gnupgKeyValidity{}
	const recLen, typeTrust, typeValid = 40, 12, 13
	if !isTrustDB(data) {
		return m
	}
	switch data[8] {
	case 0, 1, 7:
	default:
		return m
	}
	n := len(data) / recLen
	rec := func(i int) []byte { return data[i*recLen : (i+1)*recLen] }
	for i := 1; i < n; i++ {
		tr := rec(i)
		if tr[0] != typeTrust {
			continue
		}
		kv := gnupgKeyValidity{uids: map[string]OwnerTrust{}}
		next := int(uint32(tr[26])<<24 | uint32(tr[27])<<16 | uint32(tr[28])<<8 | uint32(tr[29]))
		for seen := 0; next > 0 && next < n && seen < n; seen++ {
			vr := rec(next)
			if vr[0] != typeValid {
				break
			}
			if v := OwnerTrust(vr[22] & 0x0f); v <= TrustUltimate {
				kv.uids[string(vr[2:22])] = v
				kv.best = max(kv.best, v)
			}
			next = int(uint32(vr[23])<<24 | uint32(vr[24])<<16 | uint32(vr[25])<<8 | uint32(vr[26]))
		}
		if len(kv.uids) > 0 {
			m[fmt.Sprintf("%X", tr[2:22])] = kv
		}
	}
	return m
}

// SetTrustModel sets the trust model listings compute validity under
// (ModelPGP when unset).
func (r *Ring) SetTrustModel(model string) { r.model = model }

// SetOwnerTrust sets (level 0: clears) the owner trust of the keys named
// by fingerprint, under the home's lock, and writes the file back whole.
func (r *Ring) SetOwnerTrust(set map[string]OwnerTrust) error {
	unlock, err := lockHome(r.home)
	if err != nil {
		return err
	}
	defer unlock()
	m, err := readTrust(r.trustPath())
	if err != nil {
		return fmt.Errorf("keyring: %s is not read: %w", r.trustPath(), err)
	}
	for fpr, t := range set {
		fpr = strings.ToUpper(fpr)
		if t == TrustUnknown {
			delete(m, fpr)
		} else {
			m[fpr] = t
		}
	}
	var b bytes.Buffer
	b.WriteString("# owner trust, as gpg --export-ownertrust writes it\n")
	for _, fpr := range sortedKeys(m) {
		fmt.Fprintf(&b, "%s:%d:\n", fpr, m[fpr])
	}
	if err := writeAtomic(r.trustPath(), b.Bytes(), 0o600); err != nil {
		return err
	}
	r.ownTrust, r.trust, r.web = m, nil, nil
	return nil
}

// ExportOwnerTrust writes the owner trust in --export-ownertrust's format.
func (r *Ring) ExportOwnerTrust() []byte {
	r.OwnerTrust("")
	var b bytes.Buffer
	b.WriteString("# List of assigned trustvalues\n# (Use \"gpg --import-ownertrust\" to restore them)\n")
	for _, fpr := range sortedKeys(r.trust) {
		fmt.Fprintf(&b, "%s:%d:\n", fpr, r.trust[fpr])
	}
	return b.Bytes()
}

func sortedKeys(m map[string]OwnerTrust) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
