// Package keyring keeps OpenPGP public and secret keys in a home directory:
// pubring.pgp holds transferable public keys, secring.pgp transferable
// secret keys, both as concatenated binary packets. In a GnuPG home it
// also reads gpg's public rings and uses the secret keys of its
// gpg-agent, without ever writing gpg's files (see gnupg.go).
package keyring

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/internal/atomicfile"
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

// Ring is the set of keys in one home directory. A Ring is not safe for
// concurrent use within a process; between processes, every method that
// changes the ring takes the home's lock, re-reads the ring files under it
// and writes them before releasing it, so concurrent writers serialise and
// none loses another's update (see update). Because a change re-reads
// the ring, *Key values obtained before it are stale after it.
type Ring struct {
	home     string
	opt      Options
	keys     []*Key                // pubring order; new keys are appended
	notices  []Notice              // what load found (Notices)
	damage   []*Damage             // ring files read only in part (damage.go)
	trust    map[string]OwnerTrust // owner trust by fingerprint, parsed on first use
	ownTrust map[string]OwnerTrust // ownertrust.txt's, as load read it
	trustDB  []byte                // a GnuPG home's trustdb.gpg, as load read it
	model    string                // trust model for listings (see SetTrustModel)
	gnupg    string                // the GnuPG home whose rings are read, or ""
	agent    *agentSource          // its gpg-agent, or nil

	gpgValid map[string]gnupgKeyValidity // validity gpg computed, from trustdb.gpg (trust.go)

	// target is gpg's ring a change is saved into, while update holds
	// its dotlock (gnupgwrite.go); loaded the fingerprints the last load
	// read, so that save knows a key missing now was deleted.
	target      string
	loaded      map[string]bool
	keyboxdTold bool

	trustParams TrustParams // see SetTrustParams
	web         *web        // the web of trust, computed on first use (wot.go)
	tofu        tofuState   // the TOFU history, opened on first use (tofu.go)
}

// Options is the policy a Ring applies to the keys it reads.
type Options struct {
	// AllowWeakKeySignatures accepts SHA-1 self-signatures made after
	// SHA1SelfSigCutoff (gpg's --allow-weak-key-signatures).
	AllowWeakKeySignatures bool
	// AllowNonSelfSignedUID is gpg's --allow-non-selfsigned-uid: a user
	// ID with no valid self-signature is imported, listed and matched as
	// if self-signed, and a key that has only such user IDs is valid (see
	// unsigned.go). Nothing of it is stored: without it, such a user ID
	// is neither listed nor matched, and a key that has only such user
	// IDs is invalid, whatever the import that brought it was told.
	AllowNonSelfSignedUID bool
	// GnuPGHome is the GnuPG home whose public rings (pubring.kbx,
	// pubring.gpg) and gpg-agent the ring uses besides its own files:
	// "" for the ring's own directory when it is a GnuPG home (see
	// IsGnuPGHome), "-" for none.
	GnuPGHome string
	// Agent says how the GnuPG home's gpg-agent is used.
	Agent AgentOptions
	// RewriteDamaged lets a change write a pubring.pgp or secring.pgp
	// that could be read only in part (see Damage): the damaged file is
	// first kept beside it as FILE.damaged (or .damaged.N), and Notify is
	// told. Without it such a change is refused.
	RewriteDamaged bool
	// Notify receives what the ring has to tell after Open returned, as
	// facts for the caller to word (Notice); nil drops them.
	Notify func(Notice)
}

// Key is one certificate, with its secret part when the ring has it.
type Key struct {
	pub       *block
	sec       *block                        // nil when there is no secret part
	ent       *v2.Entity                    // parsed from pub under the policy, for validity and key selection
	whole     *v2.Entity                    // parsed from pub as stored (ent itself when the policy removed nothing), for decryption
	privs     map[string]*packet.PrivateKey // hex fingerprint -> secret (sub)key, still locked if it was
	uids      []string                      // user IDs with a valid self-signature, in ring order
	allowWeak bool                          // Options.AllowWeakKeySignatures
	// allowUnsigned is Options.AllowNonSelfSignedUID; accepted names the
	// user IDs it accepted without a valid self-signature (unsigned.go).
	allowUnsigned bool
	accepted      map[string]bool
	stored        []byte       // the certificate as gpg's rings have it, when only they have it
	storedRing    []byte       // the same with its ring trust packets, for saveGnuPG
	from          string       // the gpg ring it was read from, or ""
	agent         *agentSource // the GnuPG home's agent, or nil
}

