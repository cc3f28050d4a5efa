package keyring

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"

	"github.com/pgpstream/pgpstream/clock"
)

// Keys outside any ring: the work of a caller that holds keys and
// certificates in files, as the Stateless OpenPGP CLI does. Each function
// takes keys read with ReadKeys (or made by MakeKey) and returns new
// ones; nothing here reads or writes a home.

// MakeOptions says what key MakeKey makes.
type MakeOptions struct {
	// UserIDs are bound to the key exactly as given, any UTF-8 text;
	// the first is the primary user ID. A v6 key may have none.
	UserIDs []string
	// Algo and V6 are as in GenOptions.
	Algo string
	V6   bool
	// Passphrase protects the secret keys; nil leaves them unprotected.
	Passphrase []byte
	// SigningOnly leaves out the encryption subkey.
	SigningOnly bool
}

// ErrV4NeedsUserID is returned (wrapped) by MakeKey for a v4 key without
// a user ID.
var ErrV4NeedsUserID = errors.New("a v4 key needs a user ID")

// MakeKey makes a new key pair, as Ring.Generate makes it, without a ring.
func MakeKey(opt MakeOptions) (*Key, error) {
	cfg, err := genConfig(GenOptions{Algo: opt.Algo, V6: opt.V6})
	if err != nil {
		return nil, err
	}
	// go-crypto writes a v4 key's properties (flags, preferences,
	// features) into its first user ID's self-signature and builds user
	// IDs from name, comment and address only: the key is made with a
	// stand-in user ID whose self-signature is the template for the
	// real ones, then the stand-in is dropped.
	e, err := v2.NewEntity("stand-in", "", "", cfg)
	if err != nil {
		return nil, fmt.Errorf("keyring: generating %s key: %w", opt.Algo, err)
	}
	tmpl := e.Identities["stand-in"].SelfCertifications[0].Packet
	e.Identities = map[string]*v2.Identity{}
	if opt.SigningOnly {
		e.Subkeys = nil
	}
	ed := &editor{priv: e.PrivateKey, now: cfg.Now().Truncate(time.Second)}
	uids := uniqueUserIDs(opt.UserIDs)
	if len(uids) == 0 && !opt.V6 {
		// go-crypto reads no v4 key without a user ID (RFC 4880
		// section 11.1 wanted one), so neither would pgpstream.
		return nil, fmt.Errorf("keyring: %w", ErrV4NeedsUserID)
	}
	if err := bindUserIDs(e, ed, tmpl, uids); err != nil {
		return nil, err
	}
	if opt.Passphrase != nil {
		if err := e.EncryptPrivateKeys(opt.Passphrase, lockConfig(opt.V6)); err != nil {
			return nil, fmt.Errorf("keyring: protecting new key: %w", err)
		}
	}
	return keyOfEntity(e, uids)
}

