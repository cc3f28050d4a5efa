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

// Decrypter is a crypto.Decrypter for an RSA key in gpg-agent: Decrypt
// sends the ciphertext to PKDECRYPT and returns the PKCS#1 v1.5 message,
// as go-crypto's RSA PKESK decryption wants it.
type Decrypter struct {
	Conn *Conn
	Grip keygrip.Grip
	Desc string
	Pub  crypto.PublicKey
}

// Public is the key's public half.
func (d *Decrypter) Public() crypto.PublicKey { return d.Pub }

// Decrypt returns the message inside the PKCS#1 v1.5 encryption block.
func (d *Decrypter) Decrypt(_ io.Reader, ciphertext []byte, _ crypto.DecrypterOpts) ([]byte, error) {
	v, err := d.Conn.Decrypt(d.Grip, d.Desc, RSACiphertext(ciphertext))
	if err != nil {
		return nil, err
	}
	return pkcs1Message(v)
}

// pkcs1Message is the message in a PKCS#1 v1.5 encryption block as the
// agent gives it, a number: 02 || nonzero padding || 00 || message, its
// leading zero byte dropped.
func pkcs1Message(v []byte) ([]byte, error) {
	if len(v) > 0 && v[0] == 0 {
		v = v[1:]
	}
	if len(v) < 10 || v[0] != 2 {
		return nil, errors.New("gpg-agent: PKDECRYPT result is not a PKCS#1 v1.5 block")
	}
	i := 1
	for i < len(v) && v[i] != 0 {
		i++
	}
	if i < 9 || i == len(v) {
		return nil, errors.New("gpg-agent: PKDECRYPT result is not a PKCS#1 v1.5 block")
	}
	return v[i+1:], nil
}

// DecryptionKey is an RSA pub with its secret half in the agent, for
// go-crypto's PKESK decryption. ECDH keys go through Conn.Decrypt and
// ECDHSessionKey instead: go-crypto takes only its own ECDH key type.
func DecryptionKey(c *Conn, pub *gcpacket.PublicKey, desc string) (*gcpacket.PrivateKey, error) {
	switch pub.PubKeyAlgo {
	case gcpacket.PubKeyAlgoRSA, gcpacket.PubKeyAlgoRSAEncryptOnly:
	default:
		return nil, fmt.Errorf("gpg-agent decryption with public-key algorithm %d goes through ECDHSessionKey", pub.PubKeyAlgo)
	}
	grip, err := keygrip.Of(pub)
	if err != nil {
		return nil, err
	}
	return &gcpacket.PrivateKey{
		PublicKey:  *pub,
		PrivateKey: &Decrypter{Conn: c, Grip: grip, Desc: desc, Pub: pub.PublicKey},
	}, nil
}