// config is the policy for reading keys. Keys are only read here, never
// used to sign, so go-crypto's defaults apply except that DSA and ElGamal
// are accepted: GnuPG made such keys for two decades and refusing them
// would make old certificates unusable for no gain in this code. For the
// same reason a key whose binding signature has no key flags (GnuPG wrote
// none before 2.0) may do what its algorithm can, as gpg decides. RSA keys
// of 1024 bits and more are used, as gpg 2.2 uses them (go-crypto's own
// floor is 2047).
var config = &packet.Config{
	RejectPublicKeyAlgorithms:           map[packet.PublicKeyAlgorithm]bool{},
	InsecureAllowAllKeyFlagsWhenMissing: true,
	MinRSABits:                          minRSABits,
	Time:                                clock.Now,
}

// minRSABits is the smallest RSA key pgpstream signs, verifies and
// encrypts with.
const minRSABits = 1024

// Open loads the ring in home with the default policy; see OpenWith.
func Open(home string) (*Ring, error) { return OpenWith(home, Options{}) }

// OpenWith loads the ring in home, creating the directory (mode 0700) if
// it does not exist. Reading takes no lock: the ring files are only ever
// replaced whole by rename, so a reader sees each file before or after a
// change, never half of one.
func OpenWith(home string, opt Options) (*Ring, error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("keyring: creating home %s: %w", home, err)
	}
	r := &Ring{home: home, opt: opt}
	switch {
	case opt.GnuPGHome == "-":
	case opt.GnuPGHome != "":
		r.gnupg = opt.GnuPGHome
	case IsGnuPGHome(home):
		r.gnupg = home
	}
	if r.gnupg != "" && !opt.Agent.Disable {
		r.agent = newAgentSource(r.gnupg, opt.Agent)
	}
	if err := r.load(); err != nil {
		return nil, err
	}
	return r, nil
}

// Home returns the ring's directory.
func (r *Ring) Home() string { return r.home }

// permissionNotices checks the modes gpg checks: the home must be
// private to its owner, and so must the secret ring.
func permissionNotices(home string) []Notice {
	var out []Notice
	if fi, err := os.Stat(home); err == nil && fi.Mode().Perm()&0o077 != 0 {
		out = append(out, Notice{Kind: NoticeUnsafeHome, File: home})
	}
	sec := filepath.Join(home, secringName)
	if fi, err := os.Stat(sec); err == nil && fi.Mode().Perm()&0o077 != 0 {
		out = append(out, Notice{Kind: NoticeUnsafeSecring, File: sec})
	}
	return out
}

