// Package keyring keeps OpenPGP public and secret keys in a home directory:
// pubring.pgp holds transferable public keys, secring.pgp transferable
// secret keys, both as concatenated binary packets. There is no trust
// model: a key that is in the ring is usable.
package keyring

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"
)

const (
	pubringName = "pubring.pgp"
	secringName = "secring.pgp"
)

// ErrNoKey is returned (wrapped) when a pattern matches no key.
var ErrNoKey = errors.New("no matching key")

// noKeyError names the pattern that matched nothing; it is ErrNoKey.
type noKeyError struct{ kind, pattern string }

func (e *noKeyError) Error() string        { return fmt.Sprintf("no %s key matches %q", e.kind, e.pattern) }
func (e *noKeyError) Is(target error) bool { return target == ErrNoKey }

// DefaultHome returns $PGPSTREAM_HOME, else ~/.pgpstream.
func DefaultHome() string {
	if h := os.Getenv("PGPSTREAM_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".pgpstream"
	}
	return filepath.Join(home, ".pgpstream")
}

// Ring is the set of keys in one home directory. Methods that change it
// write the ring files before returning. A Ring is not safe for concurrent
// use, and two processes changing one home at once can lose an update:
// there is no lock file.
type Ring struct {
	home string
	keys []*Key // pubring order; new keys are appended
}

// Key is one certificate, with its secret part when the ring has it.
type Key struct {
	pub   *block
	sec   *block                        // nil when there is no secret part
	ent   *v2.Entity                    // parsed from pub, for validity and key selection
	privs map[string]*packet.PrivateKey // hex fingerprint -> secret (sub)key, still locked if it was
}

// config is the policy for reading keys. Keys are only read here, never
// used to sign, so go-crypto's defaults apply except that DSA and ElGamal
// are accepted: GnuPG made such keys for two decades and refusing them
// would make old certificates unusable for no gain in this code.
var config = &packet.Config{
	RejectPublicKeyAlgorithms: map[packet.PublicKeyAlgorithm]bool{},
}

// Open loads the ring in home, creating the directory (mode 0700) if it
// does not exist.
func Open(home string) (*Ring, error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("keyring: creating home %s: %w", home, err)
	}
	r := &Ring{home: home}
	pubs, err := readRingFile(filepath.Join(home, pubringName))
	if err != nil {
		return nil, err
	}
	secs, err := readRingFile(filepath.Join(home, secringName))
	if err != nil {
		return nil, err
	}
	byFpr := map[string]*Key{}
	for _, b := range pubs {
		k, err := newKey(b, nil)
		if err != nil {
			return nil, fmt.Errorf("keyring: %s: %w", filepath.Join(home, pubringName), err)
		}
		if prev := byFpr[k.Fingerprint()]; prev != nil {
			// A ring written by hand may hold a key twice; fold it.
			if _, err := merge(prev.pub, b); err != nil {
				return nil, err
			}
			if err := prev.refresh(); err != nil {
				return nil, err
			}
			continue
		}
		byFpr[k.Fingerprint()] = k
		r.keys = append(r.keys, k)
	}
	for _, b := range secs {
		pb, err := publicBlock(b)
		if err != nil {
			return nil, fmt.Errorf("keyring: %s: %w", filepath.Join(home, secringName), err)
		}
		fp, err := fingerprintOf(pb.primary.pkt)
		if err != nil {
			return nil, err
		}
		k := byFpr[strings.ToUpper(hex.EncodeToString(fp))]
		if k == nil {
			// The public ring lost this key; the secret one still
			// carries the certificate, so rebuild it from there.
			if k, err = newKey(pb, nil); err != nil {
				return nil, fmt.Errorf("keyring: %s: %w", filepath.Join(home, secringName), err)
			}
			byFpr[k.Fingerprint()] = k
			r.keys = append(r.keys, k)
		}
		if k.sec == nil {
			k.sec = b
		} else if _, err := merge(k.sec, b); err != nil {
			return nil, err
		}
		if err := k.refresh(); err != nil {
			return nil, fmt.Errorf("keyring: %s: %w", filepath.Join(home, secringName), err)
		}
	}
	return r, nil
}

// Home returns the ring's directory.
func (r *Ring) Home() string { return r.home }

func readRingFile(path string) ([]*block, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("keyring: %w", err)
	}
	pkts, err := splitPackets(data)
	if err != nil {
		return nil, fmt.Errorf("keyring: %s: %w", path, err)
	}
	blocks, err := splitBlocks(pkts)
	if err != nil {
		return nil, fmt.Errorf("keyring: %s: %w", path, err)
	}
	return blocks, nil
}

func newKey(pub, sec *block) (*Key, error) {
	k := &Key{pub: pub, sec: sec}
	return k, k.refresh()
}

