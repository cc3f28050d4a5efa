package keyring

import (
	"bytes"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/filter"
	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// What decryption and verification ask of the keys: the ring (and a
// stateless Key) answers filter's questions itself, so every caller
// chooses the same keys.

// SecretKeysFor returns the secret keys of the ring that may open p: for
// a wildcard PKESK (an anonymous recipient) every decryption key, else
// those p names, by key ID (v3) or fingerprint (v6). The rules are
// DecryptionKeys': time is not checked, stubs are left out, keys come
// back as stored, possibly locked.
func (r *Ring) SecretKeysFor(p *pgppacket.PKESK) []*packet.PrivateKey {
	var out []*packet.PrivateKey
	for _, k := range r.keys {
		out = append(out, k.SecretKeysFor(p)...)
	}
	return out
}

// SecretKeysFor is Ring.SecretKeysFor for k's keys alone.
func (k *Key) SecretKeysFor(p *pgppacket.PKESK) []*packet.PrivateKey {
	id := p.KeyID
	switch {
	case p.Wildcard():
		id = 0
	case p.Version == 6:
		if len(p.Fingerprint) < 8 {
			return nil
		}
		id = pgppacket.KeyIDOf(p.Fingerprint)
	}
	var out []*packet.PrivateKey
	for _, priv := range k.DecryptionKeys(id) {
		if p.Wildcard() || p.Matches(priv) {
			out = append(out, priv)
		}
	}
	return out
}

// SignerKeys implements filter.SignerKeys: the primary keys and subkeys
// of the ring with the issuer's key ID (and fingerprint, when the
// signature names it) that were valid signing keys when the signature was
// made, each with its certificate's revocation and expiry at now (as the
// listings see them, Lifetime). A revoked key's signing keys are
// returned too, Revoked, so that filter checks and reports their
// signatures (gpg's REVKEYSIG), never as good.
func (r *Ring) SignerKeys(keyID uint64, fpr []byte, made, now time.Time) []filter.SignerKey {
	if keyID == 0 && fpr == nil {
		return nil
	}
	var out []filter.SignerKey
	for _, k := range r.keys {
		e := k.ent
		cands := []*packet.PublicKey{e.PrimaryKey}
		for _, s := range e.Subkeys {
			cands = append(cands, s.PublicKey)
		}
		for _, pk := range cands {
			if keyID != 0 && pk.KeyId != keyID || fpr != nil && !bytes.Equal(pk.Fingerprint, fpr) {
				continue
			}
			_, ok := e.SigningKeyById(made, pk.KeyId, config)
			if !ok && !pk.CreationTime.After(made) {
				// The key's self-signatures may all be newer than the
				// signature: re-signed since (gpg's expire re-signs every
				// user ID). gpg checks a signature against the key as it
				// is now, if it existed then; so does pgpstream.
				_, ok = e.SigningKeyById(now, pk.KeyId, config)
			}
			if !ok && !k.RevokedSigner(pk, now) {
				// A revoked key's signatures are still checked, to
				// be reported as gpg does (REVKEYSIG), never as good.
				continue
			}
			revoked, expired := k.Lifetime(now)
			out = append(out, filter.SignerKey{Key: pk, Revoked: revoked, Expired: expired})
		}
	}
	return out
}