// load (re)reads both ring files, and gpg's public rings in a GnuPG
// home, into r.keys: gpg's keys first, in their order, then pgpstream's.
func (r *Ring) load() error {
	home := r.home
	r.keys, r.damage, r.notices = nil, nil, permissionNotices(home)
	byFpr := map[string]*Key{}
	defer func() {
		r.loaded = make(map[string]bool, len(byFpr))
		for f := range byFpr {
			r.loaded[f] = true
		}
	}()
	if r.gnupg != "" {
		if err := r.loadGnuPG(r.gnupg, byFpr); err != nil {
			return err
		}
	}
	if err := r.readTrustFiles(); err != nil {
		return err
	}
	pubs, err := readRingFile(filepath.Join(home, pubringName))
	if err != nil {
		return fmt.Errorf("keyring: %w", err)
	}
	secs, err := readRingFile(filepath.Join(home, secringName))
	if err != nil {
		return fmt.Errorf("keyring: %w", err)
	}
	defer func() {
		for _, f := range []*ringFile{pubs, secs} {
			if f.damage != nil {
				f.damage.own = true
				r.damage = append(r.damage, f.damage)
			}
		}
	}()
	for i, b := range pubs.blocks {
		k, err := r.newKey(b, nil)
		if err != nil {
			pubs.cut(i, err)
			break
		}
		if prev := byFpr[k.Fingerprint()]; prev != nil {
			// A ring written by hand may hold a key twice; fold it.
			if _, err := merge(prev.pub, b); err != nil {
				return err
			}
			if err := prev.refresh(); err != nil {
				return err
			}
			prev.stored, prev.storedRing = nil, nil // pgpstream's own ring has it too
			continue
		}
		byFpr[k.Fingerprint()] = k
		r.keys = append(r.keys, k)
	}
	for i, b := range secs.blocks {
		pb, err := publicBlock(b)
		var fp []byte
		if err == nil {
			fp, err = fingerprintOf(pb.primary.pkt)
		}
		if err != nil {
			secs.cut(i, err)
			break
		}
		k := byFpr[strings.ToUpper(hex.EncodeToString(fp))]
		if k == nil {
			// The public ring lacks this key (a crash between the
			// secret ring's write and the public ring's, which comes
			// second); the secret one carries the certificate, so
			// rebuild it from there.
			if k, err = r.newKey(pb, nil); err != nil {
				secs.cut(i, err)
				break
			}
			byFpr[k.Fingerprint()] = k
			r.keys = append(r.keys, k)
		}
		if k.sec == nil {
			k.sec = b
		} else if _, err := merge(k.sec, b); err != nil {
			return err
		}
		if err := k.refresh(); err != nil {
			return fmt.Errorf("keyring: %s: %w", filepath.Join(home, secringName), err)
		}
	}
	return nil
}

func (r *Ring) newKey(pub, sec *block) (*Key, error) {
	k := &Key{pub: pub, sec: sec, allowWeak: r.opt.AllowWeakKeySignatures, allowUnsigned: r.opt.AllowNonSelfSignedUID, agent: r.agent}
	return k, k.refresh()
}

// refresh re-derives the parsed views after pub or sec changed. go-crypto
// sees the certificate without the certifications by other keys (see
// ownView) and the signatures the policy rejects (see policyView); the
// ring keeps them as received.
func (k *Key) refresh() error {
	own := ownView(k.pub)
	view := policyView(own, k.allowWeak)
	e, accepted, err := readEntity(view, k.allowUnsigned)
	if err != nil {
		return err
	}
	k.ent, k.whole, k.accepted = e, e, accepted
	if view != own {
		// Decryption does not judge the certificate: a message sent to
		// the key opens with its secret part whatever the policy says
		// about the signatures that bind it.
		if k.whole, _, err = readEntity(own, k.allowUnsigned); err != nil {
			return err
		}
	}
	k.uids = nil
	for _, u := range k.pub.uids {
		if u.pkt.tag != tagUserID {
			continue
		}
		id := e.Identities[string(u.pkt.body)]
		if id == nil {
			continue
		}
		sig, err := id.LatestValidSelfCertification(time.Time{}, config)
		if err != nil || uidRevoked(id, sig, clock.Now()) {
			// A revoked user ID no longer names the key, as in gpg.
			continue
		}
		k.uids = append(k.uids, string(u.pkt.body))
	}
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

// update is how every change reaches the disk. Under the home's lock it
// re-reads the ring files (another process may have changed them since
// Open), applies change to what it read, and, if change reports a
// change, writes both files before the lock is released. Without the
// re-read, two concurrent imports would each write their own view and the
// later rename would drop the earlier import.
func (r *Ring) update(order saveOrder, change func() (bool, error)) error {
	unlock, err := lockHome(r.home)
	if err != nil {
		return err
	}
	defer unlock()
	unlockGnuPG, err := r.lockGnuPG()
	if err != nil {
		return err
	}
	defer unlockGnuPG()
	removeStaleTemps(r.home)
	if err := r.load(); err != nil {
		return err
	}
	changed, err := change()
	if err != nil || !changed {
		return err
	}
	if err := r.checkRewrite(); err != nil {
		return err
	}
	if err := r.keepDamaged(); err != nil {
		return err
	}
	return r.save(order)
}

// removeStaleTemps deletes the temporary ring files a killed writer left.
// It runs under the lock, and a writer's temporary files exist only while
// it holds the lock, so any found then belong to a writer that is gone.
func removeStaleTemps(home string) {
	ents, _ := os.ReadDir(home)
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".tmp") {
			continue
		}
		// pgpstream's own names, and the writer's temporary names for
		// gpg's rings (gpg's own is pubring.kbx.tmp, never matched).
		if strings.HasPrefix(n, "."+pubringName+".") || strings.HasPrefix(n, "."+secringName+".") ||
			strings.HasPrefix(n, "."+kbxName+".pgpstream-") || strings.HasPrefix(n, "."+gpgRingName+".pgpstream-") {
			os.Remove(filepath.Join(home, n))
		}
	}
}