// refresh re-derives the parsed views after pub or sec changed.
func (k *Key) refresh() error {
	e, err := v2.ReadEntity(packet.NewReader(bytes.NewReader(k.pub.bytes())))
	if err != nil {
		return fmt.Errorf("reading certificate: %w", err)
	}
	k.ent = e
	k.privs = nil
	if k.sec == nil {
		return nil
	}
	k.privs = map[string]*packet.PrivateKey{}
	for _, c := range k.sec.components() {
		if c.pkt.tag != tagSecretKey && c.pkt.tag != tagSecretSubkey {
			continue
		}
		pub, priv, err := parseKey(c.pkt)
		if err != nil {
			return err
		}
		k.privs[strings.ToUpper(hex.EncodeToString(pub.Fingerprint))] = priv
	}
	return nil
}

// save writes both ring files atomically: a temporary file in the home
// directory, synced, then renamed over the old one, so a crash leaves
// either the old or the new ring and never half of one.
func (r *Ring) save() error {
	var pub, sec bytes.Buffer
	for _, k := range r.keys {
		pub.Write(k.pub.bytes())
		if k.sec != nil {
			sec.Write(k.sec.bytes())
		}
	}
	if err := writeAtomic(filepath.Join(r.home, pubringName), pub.Bytes(), 0o644); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(r.home, secringName), sec.Bytes(), 0o600)
}

func writeAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("keyring: %w", err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("keyring: writing %s: %w", path, err)
	}
	if err := f.Chmod(mode); err != nil {
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("keyring: writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("keyring: %w", err)
	}
	// Sync the directory so the rename itself survives a crash.
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Fingerprint returns the primary key fingerprint in upper-case hex
// (40 digits for v4, 64 for v6).
func (k *Key) Fingerprint() string {
	return strings.ToUpper(hex.EncodeToString(k.ent.PrimaryKey.Fingerprint))
}

// KeyID returns the primary key's 64-bit key ID.
func (k *Key) KeyID() uint64 { return k.ent.PrimaryKey.KeyId }

// Version returns the key packet version, 4 or 6.
func (k *Key) Version() int { return k.ent.PrimaryKey.Version }

// Created returns the primary key's creation time.
func (k *Key) Created() time.Time { return k.ent.PrimaryKey.CreationTime }

// HasSecret reports whether the ring holds the secret part of the key.
func (k *Key) HasSecret() bool { return k.sec != nil }

// Entity returns go-crypto's view of the certificate, for signing and
// verification code that wants it. Its private keys are not filled in;
// use PrivateKey for those.
func (k *Key) Entity() *v2.Entity { return k.ent }

// PrivateKey returns the secret part of the primary key or of the subkey
// with the given fingerprint, or nil. It is still locked if it was
// stored locked; see Unlock.
func (k *Key) PrivateKey(fingerprint []byte) *packet.PrivateKey {
	return k.privs[strings.ToUpper(hex.EncodeToString(fingerprint))]
}

// UserIDs returns the user IDs in ring order, those without a valid
// self-signature left out (anyone can append an unsigned user ID to a
// certificate; showing it would lend it the key's authority).
func (k *Key) UserIDs() []string {
	var out []string
	for _, u := range k.pub.uids {
		if u.pkt.tag != tagUserID {
			continue
		}
		id := k.ent.Identities[string(u.pkt.body)]
		if id == nil {
			continue
		}
		if _, err := id.LatestValidSelfCertification(time.Time{}, config); err != nil {
			continue
		}
		out = append(out, string(u.pkt.body))
	}
	return out
}

// PrimaryUserID returns the user ID go-crypto selects as primary, or the
// first valid one, or "".
func (k *Key) PrimaryUserID() string {
	if _, id := k.ent.PrimaryIdentity(time.Now(), config); id != nil {
		return id.Name
	}
	if ids := k.UserIDs(); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// Select returns the keys matching any of patterns (all keys if there are
// none), in ring order; with secret, only keys whose secret part is in the
// ring. A pattern that matches nothing is an error wrapping ErrNoKey.
// Patterns are read as in Recipients.
func (r *Ring) Select(patterns []string, secret bool) ([]*Key, error) {
	var cands []*Key
	for _, k := range r.keys {
		if !secret || k.sec != nil {
			cands = append(cands, k)
		}
	}
	if len(patterns) == 0 {
		return cands, nil
	}
	chosen := map[*Key]bool{}
	for _, p := range patterns {
		m, err := parsePattern(p)
		if err != nil {
			return nil, err
		}
		found := false
		for _, k := range cands {
			if m.matchKey(k) {
				chosen[k] = true
				found = true
			}
		}
		if !found {
			kind := "public"
			if secret {
				kind = "secret"
			}
			return nil, &noKeyError{kind, p}
		}
	}
	var out []*Key
	for _, k := range cands {
		if chosen[k] {
			out = append(out, k)
		}
	}
	return out, nil
}

// matcher is a parsed key specification.
type matcher struct {
	fpr    []byte // full fingerprint
	keyID  uint64 // long key ID
	short  uint32 // short key ID (low 32 bits of the v4 key ID)
	isID   int    // 0 none, 1 fingerprint, 2 long ID, 3 short ID
	email  string // "<mail>": exact address, lower case
	exact  string // "=uid": whole user ID
	substr string // anything else: case-insensitive substring
	bang   bool   // trailing "!": use exactly this (sub)key
}

// parsePattern reads a key specification the way gpg does for the forms
// people use: a fingerprint (40 or 64 hex digits, optional 0x, spaces
// allowed), a long or short key ID (16 or 8 hex digits), "<mail>" for an
// exact address, "=uid" for an exact user ID, or else a case-insensitive
// user ID substring. A trailing "!" on a fingerprint or key ID selects
// exactly that subkey.
func parsePattern(p string) (matcher, error) {
	var m matcher
	s := strings.TrimSpace(p)
	if s == "" {
		return m, fmt.Errorf("keyring: empty key specification")
	}
	hexs := strings.ReplaceAll(s, " ", "")
	if strings.HasSuffix(hexs, "!") {
		hexs = strings.TrimSuffix(hexs, "!")
		m.bang = true
	}
	hexs = strings.TrimPrefix(strings.TrimPrefix(hexs, "0x"), "0X")
	if b, err := hex.DecodeString(hexs); err == nil {
		switch len(b) {
		case 20, 32:
			m.fpr, m.isID = b, 1
			return m, nil
		case 8:
			for _, c := range b {
				m.keyID = m.keyID<<8 | uint64(c)
			}
			m.isID = 2
			return m, nil
		case 4:
			m.short = uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
			m.isID = 3
			return m, nil
		}
	}
	m.bang = false
	switch {
	case strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">"):
		m.email = strings.ToLower(s[1 : len(s)-1])
	case strings.HasPrefix(s, "="):
		m.exact = s[1:]
	default:
		m.substr = strings.ToLower(s)
	}
	return m, nil
}

// matchPub reports whether a single (sub)key matches an ID-type pattern.
func (m matcher) matchPub(pk *packet.PublicKey) bool {
	switch m.isID {
	case 1:
		return bytes.Equal(pk.Fingerprint, m.fpr)
	case 2:
		return pk.KeyId == m.keyID
	case 3:
		return uint32(pk.KeyId) == m.short
	}
	return false
}

func (m matcher) matchKey(k *Key) bool {
	if m.isID != 0 {
		if m.matchPub(k.ent.PrimaryKey) {
			return true
		}
		for _, s := range k.ent.Subkeys {
			if m.matchPub(s.PublicKey) {
				return true
			}
		}
		return false
	}
	for _, u := range k.pub.uids {
		if u.pkt.tag != tagUserID {
			continue
		}
		uid := string(u.pkt.body)
		switch {
		case m.email != "":
			if strings.EqualFold(emailOf(uid), m.email) {
				return true
			}
		case m.exact != "":
			if uid == m.exact {
				return true
			}
		default:
			if strings.Contains(strings.ToLower(uid), m.substr) {
				return true
			}
		}
	}
	return false
}

// emailOf returns the address between the last "<" and ">" of a user ID,
// or the whole user ID when it is a bare address.
func emailOf(uid string) string {
	if i := strings.LastIndexByte(uid, '<'); i >= 0 {
		if j := strings.IndexByte(uid[i:], '>'); j > 0 {
			return uid[i+1 : i+j]
		}
	}
	if strings.Contains(uid, "@") && !strings.ContainsAny(uid, " <>") {
		return uid
	}
	return ""
}

// Delete removes the keys matching patterns and returns how many it
// removed. Like gpg, it refuses to delete a public key whose secret part
// is in the ring unless secretToo is set, since that would strand the
// secret key.
func (r *Ring) Delete(patterns []string, secretToo bool) (int, error) {
	if len(patterns) == 0 {
		return 0, fmt.Errorf("keyring: delete needs at least one key specification")
	}
	sel, err := r.Select(patterns, false)
	if err != nil {
		return 0, err
	}
	drop := map[*Key]bool{}
	for _, k := range sel {
		if k.sec != nil && !secretToo {
			return 0, fmt.Errorf("keyring: key %s has a secret part in the ring; delete the secret key too or first", k.Fingerprint())
		}
		drop[k] = true
	}
	var keep []*Key
	for _, k := range r.keys {
		if !drop[k] {
			keep = append(keep, k)
		}
	}
	r.keys = keep
	return len(drop), r.save()
}

// DeleteSecret removes only the secret part of the matching keys, leaving
// their certificates in the public ring, and returns how many it removed.
func (r *Ring) DeleteSecret(patterns []string) (int, error) {
	if len(patterns) == 0 {
		return 0, fmt.Errorf("keyring: delete needs at least one key specification")
	}
	sel, err := r.Select(patterns, true)
	if err != nil {
		return 0, err
	}
	for _, k := range sel {
		k.sec = nil
		if err := k.refresh(); err != nil {
			return 0, err
		}
	}
	return len(sel), r.save()
}