func uniqueUserIDs(uids []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, u := range uids {
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// bindUserIDs self-signs each user ID with what tmpl says about the key.
func bindUserIDs(e *v2.Entity, ed *editor, tmpl *packet.Signature, uids []string) error {
	for i, uid := range uids {
		s := ed.renewSig(tmpl)
		primary := i == 0
		s.IsPrimaryId = &primary
		if err := s.SignUserId(uid, e.PrimaryKey, e.PrivateKey, ed.config()); err != nil {
			return fmt.Errorf("keyring: signing user ID %q: %w", uid, err)
		}
		e.Identities[uid] = &v2.Identity{
			Primary:            e,
			Name:               uid,
			UserId:             &packet.UserId{Id: uid},
			SelfCertifications: []*packet.VerifiableSignature{packet.NewVerifiableSig(s)},
		}
	}
	return nil
}

// keyOfEntity serializes a new key and reads it back as a Key, its user
// IDs in the order given (go-crypto keeps them in a map).
func keyOfEntity(e *v2.Entity, uids []string) (*Key, error) {
	var buf bytes.Buffer
	if err := e.SerializePrivateWithoutSigning(&buf, nil); err != nil {
		return nil, fmt.Errorf("keyring: serializing new key: %w", err)
	}
	pkts, err := splitPackets(buf.Bytes())
	if err != nil {
		return nil, err
	}
	blocks, err := splitBlocks(pkts)
	if err != nil || len(blocks) != 1 {
		return nil, fmt.Errorf("keyring: new key did not serialize as one key block (%v)", err)
	}
	sec := blocks[0]
	byID := map[string]component{}
	for _, c := range sec.uids {
		byID[string(c.pkt.body)] = c
	}
	sec.uids = sec.uids[:0]
	for _, u := range uids {
		sec.uids = append(sec.uids, byID[u])
	}
	pub, err := publicBlock(sec)
	if err != nil {
		return nil, err
	}
	return (&Ring{}).newKey(pub, sec)
}

// WriteKeys writes keys as transferable secret keys (secret) or as
// certificates, binary or in one armor block. A key without its secret
// part cannot be written as a secret key.
func WriteKeys(w io.Writer, keys []*Key, secret, armored bool) error {
	var blocks []*block
	for _, k := range keys {
		b := k.pub
		if secret {
			if k.sec == nil {
				return fmt.Errorf("keyring: key %s: %w", k.Fingerprint(), ErrNoSecretKey)
			}
			var err error
			if b, err = k.secretExportBlock(); err != nil {
				return err
			}
		}
		blocks = append(blocks, b)
	}
	return writeBlocks(w, blocks, secret, armored)
}

// UnlockAny opens priv with the first of passphrases that does. A key
// that is not protected needs none; for one that is, the error wraps
// ErrBadPassphrase when none opens it (or none was given).
func UnlockAny(priv *packet.PrivateKey, passphrases [][]byte) error {
	if !priv.Encrypted {
		return nil
	}
	var errs []error
	for _, p := range passphrases {
		err := Unlock(priv, p)
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrBadPassphrase) {
			return err
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return fmt.Errorf("keyring: key %X is protected by a passphrase and none was given: %w", priv.Fingerprint, ErrBadPassphrase)
	}
	return fmt.Errorf("keyring: key %X: no passphrase given opens it: %w", priv.Fingerprint, ErrBadPassphrase)
}

// Reprotect returns k with every secret (sub)key opened with one of
// oldPass and protected with newPass, or left unprotected when newPass is
// empty. The certificate stays byte for byte as it was.
func (k *Key) Reprotect(oldPass [][]byte, newPass []byte) (*Key, error) {
	if k.sec == nil {
		return nil, fmt.Errorf("keyring: key %s: %w", k.Fingerprint(), ErrNoSecretKey)
	}
	ns, err := reprotect(k.sec, func(priv *packet.PrivateKey) error { return UnlockAny(priv, oldPass) }, newPass)
	if err != nil {
		return nil, fmt.Errorf("keyring: key %s: %w", k.Fingerprint(), err)
	}
	return (&Ring{}).newKey(k.pub, ns)
}

// Revoke returns k with a key revocation signature ("no reason
// specified", which RFC 9580 section 5.2.3.31 treats as a hard
// revocation) made by its primary key, opened with one of passphrases.
func (k *Key) Revoke(passphrases [][]byte) (*Key, error) {
	if k.sec == nil {
		return nil, fmt.Errorf("keyring: key %s: %w", k.Fingerprint(), ErrNoSecretKey)
	}
	ed, err := openEditor(k, func(priv *packet.PrivateKey) ([]byte, error) {
		return nil, UnlockAny(priv, passphrases)
	})
	if err != nil {
		return nil, err
	}
	rev, err := ed.revocation(packet.NoReason, "")
	if err != nil {
		return nil, err
	}
	p, err := splitPackets(rev)
	if err != nil || len(p) != 1 {
		return nil, fmt.Errorf("keyring: the revocation did not frame as one packet (%v)", err)
	}
	ed.addPrimarySig(p[0])
	nk := *k
	ed.k = &nk
	if _, err := ed.commit(&Ring{}); err != nil {
		return nil, err
	}
	return &nk, nil
}

// DecryptionKeys returns the secret (sub)keys of k that may decrypt a
// message whose PKESK names keyID, all of them for keyID 0, with the
// rules of Ring.DecryptionKeys.
func (k *Key) DecryptionKeys(keyID uint64) []*packet.PrivateKey {
	if !k.HasSecret() {
		return nil
	}
	var out []*packet.PrivateKey
	for _, dk := range k.whole.DecryptionKeys(keyID, time.Time{}, config) {
		priv := k.PrivateKey(dk.PublicKey.Fingerprint)
		if priv == nil || priv.Dummy() {
			continue
		}
		out = append(out, priv)
	}
	return out
}

// Recipient is k as a recipient: its encryption (sub)key that is valid
// now and what it announces it reads. The error wraps ErrNoEncryptionKey
// when k has none.
func (k *Key) Recipient() (Recipient, error) { return k.recipient(matcher{}) }

// SignerKeys returns the primary key or subkeys of k with this key ID
// (and this fingerprint, when fpr is not nil) that were valid signing
// keys at t. A key revoked since is not returned.
func (k *Key) SignerKeys(keyID uint64, fpr []byte, t time.Time) []*packet.PublicKey {
	if keyID == 0 && fpr == nil {
		return nil
	}
	cands := []*packet.PublicKey{k.ent.PrimaryKey}
	for _, s := range k.ent.Subkeys {
		cands = append(cands, s.PublicKey)
	}
	var out []*packet.PublicKey
	for _, pk := range cands {
		if keyID != 0 && pk.KeyId != keyID || fpr != nil && !bytes.Equal(pk.Fingerprint, fpr) {
			continue
		}
		if k.RevokedSigner(pk, clock.Now()) {
			continue
		}
		if sk, ok := k.ent.SigningKeyById(t, pk.KeyId, config); ok && sk.PublicKey == pk {
			out = append(out, pk)
		}
	}
	return out
}