// saveOrder says which ring file is replaced first.
type saveOrder int

const (
	// secretFirst is for changes that add secret material (import,
	// generate): a crash or a full disk between the two writes leaves a
	// secret key whose certificate the public ring lacks, which load
	// rebuilds from the secret ring, and never a public key without the
	// secret part it was made with (which would be encrypted to).
	secretFirst saveOrder = iota
	// publicFirst is for deletion: a crash between the writes leaves the
	// secret part, from which load restores the whole key, so a deletion
	// either happened or did not.
	publicFirst
)

// save writes both ring files atomically, in the given order: each is a
// temporary file in the home directory, synced, renamed over the old one,
// and the directory synced, before the next begins. A crash leaves every
// file old or new, never half of one.
func (r *Ring) save(order saveOrder) error {
	r.keepOutOfDamaged()
	own := filepath.Join(r.home, pubringName)
	var pub, sec bytes.Buffer
	var toGnuPG []*Key
	var notInGnuPG []Notice // told once the files are written
	for _, k := range r.keys {
		into, refused := r.toGnuPG(k)
		switch {
		case into:
			toGnuPG = append(toGnuPG, k)
		case !k.gnupgOnly():
			// A key read from gpg's rings is written to pgpstream's
			// own only once pgpstream changed it, where gpg's ring is
			// not written (see gnupgwrite.go).
			pub.Write(k.pub.ringBytes())
			if refused != nil && !r.loaded[k.Fingerprint()] {
				notInGnuPG = append(notInGnuPG, Notice{Kind: NoticeNotInGnuPG, Key: k.Fingerprint(), File: r.target, Kept: own, Err: refused})
			}
		}
		if k.sec != nil {
			sec.Write(k.sec.bytes())
		}
	}
	writePub := func() error {
		if r.target == "" {
			return writeAtomic(own, pub.Bytes(), 0o644)
		}
		// gpg's ring first: a crash before pubring.pgp is written
		// leaves the moved keys in both, never in neither.
		if err := r.saveGnuPG(toGnuPG); err != nil {
			return err
		}
		if pub.Len() > 0 {
			return writeAtomic(own, pub.Bytes(), 0o644)
		}
		if fi, err := os.Stat(own); err == nil && fi.Size() > 0 {
			r.notify(Notice{Kind: NoticeMovedToGnuPG, File: own, Kept: r.target})
		}
		// Nothing of pgpstream's own is left: pubring.pgp goes, durably.
		if err := atomicfile.Remove(own); err != nil {
			return fmt.Errorf("keyring: removing %s: %w", own, err)
		}
		return nil
	}
	writeSec := func() error { return writeAtomic(filepath.Join(r.home, secringName), sec.Bytes(), 0o600) }
	first, second := writeSec, writePub
	if order == publicFirst {
		first, second = writePub, writeSec
	}
	if err := first(); err != nil {
		return err
	}
	if err := second(); err != nil {
		return err
	}
	for _, n := range notInGnuPG {
		r.notify(n)
	}
	return nil
}

// writeAtomic replaces path with data durably (atomicfile.WriteFile): a
// crash leaves every file old or new, and the next file is written only
// once this one's new name is on disk.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	if err := atomicfile.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("keyring: writing %s: %w", path, err)
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

