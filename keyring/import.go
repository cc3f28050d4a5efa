package keyring

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	pgperrors "github.com/ProtonMail/go-crypto/openpgp/errors"
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/armor"
	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// ImportStats counts what Import did, in the categories gpg reports.
type ImportStats struct {
	Processed       int // key blocks read
	Imported        int // new certificates
	Unchanged       int // known certificates that gained nothing
	NewSubkeys      int
	NewUserIDs      int
	NewSigs         int
	SecretRead      int // secret key blocks read
	SecretImported  int // secret keys new to the ring (or newly holding secret material)
	SecretUnchanged int
	Skipped         int // blocks refused; Import's error says why
	// NoUserID counts new keys skipped because no user ID of theirs has a
	// valid self-signature. gpg skips them with a note and no error, and
	// so does Import: they are listed in Notes, not in its error.
	NoUserID    int
	Notes       []string
	Revocations int // key revocations new to the ring
	// Keys says what happened to each key imported, in input order.
	Keys []ImportedKey
}

// Add adds the counts of o, one more input's import, to s: what gpg's
// IMPORT_RES and summary report for a whole command. Notes and Keys are
// each input's own and are not gathered.
func (s *ImportStats) Add(o ImportStats) {
	s.Processed += o.Processed
	s.Imported += o.Imported
	s.Unchanged += o.Unchanged
	s.NewSubkeys += o.NewSubkeys
	s.NewUserIDs += o.NewUserIDs
	s.NewSigs += o.NewSigs
	s.SecretRead += o.SecretRead
	s.SecretImported += o.SecretImported
	s.SecretUnchanged += o.SecretUnchanged
	s.Skipped += o.Skipped
	s.NoUserID += o.NoUserID
	s.Revocations += o.Revocations
}

// ImportedKey is one key Import took in, for gpg's IMPORT_OK and IMPORTED
// status lines.
type ImportedKey struct {
	Fingerprint string // primary key, upper-case hex
	KeyID       uint64
	UserID      string // primary user ID
	// Flags are IMPORT_OK's reasons: 1 a new key, 2 new user IDs, 4 new
	// signatures, 8 new subkeys, 16 a secret key; 0 nothing changed.
	Flags int
	// NewUserIDs, NewSigs and NewSubkeys count what the key gained.
	NewUserIDs, NewSigs, NewSubkeys int
	// Secret is set when the block held a secret key, new or not.
	Secret bool
	// Key is the key as the ring now holds it.
	Key *Key
	// AcceptedUnsigned are the block's user IDs that have no valid
	// self-signature and were taken as if self-signed, in block order
	// (Options.AllowNonSelfSignedUID; gpg's note "accepted non
	// self-signed user ID" for each).
	AcceptedUnsigned []string
}

const (
	publicKeyBlock  = armor.PublicKey
	privateKeyBlock = armor.PrivateKey
)

var armorStart = []byte("-----BEGIN PGP ")

// indexArmor returns where the first armor header line starts in data,
// or -1. The header must begin a line: gpg's revocation files put a
// colon before it so that they are not imported by accident.
func indexArmor(data []byte) int {
	for off := 0; ; {
		i := bytes.Index(data[off:], armorStart)
		if i < 0 {
			return -1
		}
		if off+i == 0 || data[off+i-1] == '\n' {
			return off + i
		}
		off += i + len(armorStart)
	}
}

