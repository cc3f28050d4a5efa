package keyring

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	pgperrors "github.com/ProtonMail/go-crypto/openpgp/errors"
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/internal/escape"
	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// Recipient is a key to encrypt a message to.
type Recipient struct {
	Key *Key
	// Pub is the encryption-capable (sub)key that is valid now.
	Pub *packet.PublicKey
	// Version is the key version, 4 or 6.
	Version int
	// SEIPDv2 is set for v6 keys and for keys whose features subpacket
	// announces SEIPDv2 (0x08); such recipients can read RFC 9580 AEAD.
	SEIPDv2 bool
	// LibrePGPAEAD is set when the features subpacket has 0x02, GnuPG's
	// OCB packet (tag 20).
	LibrePGPAEAD bool
	// UserID is the user ID the recipient was named by; "" when named by
	// key ID or fingerprint. Its validity is the one gpg checks.
	UserID string
}

// Features is what the recipient announces, as filter's Format Auto
// reads it.
func (rc Recipient) Features() filter.Features {
	return filter.Features{SEIPDv2: rc.SEIPDv2, LibrePGPAEAD: rc.LibrePGPAEAD}
}

// ErrNoEncryptionKey is returned (wrapped) for a key that has no usable
// encryption-capable key: none flagged for encryption, or all revoked or
// expired.
var ErrNoEncryptionKey = errors.New("no usable encryption subkey")

// ErrBadPassphrase is returned (wrapped) by Unlock when the passphrase
// does not open the key.
var ErrBadPassphrase = errors.New("bad passphrase")

// Recipients resolves a recipient specification (see parsePattern) to the
// one key it names: a fingerprint (40 or 64 hex digits, optional 0x,
// spaces allowed), a key ID, "<mail>" or a bare address, "@part",
// "=uid", or any user ID substring (case-insensitive). A fingerprint or
// key ID ending in "!" names exactly that (sub)key. Among the matching
// keys only those with a usable encryption key count; if none has one,
// the error wraps ErrNoEncryptionKey, and if several have, ErrAmbiguous.
// The slice always holds one recipient.
func (r *Ring) Recipients(spec string) ([]Recipient, error) {
	m, err := parsePattern(spec)
	if err != nil {
		return nil, err
	}
	k, err := r.lookup(spec, false, func(k *Key) error {
		_, err := k.recipient(m)
		return err
	})
	if err != nil {
		return nil, err
	}
	rc, err := k.recipient(m)
	if err != nil {
		return nil, err
	}
	rc.UserID, _ = m.userID(k)
	return []Recipient{rc}, nil
}

// RecipientsFromFile reads certificates from a file, armored or binary,
// and returns one recipient per certificate, without touching any ring.
func RecipientsFromFile(path string) ([]Recipient, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("keyring: recipient file: %w", err)
	}
	defer f.Close()
	return RecipientsFrom(f, path)
}

// RecipientsFrom is RecipientsFromFile for certificates read from r
// (a descriptor the caller opened, say); name is what messages call it.
func RecipientsFrom(r io.Reader, name string) ([]Recipient, error) {
	path := name
	pkts, err := decodeKeyData(r)
	if err != nil {
		return nil, fmt.Errorf("keyring: recipient file %s: %w", path, err)
	}
	blocks, err := splitBlocks(pkts)
	if err != nil {
		return nil, fmt.Errorf("keyring: recipient file %s: %w", path, err)
	}
	if len(blocks) == 0 {
		return nil, fmt.Errorf("keyring: recipient file %s holds no certificate", path)
	}
	var out []Recipient
	for _, b := range blocks {
		if b.secret() {
			if b, err = publicBlock(b); err != nil {
				return nil, err
			}
		}
		// A -f key is not checked for validity: no one's
		// certifications are read.
		if err := filterSignatures(b, ImportOptions{SelfSigsOnly: true}); err != nil {
			return nil, fmt.Errorf("keyring: recipient file %s: %w", path, err)
		}
		k, err := (&Ring{}).newKey(b, nil)
		if err != nil {
			return nil, fmt.Errorf("keyring: recipient file %s: %w", path, err)
		}
		rc, err := k.recipient(matcher{})
		if err != nil {
			return nil, err
		}
		out = append(out, rc)
	}
	return out, nil
}