// HasSecret reports whether the ring holds the secret part of the key,
// or the GnuPG home's gpg-agent holds that of one of its (sub)keys (which
// starts the agent if it is not running).
func (k *Key) HasSecret() bool { return k.sec != nil || k.inAgent(true) }

// Entity returns go-crypto's view of the certificate, for signing and
// verification code that wants it. Its private keys are not filled in;
// use PrivateKey for those.
func (k *Key) Entity() *v2.Entity { return k.ent }

// PrivateKey returns the secret part of the primary key or of the subkey
// with the given fingerprint, or nil. It is still locked if it was
// stored locked; see Unlock. A (sub)key whose secret half is in
// gpg-agent comes back unlocked: the agent asks for its passphrase when it
// uses it.
func (k *Key) PrivateKey(fingerprint []byte) *packet.PrivateKey {
	if p := k.privs[strings.ToUpper(hex.EncodeToString(fingerprint))]; p != nil {
		return p
	}
	return k.agentPrivateKey(fingerprint)
}

// UserIDs returns the user IDs in ring order, those without a valid
// self-signature and those revoked left out (anyone can append an unsigned user ID to a
// certificate; showing it would lend it the key's authority).
func (k *Key) UserIDs() []string { return k.uids }

// PrimaryUserID returns the primary user ID as gpg chooses it (GnuPG's
// merge_selfsigs_main): of the user IDs whose newest self-signature says
// primary, the one signed last, else the one signed last of all; a tie
// goes to the longer user ID, then to the one that sorts last
// (cmp_user_ids), so that every keyring picks the same. "" when no user
// ID is valid.
func (k *Key) PrimaryUserID() string {
	best, bestFlag, bestAt := "", false, time.Time{}
	for _, u := range k.uids {
		sig, err := k.ent.Identities[u].LatestValidSelfCertification(time.Time{}, config)
		if err != nil {
			continue
		}
		flag := sig.IsPrimaryId != nil && *sig.IsPrimaryId
		at := sig.CreationTime
		switch {
		case best == "" || flag && !bestFlag:
		case flag != bestFlag || at.Before(bestAt):
			continue
		case at.Equal(bestAt) && (len(u) < len(best) || len(u) == len(best) && u <= best):
			continue
		}
		best, bestFlag, bestAt = u, flag, at
	}
	return best
}

// ErrAmbiguous is returned (wrapped) when a specification that must name
// one key, as a recipient or a signer, matches several.
var ErrAmbiguous = errors.New("ambiguous key specification")

// ambiguousError names the pattern and the keys it matched.
type ambiguousError struct {
	pattern string
	keys    []*Key
}

func (e *ambiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q matches %d keys:", e.pattern, len(e.keys))
	for i, k := range e.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %s %q", k.Fingerprint(), k.PrimaryUserID())
	}
	b.WriteString("; name one by fingerprint or by exact address")
	return b.String()
}

func (e *ambiguousError) Is(target error) bool { return target == ErrAmbiguous }

// Select returns the keys matching any of patterns (all keys if there are
// none), in ring order; with secret, only keys whose secret part is in the
// ring. When no pattern matches anything, the error wraps ErrNoKey; a
// pattern that matches nothing beside one that does is not an error, as
// gpg searches for the names together (GnuPG's tests pass a stray "-",
// gpg's substring search for "-", after the key they list or export).
// Patterns are read as gpg reads a user ID specification (see
// parsePattern); a pattern may match several keys, as in gpg's listings
// and exports. To name one key, use Lookup.
func (r *Ring) Select(patterns []string, secret bool) ([]*Key, error) {
	cands := r.candidates(secret)
	if len(patterns) == 0 {
		return cands, nil
	}
	chosen := map[*Key]bool{}
	for _, p := range patterns {
		m, err := parsePattern(p)
		if err != nil {
			return nil, err
		}
		for _, k := range cands {
			if m.matchKey(k) {
				chosen[k] = true
			}
		}
	}
	if len(chosen) == 0 {
		return nil, r.noKey(patterns[0], secret)
	}
	var out []*Key
	for _, k := range cands {
		if chosen[k] {
			out = append(out, k)
		}
	}
	return out, nil
}

