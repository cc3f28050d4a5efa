package agent

import (
	"crypto"
	"encoding/asn1"
	"errors"
	"fmt"
	"io"
	"math/big"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/keygrip"
)

// Signer is a crypto.Signer whose secret key is in gpg-agent: Sign sends
// the digest to PKSIGN. It serves RSA and ECDSA keys, whose signatures
// go-crypto makes through a crypto.Signer (see PrivateKey).
type Signer struct {
	Conn *Conn
	Grip keygrip.Grip
	Desc string // shown by the agent's pinentry
	Pub  crypto.PublicKey
}

// hashIDs maps crypto hashes to OpenPGP's (and libgcrypt's) numbers.
var hashIDs = map[crypto.Hash]int{crypto.SHA1: 2, crypto.SHA224: 11, crypto.SHA256: 8, crypto.SHA384: 9, crypto.SHA512: 10}

// Public is the key's public half.
func (s *Signer) Public() crypto.PublicKey { return s.Pub }

// Sign returns a PKCS#1 v1.5 signature for RSA keys, an ASN.1 (r, s)
// for ECDSA, as crypto.Signer's contract says.
func (s *Signer) Sign(_ io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	id, ok := hashIDs[opts.HashFunc()]
	if !ok {
		return nil, fmt.Errorf("gpg-agent: hash %v", opts.HashFunc())
	}
	sig, err := s.Conn.Sign(s.Grip, s.Desc, id, digest)
	if err != nil {
		return nil, err
	}
	switch {
	case sig.Find("rsa") != nil:
		v := sig.Value("s")
		if v == nil {
			return nil, errors.New("gpg-agent: RSA signature without s")
		}
		return v, nil
	case sig.Find("ecdsa") != nil:
		r, ss := sig.Value("r"), sig.Value("s")
		if r == nil || ss == nil {
			return nil, errors.New("gpg-agent: ECDSA signature without r and s")
		}
		return asn1.Marshal(struct{ R, S *big.Int }{new(big.Int).SetBytes(r), new(big.Int).SetBytes(ss)})
	}
	return nil, fmt.Errorf("gpg-agent: a %s signature where RSA or ECDSA was expected", sig.List[1].Head())
}

// PrivateKey is pub with its secret half in the agent, for the signing
// paths that take a *gcpacket.PrivateKey (RSA and ECDSA keys).
func PrivateKey(c *Conn, pub *gcpacket.PublicKey, desc string) (*gcpacket.PrivateKey, error) {
	switch pub.PubKeyAlgo {
	case gcpacket.PubKeyAlgoRSA, gcpacket.PubKeyAlgoRSASignOnly, gcpacket.PubKeyAlgoECDSA:
	default:
		return nil, fmt.Errorf("gpg-agent signing of public-key algorithm %d is not wired yet", pub.PubKeyAlgo)
	}
	grip, err := keygrip.Of(pub)
	if err != nil {
		return nil, err
	}
	return &gcpacket.PrivateKey{
		PublicKey:  *pub,
		PrivateKey: &Signer{Conn: c, Grip: grip, Desc: desc, Pub: pub.PublicKey},
	}, nil
}
