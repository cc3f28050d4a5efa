package agent

import (
	"bytes"
	"crypto"
	"encoding/asn1"
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/ProtonMail/go-crypto/openpgp/eddsa"
	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/keygrip"
	"github.com/pgpstream/pgpstream/packet"
)

// ListKeys returns what KEYINFO --list says of every key the agent
// holds, by keygrip: one round trip, however many keys the home has.
func (c *Conn) ListKeys() (map[keygrip.Grip]KeyInfo, error) {
	out := map[keygrip.Grip]KeyInfo{}
	prev := c.Status
	defer func() { c.Status = prev }()
	c.Status = func(kw, args string) {
		if i, ok := parseKeyInfo(kw, args); ok {
			out[i.Grip] = i
		}
	}
	if _, err := c.Transact("KEYINFO --list"); err != nil {
		return nil, err
	}
	return out, nil
}

// Option sends OPTION name=value, as gpg tells the agent its terminal,
// display and pinentry mode.
func (c *Conn) Option(name, value string) error {
	_, err := c.Transact("OPTION " + name + "=" + value)
	if err == nil && name == "pinentry-mode" {
		c.mode = value
	}
	return err
}

// Key is one OpenPGP (sub)key whose secret half gpg-agent holds. It
// signs as a crypto.Signer (RSA: PKCS#1 v1.5; ECDSA: ASN.1 r, s),
// decrypts RSA session keys as a crypto.Decrypter and ECDH ones through
// DecryptECDH (packet.ECDHDecrypter), and signs EdDSA through the curve
// NewPrivateKey gives go-crypto.
//
// go-crypto's Signature.Sign drops the error of an RSA or EdDSA signer
// (it is assigned to a variable local to its switch case), so Key keeps
// the last one for SignError.
type Key struct {
	Conn *Conn
	Grip keygrip.Grip
	Desc string // shown by the agent's pinentry
	Pub  *gcpacket.PublicKey
	// WrapErr, when set, is given every error of the agent before it
	// is returned (to wrap the caller's own sentinels).
	WrapErr func(error) error

	signErr error
}

func (k *Key) wrap(err error) error {
	if err != nil && k.WrapErr != nil {
		return k.WrapErr(err)
	}
	return err
}

// Public is the key's public half.
func (k *Key) Public() crypto.PublicKey { return k.Pub.PublicKey }

// SignError is why the last signature failed, or nil.
func (k *Key) SignError() error { return k.signErr }

// Sign implements crypto.Signer.
func (k *Key) Sign(_ io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	b, err := k.sign(digest, opts.HashFunc())
	k.signErr = k.wrap(err)
	return b, k.signErr
}

func (k *Key) sign(digest []byte, h crypto.Hash) ([]byte, error) {
	id, ok := hashIDs[h]
	if !ok {
		return nil, fmt.Errorf("gpg-agent: hash %v", h)
	}
	sig, err := k.Conn.Sign(k.Grip, k.Desc, id, digest)
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
		r, s := sig.Value("r"), sig.Value("s")
		if r == nil || s == nil {
			return nil, errors.New("gpg-agent: ECDSA signature without r and s")
		}
		return asn1.Marshal(struct{ R, S *big.Int }{new(big.Int).SetBytes(r), new(big.Int).SetBytes(s)})
	case sig.Find("eddsa") != nil:
		r, s := sig.Value("r"), sig.Value("s")
		if r == nil || s == nil || len(r) > 32 || len(s) > 32 {
			return nil, errors.New("gpg-agent: EdDSA signature without a 32-byte r and s")
		}
		return append(leftPad(r, 32), leftPad(s, 32)...), nil
	}
	return nil, fmt.Errorf("gpg-agent: a %s signature was not expected", sig.List[1].Head())
}

func leftPad(b []byte, n int) []byte {
	if len(b) >= n {
		return b
	}
	return append(make([]byte, n-len(b)), b...)
}

// Decrypt implements crypto.Decrypter for RSA: it returns the message
// inside the PKCS#1 v1.5 encryption block.
func (k *Key) Decrypt(_ io.Reader, ciphertext []byte, _ crypto.DecrypterOpts) ([]byte, error) {
	v, err := k.Conn.Decrypt(k.Grip, k.Desc, RSACiphertext(ciphertext))
	if err != nil {
		return nil, k.wrap(err)
	}
	m, err := pkcs1Message(v)
	return m, k.wrap(err)
}

// DecryptECDH returns the session key block (cipher octet, key,
// checksum) of an ECDH PKESK with ephemeral point e and wrapped key.
func (k *Key) DecryptECDH(e, wrapped []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := k.Pub.Serialize(&buf); err != nil {
		return nil, err
	}
	_, body, _, err := packet.SplitPacket(buf.Bytes(), 0)
	if err != nil {
		return nil, err
	}
	shared, err := k.Conn.Decrypt(k.Grip, k.Desc, ECDHCiphertext(e, wrapped))
	if err != nil {
		return nil, k.wrap(err)
	}
	return ECDHSessionKey(body, k.Pub.Fingerprint, shared, wrapped)
}

