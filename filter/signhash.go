package filter

import (
	"fmt"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/packet"
)

// HashError says why a key may not sign with a hash (HashFor).
type HashError struct {
	Hash   packet.HashAlgo // the hash asked for
	Reason string          // e.g. "Ed448 signs only with a 512-bit hash"
}

func (e *HashError) Error() string { return fmt.Sprintf("%v: %s", e.Hash, e.Reason) }

// HashFor is the hash a signature by pub is made with when asked is
// asked for, the one rule for every signature pgpstream makes. asked 0
// is the key's minimum: SHA-256, raised to what the key's size calls for
// (Ed448 and the larger NIST and Brainpool curves need a hash at least as
// long as the curve's order, RFC 9580 §5.2.3.4 and §9.2). A hash asked
// for is taken as given, except where the key cannot sign with it: a
// version 6 key signs only with a hash that has a salt size (SHA2, SHA3;
// RFC 9580 §5.2.3), Ed448 only with a 512-bit one. Those are a
// *HashError.
func HashFor(pub *gcpacket.PublicKey, asked packet.HashAlgo) (packet.HashAlgo, error) {
	if asked == 0 {
		return minHash(pub), nil
	}
	if pub.Version == 6 && asked.SaltSize() == 0 {
		return 0, &HashError{Hash: asked, Reason: "version 6 keys sign only with SHA2 or SHA3 (RFC 9580)"}
	}
	if pub.PubKeyAlgo == gcpacket.PubKeyAlgoEd448 && asked != packet.HashSHA512 && asked != packet.HashSHA3_512 {
		return 0, &HashError{Hash: asked, Reason: "Ed448 signs only with a 512-bit hash"}
	}
	return asked, nil
}

// minHash is the smallest hash pgpstream signs with by pub.
func minHash(pub *gcpacket.PublicKey) packet.HashAlgo {
	switch pub.PubKeyAlgo {
	case gcpacket.PubKeyAlgoEd448:
		return packet.HashSHA512
	case gcpacket.PubKeyAlgoECDSA:
		if c, err := pub.Curve(); err == nil {
			switch c {
			case gcpacket.CurveNistP384, gcpacket.CurveBrainpoolP384:
				return packet.HashSHA384
			case gcpacket.CurveNistP521, gcpacket.CurveBrainpoolP512:
				return packet.HashSHA512
			}
		}
	}
	return packet.HashSHA256
}