// Lookup returns the one key spec names, as -u and -r need it: an error
// wrapping ErrNoKey if none matches, or ErrAmbiguous, naming the
// candidates, if several do. gpg 2.2 takes the first match in ring order
// instead, so that "alice" can mean "Malice" when Malice was imported
// first; pgpstream refuses to guess.
func (r *Ring) Lookup(spec string, secret bool) (*Key, error) {
	return r.lookup(spec, secret, nil)
}

// lookup is Lookup among the matching keys that usable accepts (all, if
// usable is nil); when none is usable, it returns usable's error for the
// first match.
func (r *Ring) lookup(spec string, secret bool, usable func(*Key) error) (*Key, error) {
	m, err := parsePattern(spec)
	if err != nil {
		return nil, err
	}
	var all, ok []*Key
	var firstErr error
	for _, k := range r.candidates(secret) {
		if !m.matchKey(k) {
			continue
		}
		all = append(all, k)
		if usable != nil {
			if err := usable(k); err != nil {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
		}
		ok = append(ok, k)
	}
	switch {
	case len(all) == 0:
		return nil, r.noKey(spec, secret)
	case len(ok) == 0:
		return nil, firstErr
	case len(ok) > 1:
		return nil, &ambiguousError{spec, ok}
	}
	return ok[0], nil
}

func (r *Ring) candidates(secret bool) []*Key {
	var cands []*Key
	for _, k := range r.keys {
		if !secret || k.HasSecret() {
			cands = append(cands, k)
		}
	}
	return cands
}

// noKey is noKey with, for a secret key, why the GnuPG home's gpg-agent
// could not be asked, if it could not.
func (r *Ring) noKey(pattern string, secret bool) error {
	if err := r.AgentError(); secret && err != nil {
		return fmt.Errorf("%w (the secret keys of gpg-agent are not available: %v)", noKey(pattern, secret), err)
	}
	return noKey(pattern, secret)
}

func noKey(pattern string, secret bool) error {
	kind := "public"
	if secret {
		kind = "secret"
	}
	return &noKeyError{kind, pattern}
}

// matcher is a parsed key specification.
type matcher struct {
	fpr     []byte // full fingerprint
	keyID   uint64 // long key ID
	short   uint32 // short key ID (low 32 bits of the v4 key ID)
	isID    int    // 0 none, 1 fingerprint, 2 long ID, 3 short ID
	email   string // "<mail>" or a bare address: the exact address, lower case
	mailSub string // "@part": a substring of the address, lower case
	exact   string // "=uid": whole user ID
	substr  string // anything else: case-insensitive substring
	bang    bool   // trailing "!": use exactly this (sub)key
}

// parsePattern reads a key specification as gpg's man page ("HOW TO
// SPECIFY A USER ID") has it, for the forms people use: a fingerprint (40
// or 64 hex digits, optional 0x, spaces allowed), a long or short key ID
// (16 or 8 hex digits), "<mail>" for an exact address, "@part" for part
// of an address, "=uid" for an exact user ID, "*text" or any other text
// for a case-insensitive user ID substring. A bare address
// ("alice@example.org") is matched as "<alice@example.org>", as gpg 2.2
// does, so that it cannot select "malice@example.org". A trailing "!" on
// a fingerprint or key ID selects exactly that subkey. Only user IDs with
// a valid self-signature are matched.
func parsePattern(p string) (matcher, error) {
	var m matcher
	s := strings.TrimSpace(p)
	if s == "" {
		return m, fmt.Errorf("keyring: empty key specification")
	}
	if b, bang, ok := parseHexID(s); ok {
		m.bang = bang
		switch len(b) {
		case 20, 32:
			m.fpr, m.isID = b, 1
		case 8:
			m.keyID, m.isID = binary.BigEndian.Uint64(b), 2
		case 4:
			m.short, m.isID = binary.BigEndian.Uint32(b), 3
		}
		return m, nil
	}
	switch {
	case strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">"):
		m.email = strings.ToLower(s[1 : len(s)-1])
	case strings.HasPrefix(s, "@"):
		m.mailSub = strings.ToLower(s[1:])
	case strings.HasPrefix(s, "="):
		m.exact = s[1:]
	case strings.HasPrefix(s, "*"):
		m.substr = strings.ToLower(s[1:])
	case strings.Contains(s, "@") && !strings.ContainsAny(s, " <>"):
		m.email = strings.ToLower(s)
	default:
		m.substr = strings.ToLower(s)
	}
	return m, nil
}