// decodeKeyData returns the packets of rd: every armored key block in it
// when it contains armor, else the bytes themselves.
func decodeKeyData(rd io.Reader) ([]rawPacket, error) {
	data, err := readAll(rd)
	if err != nil {
		return nil, fmt.Errorf("keyring: reading keys: %w", err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("keyring: no key data (empty input)")
	}
	if isKeybox(data) {
		return keyboxPackets(data)
	}
	if indexArmor(data) < 0 {
		if data[0]&0x80 == 0 {
			return nil, fmt.Errorf("%w: input is neither armored (no \"-----BEGIN PGP\" line) nor binary OpenPGP (first byte 0x%02x)", ErrMalformed, data[0])
		}
		return splitPackets(data)
	}
	var pkts []rawPacket
	var other []string
	// One buffered reader under every block, so each NewReader starts
	// where the last block's END line left it.
	br := bufio.NewReaderSize(bytes.NewReader(data), armor.BufSize)
	for {
		blk, err := armor.NewReader(br)
		if errors.Is(err, armor.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("keyring: decoding armor: %w", err)
		}
		body, err := readAll(blk)
		if err != nil {
			return nil, fmt.Errorf("keyring: decoding armored %s: %w", blk.Type(), err)
		}
		if typ := blk.Type(); typ != publicKeyBlock && typ != privateKeyBlock {
			other = append(other, typ)
			continue
		}
		p, err := splitPackets(body)
		if err != nil {
			return nil, err
		}
		pkts = append(pkts, p...)
	}
	if len(pkts) == 0 {
		return nil, fmt.Errorf("keyring: no armored key block in input (found %q); expected %q or %q", other, publicKeyBlock, privateKeyBlock)
	}
	return pkts, nil
}

// Import reads keys from rd, armored or binary, any number of them, and
// merges them into the ring: a known certificate gains the user IDs,
// subkeys and signatures it lacked. Secret keys go to the secret ring and
// their public part to the public ring. Blocks that cannot be read are
// skipped and reported in the returned error; the others are still
// imported. Certifications by other keys are kept, within bounds (see
// certs.go); ImportWith says otherwise.
func (r *Ring) Import(rd io.Reader) (ImportStats, error) { return r.ImportWith(rd, ImportOptions{}) }

// ImportWith is Import with opt's rule for the signatures of other keys.
func (r *Ring) ImportWith(rd io.Reader, opt ImportOptions) (ImportStats, error) {
	var st ImportStats
	pkts, err := decodeKeyData(rd)
	if err != nil {
		return st, err
	}
	revs, pkts := leadingSignatures(pkts)
	blocks, err := splitBlocks(pkts)
	if err != nil {
		return st, err
	}
	if opt.Named != "" || opt.Address != "" {
		// Served data: only the keys asked for, no loose revocations.
		revs = nil
		if blocks, err = servedFilter(blocks, opt); err != nil {
			return st, err
		}
	}
	var errs []error
	err = r.update(secretFirst, func() (bool, error) {
		st, errs = ImportStats{}, nil
		changed := false
		for _, rev := range revs {
			st.Processed++
			c, err := r.importRevocation(rev, &st)
			if err != nil {
				st.Skipped++
				errs = append(errs, err)
				continue
			}
			changed = changed || c
		}
		for _, b := range blocks {
			st.Processed++
			if b.secret() {
				st.SecretRead++
			}
			before := st
			accepted := r.acceptedUnsigned(b)
			c, err := r.importBlock(b.clone(), &st, opt)
			if errors.Is(err, errNoUserID) {
				st.NoUserID++
				st.Notes = append(st.Notes, err.Error())
				if b.secret() {
					// gpg then fails to find the public key the
					// secret one belongs to, and exits 2.
					var nu *noUserIDError
					errors.As(err, &nu)
					errs = append(errs, fmt.Errorf("key %016X: %w", nu.keyID, errSecretWithoutPublic))
				}
				continue
			}
			if err != nil {
				st.Skipped++
				errs = append(errs, err)
				continue
			}
			changed = changed || c
			ik := r.importedKey(b, before, st)
			ik.AcceptedUnsigned = accepted
			st.Keys = append(st.Keys, ik)
		}
		return changed, nil
	})
	if err != nil {
		// The ring was not written: nothing was imported.
		return ImportStats{Notes: st.Notes}, err
	}
	var changed []string
	for _, ik := range st.Keys {
		if ik.Flags&^16 != 0 {
			changed = append(changed, ik.Fingerprint)
		}
	}
	r.tofuKeyChanged(changed)
	return st, errors.Join(errs...)
}

// errNoUserID is gpg's note for a new key none of whose user IDs has a
// valid self-signature.
var errNoUserID = errors.New("new key but contains no user ID - skipped")

// noUserIDError is errNoUserID for one key.
type noUserIDError struct{ keyID uint64 }

func (e *noUserIDError) Error() string        { return fmt.Sprintf("key %016X: %v", e.keyID, errNoUserID) }
func (e *noUserIDError) Is(target error) bool { return target == errNoUserID }

// errSecretWithoutPublic is why a secret key is not imported when the
// public key it belongs to was skipped.
var errSecretWithoutPublic = errors.New("secret key not imported: its public key was skipped")

// noIdentity reports whether err is go-crypto's refusal of a certificate
// that has no user ID left once invalid self-signatures are dropped.
func noIdentity(err error) bool {
	var se pgperrors.StructuralError
	return errors.As(err, &se) && strings.Contains(string(se), "without any identities")
}

// hasSelfSignedUserID reports whether a user ID of k has a valid
// self-signature (revoked or not), which gpg requires of a new v4 key.
// A v6 key may stand without one (RFC 9580 section 10.1.1). The
// signatures pgpstream's policy sets aside (SHA-1 after its cut-off) still
// count here: the key is kept, and --allow-weak-key-signatures shows it.
func hasSelfSignedUserID(k *Key) bool {
	if k.whole.PrimaryKey.Version != 4 {
		return true
	}
	for _, id := range k.whole.Identities {
		if _, err := id.LatestValidSelfCertification(time.Time{}, config); err == nil {
			return true
		}
	}
	return false
}

// acceptedUnsigned returns the user IDs of b that the ring's
// AllowNonSelfSignedUID takes without a valid self-signature, in block
// order; nil without it.
func (r *Ring) acceptedUnsigned(b *block) []string {
	if !r.opt.AllowNonSelfSignedUID {
		return nil
	}
	pub := b
	if b.secret() {
		var err error
		if pub, err = publicBlock(b); err != nil {
			return nil
		}
	}
	own := ownView(pub)
	_, accepted, err := readEntity(policyView(own, r.opt.AllowWeakKeySignatures), true)
	if err != nil {
		return nil
	}
	var out []string
	for _, u := range pub.uids {
		if name := string(u.pkt.body); u.pkt.tag == tagUserID && accepted[name] {
			out = append(out, name)
			delete(accepted, name) // once each, as the ring holds it
		}
	}
	return out
}

// importBlock merges one transferable key into the ring and reports
// whether the ring changed.
func (r *Ring) importBlock(b *block, st *ImportStats, opt ImportOptions) (bool, error) {
	fp, err := fingerprintOf(b.primary.pkt)
	if err != nil {
		return false, err
	}
	if err := filterSignatures(b, opt); err != nil {
		return false, err
	}
	if _, err := r.boundCerts(b, fp, st); err != nil {
		return false, err
	}
	if err := checkBounds(b); err != nil {
		return false, fmt.Errorf("keyring: key %X skipped: %w", fp, err)
	}
	if b.secret() {
		if err := checkSecretS2K(b); err != nil {
			return false, fmt.Errorf("keyring: key %X skipped: %w", fp, err)
		}
	}
	pub := b
	if b.secret() {
		if pub, err = publicBlock(b); err != nil {
			return false, err
		}
	}
	// Parse before touching the ring, so a key go-crypto cannot read is
	// refused whole instead of half-merged.
	cand, err := r.newKey(pub.clone(), nil)
	k := r.byFingerprint(fmt.Sprintf("%X", fp))
	if k == nil &&
		((err != nil && noIdentity(err)) || (err == nil && !hasSelfSignedUserID(cand))) {
		return false, &noUserIDError{pgppacket.KeyIDOf(fp)}
	}
	// A key the ring has may come without a user ID (gpg, since 2.2.17,
	// merges such a block into the key it has): what counts is that the
	// merged key parses, checked below. A secret key PGP exported, with
	// no signature at all, merges so into its certificate.
	if err != nil && !(k != nil && noIdentity(err)) {
		return false, fmt.Errorf("keyring: key %X skipped: %w", fp, err)
	}
	if k == nil {
		// A new key's primary user ID is stored first, as gpg's import
		// stores it; listings and --edit-key's numbers follow ring order.
		if primaryFirst(pub, cand.PrimaryUserID()) {
			if b.secret() {
				primaryFirst(b, cand.PrimaryUserID())
			}
			if cand, err = r.newKey(pub.clone(), nil); err != nil {
				return false, fmt.Errorf("keyring: key %X skipped: %w", fp, err)
			}
		}
		k = cand
		if b.secret() {
			k.sec = b.clone()
			st.SecretImported++
			if err := k.refresh(); err != nil {
				return false, fmt.Errorf("keyring: key %s skipped: %w", k.Fingerprint(), err)
			}
		}
		insertOrigin(k.pub, opt.Origin, now32())
		r.keys = append(r.keys, k)
		st.Imported++
		return true, nil
	}
	// Merge into copies and swap them in only once they parse, so a
	// failure leaves the known key as it was.
	np := k.pub.clone()
	m, err := merge(np, pub)
	if err != nil {
		return false, err
	}
	// At their bound, certifications a merge brought may be dropped
	// again: what is new is what the bounded result has and the stored
	// key had not.
	if dropped, err := r.boundCerts(np, fp, st); err != nil {
		return false, err
	} else if dropped > 0 {
		m.sigs = newSignatures(k.pub, np)
	}
	st.NewUserIDs += m.uids
	st.NewSubkeys += m.subs
	st.NewSigs += m.sigs
	if m.uids+m.subs+m.sigs > 0 {
		// What the import brought is recorded where it came from; user
		// IDs the ring had keep their record (GnuPG's merge_blocks).
		now := now32()
		for i := range np.uids {
			if !hasComponent(k.pub.uids, np.uids[i].pkt) {
				insertUIDOrigin(&np.uids[i], opt.Origin, now)
			}
		}
		updateOrigin(np, opt.Origin, now)
	}
	changed := m.changed()
	if !changed {
		st.Unchanged++
	}
	ns := k.sec
	if b.secret() {
		if ns == nil {
			ns = b.clone()
			st.SecretImported++
			changed = true
		} else {
			ns = ns.clone()
			sm, err := merge(ns, b)
			if err != nil {
				return false, err
			}
			if sm.secret {
				st.SecretImported++
			} else {
				st.SecretUnchanged++
			}
			changed = changed || sm.changed()
		}
	}
	if !changed {
		return false, nil
	}
	if err := checkBounds(np); err != nil {
		return false, fmt.Errorf("keyring: key %s skipped: %w", k.Fingerprint(), err)
	}
	nk, err := r.newKey(np, ns)
	if err != nil {
		return false, fmt.Errorf("keyring: key %s after merge: %w", k.Fingerprint(), err)
	}
	*k = *nk
	return true, nil
}

// hasComponent reports whether cs has a component of packet p.
func hasComponent(cs []component, p rawPacket) bool {
	for _, c := range cs {
		if c.pkt.equal(p) {
			return true
		}
	}
	return false
}

// primaryFirst moves the user ID uid to the front of b's user IDs and
// reports whether it moved.
func primaryFirst(b *block, uid string) bool {
	for i, u := range b.uids {
		if u.pkt.tag == tagUserID && string(u.pkt.body) == uid {
			if i == 0 {
				return false
			}
			c := b.uids[i]
			copy(b.uids[1:i+1], b.uids[:i])
			b.uids[0] = c
			return true
		}
	}
	return false
}

// newSignatures counts the signatures of now that old lacks.
func newSignatures(old, now *block) int {
	had := map[string]bool{}
	for _, c := range old.components() {
		for _, s := range c.sigs {
			had[string(s.body)] = true
		}
	}
	n := 0
	for _, c := range now.components() {
		for _, s := range c.sigs {
			if !had[string(s.body)] {
				n++
			}
		}
	}
	return n
}

// boundCerts keeps b's certifications by other keys within their bounds
// (certs.go), those by the ring's keys first, and notes what it dropped.
func (r *Ring) boundCerts(b *block, fp []byte, st *ImportStats) (int, error) {
	n, err := boundCertifications(b, r.isIssuer)
	if err != nil || n == 0 {
		return n, err
	}
	st.Notes = append(st.Notes, fmt.Sprintf("key %016X: %d signatures by other keys not kept (at most %d per key)", pgppacket.KeyIDOf(fp), n, maxCertifications))
	return n, nil
}

// isIssuer reports whether s was made by one of the ring's primary keys.
func (r *Ring) isIssuer(s *pgppacket.Signature) bool {
	for _, k := range r.keys {
		pk := k.ent.PrimaryKey
		if s.IssuerFingerprint != nil && bytes.Equal(s.IssuerFingerprint, pk.Fingerprint) || s.IssuerKeyID == pk.KeyId {
			return true
		}
	}
	return false
}

func (r *Ring) byFingerprint(fpr string) *Key {
	for _, k := range r.keys {
		if k.Fingerprint() == fpr {
			return k
		}
	}
	return nil
}

// leadingSignatures splits off the signature packets that stand before
// the first key packet: a revocation certificate is a key revocation
// signature alone (RFC 9580 section 5.2.1.11), with no key before it.
func leadingSignatures(pkts []rawPacket) (sigs, rest []rawPacket) {
	for i, p := range pkts {
		switch p.tag {
		case tagSignature:
			sigs = append(sigs, p)
		case tagTrust, tagMarker, tagPadding:
		default:
			return sigs, pkts[i:]
		}
	}
	return sigs, nil
}

// importRevocation adds a revocation certificate to the key it revokes,
// once it verifies against that key's primary key.
func (r *Ring) importRevocation(p rawPacket, st *ImportStats) (bool, error) {
	var buf bytes.Buffer
	p.writeTo(&buf)
	pk, err := packet.Read(&buf)
	if err != nil {
		return false, fmt.Errorf("%w: reading a signature before any key: %v", ErrMalformed, err)
	}
	sig, ok := pk.(*packet.Signature)
	if !ok {
		return false, fmt.Errorf("%w: packet tag %d before any key", ErrMalformed, p.tag)
	}
	if sig.SigType != packet.SigTypeKeyRevocation {
		return false, fmt.Errorf("%w: a signature (type 0x%02x) stands before any key; only a key revocation certificate may", ErrMalformed, byte(sig.SigType))
	}
	var k *Key
	for _, c := range r.keys {
		if sig.CheckKeyIdOrFingerprint(c.ent.PrimaryKey) {
			k = c
			break
		}
	}
	if k == nil {
		id := uint64(0)
		if sig.IssuerKeyId != nil {
			id = *sig.IssuerKeyId
		}
		return false, fmt.Errorf("keyring: revocation certificate for key %016X: no such key in the ring; import the key first", id)
	}
	if err := k.ent.PrimaryKey.VerifyRevocationSignature(sig); err != nil {
		return false, fmt.Errorf("keyring: revocation certificate for key %s does not verify: %w", k.Fingerprint(), err)
	}
	for _, have := range k.pub.primary.sigs {
		if have.equal(p) {
			st.Unchanged++
			return false, nil
		}
	}
	np := k.pub.clone()
	np.primary.sigs = append(np.primary.sigs, p)
	nk, err := r.newKey(np, k.sec)
	if err != nil {
		return false, fmt.Errorf("keyring: key %s with its revocation: %w", k.Fingerprint(), err)
	}
	*k = *nk
	st.Revocations++
	return true, nil
}

// importedKey describes what importing b did, from the counts before and
// after it.
func (r *Ring) importedKey(b *block, before, after ImportStats) ImportedKey {
	var ik ImportedKey
	if fp, err := fingerprintOf(b.primary.pkt); err == nil {
		ik.Fingerprint = fmt.Sprintf("%X", fp)
	}
	if k := r.byFingerprint(ik.Fingerprint); k != nil {
		ik.KeyID, ik.UserID, ik.Key = k.KeyID(), k.PrimaryUserID(), k
	}
	ik.Secret = b.secret()
	ik.NewUserIDs = after.NewUserIDs - before.NewUserIDs
	ik.NewSigs = after.NewSigs - before.NewSigs
	ik.NewSubkeys = after.NewSubkeys - before.NewSubkeys
	for _, f := range []struct {
		grew bool
		bit  int
	}{
		{after.Imported > before.Imported, 1},
		{after.NewUserIDs > before.NewUserIDs, 2},
		{after.NewSigs > before.NewSigs, 4},
		{after.NewSubkeys > before.NewSubkeys, 8},
		{after.SecretImported > before.SecretImported, 16},
	} {
		if f.grew {
			ik.Flags |= f.bit
		}
	}
	return ik
}
