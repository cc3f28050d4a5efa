package keyring

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// ErrNoSigningSecret says that a key can sign but the ring holds the
// secret part of none of its signing (sub)keys.
var ErrNoSigningSecret = errors.New("the secret part of no signing key is in the ring")

// ForcedKey parses gpg's "KEY!" syntax: a fingerprint, long or short key
// ID followed by "!", which names one (sub)key to use, not the
// certificate. The certificate is found first (a short ID that names
// several is refused as ambiguous there), so a short ID only chooses
// among that certificate's own keys, as in gpg.
func ForcedKey(spec string) (id []byte, ok bool) {
	b, bang, ok := parseHexID(spec)
	if !ok || !bang {
		return nil, false
	}
	return b, true
}

func matchesID(pk *packet.PublicKey, id []byte) bool {
	switch len(id) {
	case 4:
		return uint32(pk.KeyId) == uint32(beUint64(id))
	case 8:
		return pk.KeyId == beUint64(id)
	default:
		return bytes.Equal(pk.Fingerprint, id)
	}
}

func beUint64(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// SigningKey picks the (sub)key of k that signs at now, as gpg does:
// with forced (from ForcedKey) exactly that (sub)key, if it is valid for
// signing; otherwise the newest valid signing subkey whose secret part
// the ring holds, then the primary key if it may sign. A newer signing
// subkey whose secret part is elsewhere (a smartcard stub, a laptop
// that has only the primary) is passed over rather than failing.
func (k *Key) SigningKey(now time.Time, forced []byte) (*packet.PrivateKey, error) {
	type cand struct {
		pk      *packet.PublicKey
		created time.Time
	}
	var cands []cand
	for _, s := range k.ent.Subkeys {
		if sig, err := s.LatestValidBindingSignature(now, config); err == nil {
			cands = append(cands, cand{s.PublicKey, sig.CreationTime})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].created.After(cands[j].created) })
	cands = append(cands, cand{pk: k.ent.PrimaryKey})
	var noSecret *packet.PublicKey
	for _, c := range cands {
		if forced != nil && !matchesID(c.pk, forced) {
			continue
		}
		key, ok := k.ent.SigningKeyById(now, c.pk.KeyId, config)
		if !ok || key.PublicKey.KeyId != c.pk.KeyId {
			if forced != nil {
				return nil, fmt.Errorf("keyring: key %X cannot sign: expired, revoked, or not made for signing", c.pk.Fingerprint)
			}
			continue
		}
		priv := k.PrivateKey(c.pk.Fingerprint)
		if priv == nil || priv.Dummy() {
			if noSecret == nil {
				noSecret = c.pk
			}
			continue
		}
		return priv, nil
	}
	switch {
	case noSecret != nil:
		return nil, fmt.Errorf("%w: signing key %X of %s", ErrNoSigningSecret, noSecret.Fingerprint, k.Fingerprint())
	case forced != nil:
		return nil, fmt.Errorf("%w: %X is not a key of %s", ErrNoKey, forced, k.Fingerprint())
	}
	return nil, fmt.Errorf("keyring: key %s (%s) has no valid signing key: expired, revoked, or not made for signing", k.Fingerprint(), k.PrimaryUserID())
}