// parseHexID reads a fingerprint or key ID: hex digits (spaces allowed,
// optional 0x, optional trailing "!") of 4, 8, 20 or 32 bytes.
func parseHexID(s string) (id []byte, bang, ok bool) {
	h := strings.ReplaceAll(s, " ", "")
	if strings.HasSuffix(h, "!") {
		h, bang = strings.TrimSuffix(h, "!"), true
	}
	h = strings.TrimPrefix(strings.TrimPrefix(h, "0x"), "0X")
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, false, false
	}
	switch len(b) {
	case 4, 8, 20, 32:
		return b, bang, true
	}
	return nil, false, false
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
	_, ok := m.userID(k)
	return ok
}

// userID is the first of k's user IDs the pattern names, and whether
// there is one. A key ID or fingerprint names no user ID.
func (m matcher) userID(k *Key) (string, bool) {
	if m.isID != 0 {
		return "", false
	}
	for _, uid := range k.uids {
		var ok bool
		switch {
		case m.email != "":
			ok = strings.EqualFold(emailOf(uid), m.email)
		case m.mailSub != "":
			ok = strings.Contains(strings.ToLower(emailOf(uid)), m.mailSub)
		case m.exact != "":
			ok = uid == m.exact
		default:
			ok = strings.Contains(strings.ToLower(uid), m.substr)
		}
		if ok {
			return uid, true
		}
	}
	return "", false
}

// emailOf returns the address between the first "<" and the ">" after
// it, as gpg's keybox search reads a user ID, or the whole user ID when
// it is a bare address. The first, not the last: "Eve <eve@example.org>
// <alice@example.org>" is Eve's address to gpg, and must not be Alice's
// here (an exact-address search would otherwise find Eve for Alice).
func emailOf(uid string) string {
	if i := strings.IndexByte(uid, '<'); i >= 0 {
		if j := strings.IndexByte(uid[i:], '>'); j > 0 {
			return uid[i+1 : i+j]
		}
	}
	if strings.Contains(uid, "@") && !strings.ContainsAny(uid, " <>") {
		return uid
	}
	return ""
}

// ErrNotFingerprint is returned (wrapped) by Delete and DeleteSecret for
// a specification that is not a full primary-key fingerprint.
// ErrHasSecret is returned (wrapped) by Delete for a public key whose
// secret part is in the ring, when it is not deleted too.
var ErrHasSecret = errors.New("there is a secret key for this public key")

type hasSecretError string

func (e hasSecretError) Error() string {
	return fmt.Sprintf("keyring: key %s has a secret part in the ring; delete the secret key too or first", string(e))
}
func (hasSecretError) Is(target error) bool { return target == ErrHasSecret }

var ErrNotFingerprint = errors.New("keys are deleted only by full fingerprint")

// byFingerprints resolves full fingerprints (40 or 64 hex digits,
// optional 0x, spaces allowed), each to its one key: a primary key's, or
// a subkey's, which names the whole key as in gpg. Deletion takes nothing
// else: gpg refuses any other specification in batch mode, and a pattern
// such as "example" could name every key in the ring. With secret, a key
// whose secret part only gpg-agent holds is one too.
func (r *Ring) byFingerprints(fprs []string, secret bool) ([]*Key, error) {
	if len(fprs) == 0 {
		return nil, fmt.Errorf("keyring: delete needs at least one fingerprint")
	}
	var out []*Key
	for _, f := range fprs {
		b, bang, ok := parseHexID(strings.TrimSpace(f))
		if !ok || bang || (len(b) != 20 && len(b) != 32) {
			return nil, fmt.Errorf("keyring: %q: %w", f, ErrNotFingerprint)
		}
		k := r.byFingerprint(strings.ToUpper(hex.EncodeToString(b)))
		if k == nil {
			k, _ = r.bySubkeyFingerprint(b)
		}
		if k == nil || (secret && k.sec == nil && !k.inAgent(true)) {
			return nil, noKey(f, secret)
		}
		out = append(out, k)
	}
	return out, nil
}

