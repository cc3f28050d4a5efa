package filter

import (
	"bytes"
	"crypto"
	"crypto/dsa"
	"errors"
	"hash"
	"math/big"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/packet"
)

// DigestSigner is a secret key held outside go-crypto (in gpg-agent) for
// an algorithm go-crypto signs only with its own key type, DSA: it signs
// a digest and returns the signature's MPIs (r and s).
type DigestSigner interface {
	SignDigest(digest []byte, h crypto.Hash) ([][]byte, error)
}

// digestCapture is a hash that keeps what Sum returned: the digest
// go-crypto signs, once it has hashed the signature's trailer.
type digestCapture struct {
	hash.Hash
	sum []byte
}

func (c *digestCapture) Sum(b []byte) []byte {
	out := c.Hash.Sum(b)
	c.sum = append([]byte(nil), out[len(b):]...)
	return out
}

// signDigest makes sig with ds and returns the serialized packet and the
// signature as parsed from it. go-crypto builds the packet (subpackets,
// trailer, hash prefix) with a stand-in key of the same public
// parameters; the digest it signed is captured, ds signs that, and ds's
// MPIs replace the stand-in's at the end of the packet.
func signDigest(sig *gcpacket.Signature, h hash.Hash, key *gcpacket.PrivateKey, cfg *gcpacket.Config, ds DigestSigner) ([]byte, *gcpacket.Signature, error) {
	pub, ok := key.PublicKey.PublicKey.(*dsa.PublicKey)
	if key.PubKeyAlgo != gcpacket.PubKeyAlgoDSA || !ok {
		return nil, nil, errors.New("signing: a digest signer for a key that is not DSA")
	}
	stand := &gcpacket.PrivateKey{PublicKey: key.PublicKey, PrivateKey: &dsa.PrivateKey{PublicKey: *pub, X: big.NewInt(1)}}
	capture := &digestCapture{Hash: h}
	if err := sig.Sign(capture, stand, cfg); err != nil {
		return nil, nil, err
	}
	mpis, err := ds.SignDigest(capture.sum, sig.Hash)
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	if err := sig.Serialize(&buf); err != nil {
		return nil, nil, err
	}
	_, body, _, err := packet.SplitPacket(buf.Bytes(), 0)
	if err != nil {
		return nil, nil, err
	}
	cut := len(sig.DSASigR.EncodedBytes()) + len(sig.DSASigS.EncodedBytes())
	out := append([]byte(nil), body[:len(body)-cut]...)
	for _, m := range mpis {
		m = bytes.TrimLeft(m, "\x00")
		bits := 0
		if len(m) > 0 {
			bits = (len(m)-1)*8 + big.NewInt(int64(m[0])).BitLen()
		}
		out = append(out, byte(bits>>8), byte(bits))
		out = append(out, m...)
	}
	pkt := append(packet.AppendHeader(nil, packet.TagSignature, int64(len(out))), out...)
	p, err := gcpacket.Read(bytes.NewReader(pkt))
	if err != nil {
		return nil, nil, err
	}
	signed, ok := p.(*gcpacket.Signature)
	if !ok {
		return nil, nil, errors.New("signing: the signature does not parse back")
	}
	return pkt, signed, nil
}