// DecryptElGamal returns the session key block of an ElGamal PKESK with
// MPIs a and b.
func (k *Key) DecryptElGamal(a, b []byte) ([]byte, error) {
	v, err := k.Conn.Decrypt(k.Grip, k.Desc, ElGamalCiphertext(a, b))
	if err != nil {
		return nil, k.wrap(err)
	}
	m, err := pkcs1Message(v)
	return m, k.wrap(err)
}

// SignDigest signs digest (of hash h) and returns the signature's MPIs,
// for the algorithms go-crypto signs only with its own key type (DSA).
func (k *Key) SignDigest(digest []byte, h crypto.Hash) ([][]byte, error) {
	id, ok := hashIDs[h]
	if !ok {
		return nil, k.wrap(fmt.Errorf("gpg-agent: hash %v", h))
	}
	sig, err := k.Conn.Sign(k.Grip, k.Desc, id, digest)
	if err != nil {
		return nil, k.wrap(err)
	}
	r, s := sig.Value("r"), sig.Value("s")
	if sig.Find("dsa") == nil || r == nil || s == nil {
		return nil, k.wrap(errors.New("gpg-agent: a DSA signature without r and s"))
	}
	return [][]byte{r, s}, nil
}

// NewPrivateKey is pub with its secret half in the agent, as go-crypto
// signs and pgpstream decrypts with it: RSA, ECDSA, EdDSA (v4, the
// legacy algorithm 22 gpg 2.2 makes), DSA, ECDH and ElGamal.
func NewPrivateKey(c *Conn, pub *gcpacket.PublicKey, desc string) (*gcpacket.PrivateKey, error) {
	grip, err := keygrip.Of(pub)
	if err != nil {
		return nil, err
	}
	k := &Key{Conn: c, Grip: grip, Desc: desc, Pub: pub}
	priv := &gcpacket.PrivateKey{PublicKey: *pub, PrivateKey: k}
	switch pub.PubKeyAlgo {
	case gcpacket.PubKeyAlgoRSA, gcpacket.PubKeyAlgoRSASignOnly, gcpacket.PubKeyAlgoRSAEncryptOnly,
		gcpacket.PubKeyAlgoECDSA, gcpacket.PubKeyAlgoECDH, gcpacket.PubKeyAlgoElGamal, gcpacket.PubKeyAlgoDSA:
		// ECDH and ElGamal decrypt through package packet's hooks,
		// DSA signs through SignDigest (filter.DigestSigner).
	case gcpacket.PubKeyAlgoEdDSA:
		ep, ok := pub.PublicKey.(*eddsa.PublicKey)
		if !ok {
			return nil, fmt.Errorf("gpg-agent: EdDSA key %X is not go-crypto's EdDSA key", pub.Fingerprint)
		}
		// go-crypto signs EdDSA with the key's curve, which it takes
		// from the private key: give it one that asks the agent.
		sk := eddsa.NewPrivateKey(*eddsa.NewPublicKey(&edCurve{edDSACurve: ep.GetCurve(), key: k}))
		sk.X = ep.X
		sk.D = []byte{} // the secret stays in the agent
		priv.PrivateKey = sk
	default:
		return nil, fmt.Errorf("pgpstream does not use gpg-agent keys of public-key algorithm %d", pub.PubKeyAlgo)
	}
	return priv, nil
}

// AgentKey returns the agent key behind priv, if NewPrivateKey made it.
func AgentKey(priv *gcpacket.PrivateKey) *Key {
	switch p := priv.PrivateKey.(type) {
	case *Key:
		return p
	case *eddsa.PrivateKey:
		if c, ok := p.GetCurve().(*edCurve); ok {
			return c.key
		}
	}
	return nil
}

// edDSACurve is the method set of go-crypto's EdDSA curves (its
// internal ecc.EdDSACurve), which edCurve forwards to.
type edDSACurve interface {
	GetCurveName() string
	MarshalBytePoint(x []byte) []byte
	UnmarshalBytePoint([]byte) (x []byte)
	MarshalByteSecret(d []byte) []byte
	UnmarshalByteSecret(d []byte) []byte
	MarshalSignature(sig []byte) (r, s []byte)
	UnmarshalSignature(r, s []byte) (sig []byte)
	GenerateEdDSA(rand io.Reader) (pub, priv []byte, err error)
	Sign(publicKey, privateKey, message []byte) (sig []byte, err error)
	Verify(publicKey, message, sig []byte) bool
	ValidateEdDSA(publicKey, privateKey []byte) (err error)
}

// edCurve is the key's curve with Sign done by the agent: go-crypto
// hands it the digest, as OpenPGP's EdDSA signs the hash, and takes back
// r || s, each 32 bytes for Ed25519.
type edCurve struct {
	edDSACurve
	key *Key
}

func (c *edCurve) Sign(_, _, digest []byte) ([]byte, error) {
	// The digest's length names its hash: the agent wants it said.
	h := crypto.SHA256
	for ch := range hashIDs {
		if ch.Size() == len(digest) {
			h = ch
		}
	}
	b, err := c.key.sign(digest, h)
	c.key.signErr = c.key.wrap(err)
	return b, c.key.signErr
}