// Delete removes the keys with the given full fingerprints and returns
// how many it removed. Like gpg, it refuses to delete a public key whose
// secret part is in the ring or in gpg-agent unless secretToo is set,
// since that would strand the secret key; force is DeleteSecret's.
func (r *Ring) Delete(fingerprints []string, secretToo, force bool) (int, error) {
	n := 0
	err := r.update(publicFirst, func() (bool, error) {
		subs, fingerprints, err := r.deleteSubkeys(fingerprints, false)
		if n = subs; err != nil || len(fingerprints) == 0 {
			return n > 0 && err == nil, err
		}
		sel, err := r.byFingerprints(fingerprints, false)
		if err != nil {
			return false, err
		}
		drop := map[*Key]bool{}
		for _, k := range sel {
			if !r.writableInGnuPG(k) {
				return false, k.inGnuPGError("delete it with gpg --delete-keys")
			}
			if (k.sec != nil || k.inAgent(true)) && !secretToo {
				return false, hasSecretError(k.Fingerprint())
			}
			drop[k] = true
		}
		for k := range drop {
			if k.sec == nil && k.inAgent(true) {
				if err := k.agentDeleteSecret(force); err != nil {
					return false, err
				}
			}
		}
		var keep []*Key
		for _, k := range r.keys {
			if !drop[k] {
				keep = append(keep, k)
			}
		}
		r.keys = keep
		n += len(drop)
		return n > 0, nil
	})
	return n, err
}

// DeleteSecret removes only the secret part of the keys with the given
// full fingerprints, leaving their certificates in the public ring, and
// returns how many it removed. The secret parts gpg-agent holds it asks
// the agent to delete, as gpg does: with force, at once (gpg's --yes);
// without, the agent first asks its user through the pinentry.
func (r *Ring) DeleteSecret(fingerprints []string, force bool) (int, error) {
	n := 0
	err := r.update(publicFirst, func() (bool, error) {
		subs, fingerprints, err := r.deleteSubkeys(fingerprints, true)
		if n = subs; err != nil || len(fingerprints) == 0 {
			return n > 0 && err == nil, err
		}
		sel, err := r.byFingerprints(fingerprints, true)
		if err != nil {
			return false, err
		}
		changed := n > 0
		for _, k := range sel {
			if k.sec == nil { // held by gpg-agent (byFingerprints)
				if err := k.agentDeleteSecret(force); err != nil {
					return changed, err
				}
				n++
				continue
			}
			k.sec = nil
			if err := k.refresh(); err != nil {
				return false, err
			}
			n++
			changed = true
		}
		return changed, nil
	})
	return n, err
}

// uidRevoked is go-crypto's Identity.Revoked with gpg's rules where the
// two differ, both taking a revocation as one where go-crypto would not:
// a revocation made in the same second as the self-signature it meets
// revokes the user ID (gpg takes the later of the two in the key block,
// and a revocation follows the signature it revokes), where go-crypto
// wants the revocation strictly newer; and a revocation dated in the
// future (gpg dates it a second after the self-signature, so a user ID
// revoked right after it was made, as a script does, carries one) counts
// now, as in gpg, where go-crypto would wait for its date.
func uidRevoked(id *v2.Identity, sig *packet.Signature, now time.Time) bool {
	for _, r := range id.Revocations {
		if r.Packet != nil && r.Packet.CreationTime.After(now) {
			now = r.Packet.CreationTime
		}
	}
	if id.Revoked(sig, now, config) || sig == nil {
		return id.Revoked(sig, now, config)
	}
	earlier := *sig
	earlier.CreationTime = sig.CreationTime.Add(-time.Nanosecond)
	return id.Revoked(&earlier, now, config)
}