func (k *Key) recipient(m matcher) (Recipient, error) {
	now := clock.Now()
	var pub *packet.PublicKey
	if m.bang {
		p, err := k.exactEncryptionKey(m, now)
		if err != nil {
			return Recipient{}, err
		}
		pub = p
	} else {
		ek, err := k.ent.EncryptionKeyWithError(now, config)
		if err != nil {
			return Recipient{}, k.unusable(now, simplifyErr(err))
		}
		pub = ek.PublicKey
	}
	rc := Recipient{Key: k, Pub: pub, Version: k.ent.PrimaryKey.Version}
	f := k.features(now)
	rc.SEIPDv2 = rc.Version == 6 || f&0x08 != 0
	rc.LibrePGPAEAD = f&0x02 != 0
	return rc, nil
}

// unusable is gpg's "skipped: Unusable public key" for k, with why:
// revoked or expired (with the date), or what go-crypto found lacking.
// It wraps ErrUnusable and ErrNoEncryptionKey.
func (k *Key) unusable(now time.Time, cause error) error {
	ps := k.primaryState(now)
	why := cause.Error()
	switch {
	case ps.revoked && !ps.revokedAt.IsZero():
		why = "revoked on " + day(ps.revokedAt)
	case ps.revoked:
		why = "revoked"
	case ps.expired:
		why = "expired on " + day(ps.expires)
	}
	return fmt.Errorf("skipped: %w (key %s %q: %w: %s)", ErrUnusable, k.Fingerprint(), k.PrimaryUserID(), ErrNoEncryptionKey, why)
}

// simplifyErr unwraps go-crypto's selection error to its cause, which
// reads better in a message than its nested wording.
func simplifyErr(err error) error {
	var sel pgperrors.ErrEncryptionKeySelection
	var psel *pgperrors.ErrEncryptionKeySelection
	switch {
	case errors.As(err, &sel):
	case errors.As(err, &psel):
		sel = *psel
	default:
		return err
	}
	if sel.PrimaryKeyErr != nil {
		return sel.PrimaryKeyErr
	}
	if sel.EncSelectionErr != nil {
		return sel.EncSelectionErr
	}
	return err
}

// exactEncryptionKey handles "ID!": the named (sub)key itself, if it is
// valid now and may encrypt.
func (k *Key) exactEncryptionKey(m matcher, now time.Time) (*packet.PublicKey, error) {
	primarySig, err := k.ent.VerifyPrimaryKey(now, config)
	if err != nil {
		return nil, k.unusable(now, err)
	}
	if m.matchPub(k.ent.PrimaryKey) {
		if capsOf(primarySig, k.ent.PrimaryKey.PubKeyAlgo, true)&capEncrypt == 0 || !k.ent.PrimaryKey.PubKeyAlgo.CanEncrypt() {
			return nil, fmt.Errorf("keyring: primary key %s: %w (not flagged for encryption)", k.Fingerprint(), ErrNoEncryptionKey)
		}
		return k.ent.PrimaryKey, nil
	}
	for i := range k.ent.Subkeys {
		s := &k.ent.Subkeys[i]
		if !m.matchPub(s.PublicKey) {
			continue
		}
		sig, err := s.Verify(now, config)
		if err != nil {
			return nil, fmt.Errorf("skipped: %w (subkey %X: %w: %v)", ErrUnusable, s.PublicKey.Fingerprint, ErrNoEncryptionKey, err)
		}
		if capsOf(sig, s.PublicKey.PubKeyAlgo, false)&capEncrypt == 0 || !s.PublicKey.PubKeyAlgo.CanEncrypt() {
			return nil, fmt.Errorf("keyring: subkey %X: %w (not flagged for encryption)", s.PublicKey.Fingerprint, ErrNoEncryptionKey)
		}
		return s.PublicKey, nil
	}
	return nil, fmt.Errorf("keyring: key %s: %w", k.Fingerprint(), ErrNoKey)
}

// features returns the first octet of the key's features subpacket
// (RFC 9580 section 5.2.3.32), from the self-signature that carries the
// key's preferences, or from the direct-key signature if that one has it.
// go-crypto decodes only the RFC 9580 bits, so the octet is read from the
// hashed subpacket area directly, to see GnuPG's 0x02 as well.
func (k *Key) features(now time.Time) byte {
	var f byte
	if sig, err := k.ent.PrimarySelfSignature(now, config); err == nil {
		f |= featuresOf(sig)
	}
	if sig, err := k.ent.LatestValidDirectSignature(now, config); err == nil {
		f |= featuresOf(sig)
	}
	return f
}

func featuresOf(sig *packet.Signature) byte {
	if sig == nil {
		return 0
	}
	// HashSuffix begins with version, type, algorithms and the hashed
	// subpacket length (2 octets in v4, 4 in v6), then the subpackets.
	h := sig.HashSuffix
	var area []byte
	switch {
	case sig.Version == 6 && len(h) >= 8:
		n := int(uint32(h[4])<<24 | uint32(h[5])<<16 | uint32(h[6])<<8 | uint32(h[7]))
		if n <= len(h)-8 {
			area = h[8 : 8+n]
		}
	case sig.Version == 4 && len(h) >= 6:
		n := int(h[4])<<8 | int(h[5])
		if n <= len(h)-6 {
			area = h[6 : 6+n]
		}
	}
	sps, _ := pgppacket.Subpackets(area)
	for _, sp := range sps {
		if sp.Type == 30 && len(sp.Data) > 0 { // features
			return sp.Data[0]
		}
	}
	return 0
}

// DecryptionKeys returns the secret keys that may decrypt a message whose
// PKESK names keyID; keyID 0 (an anonymous recipient) returns every one.
// Encryption subkeys are included, and the primary key when it may
// encrypt. Time is not checked: an expired or revoked key must still open
// the messages sent to it before. Keys come back as stored, possibly
// locked; see Unlock. Stubs without secret material are left out. The
// SHA-1 policy does not apply: it decides what may be encrypted to, not
// what the owner of a secret key may open.
func (r *Ring) DecryptionKeys(keyID uint64) []*packet.PrivateKey {
	var out []*packet.PrivateKey
	for _, k := range r.keys {
		out = append(out, k.DecryptionKeys(keyID)...)
	}
	return out
}

// DecryptionKeysByFingerprint is DecryptionKeys for a v6 PKESK, which
// names the recipient by fingerprint rather than key ID.
func (r *Ring) DecryptionKeysByFingerprint(fpr []byte) []*packet.PrivateKey {
	if len(fpr) < 8 {
		return nil
	}
	id := pgppacket.KeyIDOf(fpr)
	var out []*packet.PrivateKey
	for _, p := range r.DecryptionKeys(id) {
		if bytes.Equal(p.Fingerprint, fpr) {
			out = append(out, p)
		}
	}
	return out
}

// Unlock decrypts a secret key's material in place with passphrase. It does
// nothing for a key that is not locked, so calling it twice is harmless.
func Unlock(priv *packet.PrivateKey, passphrase []byte) error {
	if priv == nil {
		return fmt.Errorf("keyring: unlock: no key")
	}
	if priv.Dummy() {
		return fmt.Errorf("keyring: key %X is a stub without secret material", priv.Fingerprint)
	}
	if !priv.Encrypted {
		return nil
	}
	if err := checkUnlockCost(priv); err != nil {
		return err
	}
	if err := priv.Decrypt(passphrase); err != nil {
		// go-crypto says "checksum failure" or reports an AEAD
		// failure; both mean the passphrase is wrong (or the key
		// corrupt, which the user cannot tell apart).
		return fmt.Errorf("keyring: unlocking key %X: %w (%v)", priv.Fingerprint, ErrBadPassphrase, err)
	}
	return nil
}

// KeyID is the ID of the (sub)key a message is encrypted to: gpg names a
// recipient by it in its messages about the recipient's validity.
func (rc Recipient) KeyID() string { return fmt.Sprintf("%016X", rc.Pub.KeyId) }

// Summary is what gpg shows of a recipient before asking whether to use a
// key it cannot vouch for: the encryption key's line (algorithm, key ID,
// creation day, primary user ID), then the primary key's fingerprint and
// the subkey's, grouped as gpg groups them.
func (rc Recipient) Summary() string {
	typ := "sub"
	if rc.Pub.KeyId == rc.Key.KeyID() {
		typ = "pub"
	}
	algo, _ := algoName(rc.Pub)
	s := fmt.Sprintf("%s  %s/%s %s %s\n", typ, algo, rc.KeyID(), day(rc.Pub.CreationTime), escape.Human(rc.Key.PrimaryUserID()))
	s += " Primary key fingerprint: " + groupedFingerprint(rc.Key.ent.PrimaryKey.Fingerprint) + "\n"
	if typ == "sub" {
		s += "      Subkey fingerprint: " + groupedFingerprint(rc.Pub.Fingerprint) + "\n"
	}
	return s
}

// groupedFingerprint spells a v4 fingerprint as gpg prints it for people:
// ten groups of four hex digits, two spaces in the middle. A longer (v6)
// fingerprint is printed whole.
func groupedFingerprint(fpr []byte) string {
	h := fmt.Sprintf("%X", fpr)
	if len(h) != 40 {
		return h
	}
	var b strings.Builder
	for i := 0; i < len(h); i += 4 {
		switch i {
		case 0:
		case 20:
			b.WriteString("  ")
		default:
			b.WriteByte(' ')
		}
		b.WriteString(h[i : i+4])
	}
	return b.String()
}
