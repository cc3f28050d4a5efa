package packet

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
)

// PKESK is a Public-Key Encrypted Session Key packet (RFC 9580 §5.1),
// version 3 or 6. pgpstream parses the fields that route it to a key;
// the public-key decryption is go-crypto's.
type PKESK struct {
	Version     byte
	KeyID       uint64 // v3; 0 is the wildcard ("hidden recipient")
	Fingerprint []byte // v6; empty is the wildcard
	Algo        byte   // public-key algorithm id
	// Fields are the algorithm-specific fields that follow: the
	// encrypted session key (RFC 9580 §5.1.3 to §5.1.7).
	Fields []byte
	Offset int64
	body   []byte
}

// ParsePKESK parses a PKESK body. It does not look at the algorithm
// (Decrypt does), so what a reader that only describes the packet
// (package inspect) needs comes back without error; a truncated body or
// an unknown version gives nil.
func ParsePKESK(body []byte, offset int64) (*PKESK, error) {
	p := &PKESK{Offset: offset, body: body}
	if len(body) < 1 {
		return nil, &TruncatedError{"PKESK", offset, "the version octet"}
	}
	p.Version = body[0]
	switch p.Version {
	case 3:
		if len(body) < 10 {
			return nil, &TruncatedError{"PKESK", offset, "key ID and algorithm"}
		}
		p.KeyID = binary.BigEndian.Uint64(body[1:9])
		p.Algo = body[9]
		p.Fields = body[10:]
	case 6:
		if len(body) < 3 {
			return nil, &TruncatedError{"PKESK", offset, "key version and algorithm"}
		}
		n := int(body[1])
		if len(body) < 2+n+1 {
			return nil, &TruncatedError{"PKESK", offset, "the recipient fingerprint"}
		}
		if n > 0 {
			p.Fingerprint = body[3 : 2+n] // body[2] is the key version
		}
		p.Algo = body[2+n]
		p.Fields = body[3+n:]
	default:
		return nil, &UnsupportedError{"PKESK", offset, "version " + itoa3(p.Version) + " (known: 3, 6)"}
	}
	return p, nil
}

// Wildcard reports whether the recipient is hidden.
func (p *PKESK) Wildcard() bool {
	return (p.Version == 3 && p.KeyID == 0) || (p.Version == 6 && len(p.Fingerprint) == 0)
}

// Matches reports whether priv is the key this session key was encrypted to.
func (p *PKESK) Matches(priv *gcpacket.PrivateKey) bool {
	switch p.Version {
	case 3:
		return p.KeyID == priv.KeyId
	case 6:
		return bytes.Equal(p.Fingerprint, priv.Fingerprint)
	}
	return false
}

// ECDHDecrypter is a secret ECDH key held outside go-crypto (in
// gpg-agent): go-crypto's ECDH decryption takes only its own key type,
// so a PKESK for such a key is opened here instead. DecryptECDH is given
// the PKESK's ephemeral point and wrapped key and returns the unwrapped
// session key block: the cipher octet, the key and its two-octet
// checksum (RFC 6637 §8).
type ECDHDecrypter interface {
	DecryptECDH(ephemeral, wrapped []byte) ([]byte, error)
}

// ElGamalDecrypter is a secret ElGamal key held outside go-crypto, which
// decrypts ElGamal only with its own key type: DecryptElGamal is given
// the PKESK's two MPIs and returns the session key block inside the
// PKCS#1 v1.5 encoding (cipher octet, key, checksum).
type ElGamalDecrypter interface {
	DecryptElGamal(a, b []byte) ([]byte, error)
}

// Decrypt recovers the session key with priv, which must be unlocked. For
// v3 the cipher comes with the key; for v6 it is in the SEIPD v2 header and
// Decrypt returns 0.
func (p *PKESK) Decrypt(priv *gcpacket.PrivateKey) ([]byte, CipherAlgo, error) {
	if d, ok := priv.PrivateKey.(ECDHDecrypter); ok && p.Algo == byte(gcpacket.PubKeyAlgoECDH) {
		return p.decryptECDH(d)
	}
	if d, ok := priv.PrivateKey.(ElGamalDecrypter); ok && p.Algo == byte(gcpacket.PubKeyAlgoElGamal) {
		return p.decryptElGamal(d)
	}
	pkt := AppendHeader(nil, TagPKESK, int64(len(p.body)))
	pkt = append(pkt, p.body...)
	gp, err := gcpacket.Read(bytes.NewReader(pkt))
	if err != nil {
		return nil, 0, err
	}
	ek, ok := gp.(*gcpacket.EncryptedKey)
	if !ok {
		return nil, 0, fmt.Errorf("PKESK: unexpected %T", gp)
	}
	if err := ek.Decrypt(priv, nil); err != nil {
		if isUnsupportedCipher(err) {
			return p.decryptLegacy(priv)
		}
		return nil, 0, err
	}
	return ek.Key, CipherAlgo(ek.CipherFunc), nil
}

// decryptECDH opens a v3 ECDH PKESK through d: after the version, key
// ID and algorithm come the ephemeral point as an MPI and the wrapped
// key with a one-octet length.
func (p *PKESK) decryptECDH(d ECDHDecrypter) ([]byte, CipherAlgo, error) {
	if p.Version != 3 {
		return nil, 0, &UnsupportedError{"PKESK", p.Offset, "an ECDH PKESK of version " + itoa3(p.Version) + " for a key outside go-crypto"}
	}
	f := p.Fields
	if len(f) < 2 {
		return nil, 0, &TruncatedError{"PKESK", p.Offset, "the ECDH ephemeral point"}
	}
	n := (int(f[0])<<8 | int(f[1]) + 7) / 8
	if len(f) < 2+n+1 || len(f) != 2+n+1+int(f[2+n]) {
		return nil, 0, &TruncatedError{"PKESK", p.Offset, "the ECDH wrapped key"}
	}
	m, err := d.DecryptECDH(f[2:2+n], f[2+n+1:])
	if err != nil {
		return nil, 0, err
	}
	return sessionKeyBlock(m)
}

// decryptElGamal opens a v3 ElGamal PKESK through d: two MPIs follow the
// version, key ID and algorithm.
func (p *PKESK) decryptElGamal(d ElGamalDecrypter) ([]byte, CipherAlgo, error) {
	if p.Version != 3 {
		return nil, 0, &UnsupportedError{"PKESK", p.Offset, "an ElGamal PKESK of version " + itoa3(p.Version)}
	}
	f := p.Fields
	var mpis [2][]byte
	for i := range mpis {
		if len(f) < 2 {
			return nil, 0, &TruncatedError{"PKESK", p.Offset, "the ElGamal MPIs"}
		}
		n := (int(f[0])<<8 | int(f[1]) + 7) / 8
		if len(f) < 2+n {
			return nil, 0, &TruncatedError{"PKESK", p.Offset, "the ElGamal MPIs"}
		}
		mpis[i], f = f[2:2+n], f[2+n:]
	}
	m, err := d.DecryptElGamal(mpis[0], mpis[1])
	if err != nil {
		return nil, 0, err
	}
	return sessionKeyBlock(m)
}

// sessionKeyBlock checks and splits a v3 PKESK's session key block: the
// cipher octet, the key, and the key's two-octet checksum.
func sessionKeyBlock(m []byte) ([]byte, CipherAlgo, error) {
	if len(m) < 1+2 {
		return nil, 0, fmt.Errorf("PKESK: a session key block of %d octets", len(m))
	}
	c, key, sum := CipherAlgo(m[0]), m[1:len(m)-2], m[len(m)-2:]
	var want uint16
	for _, b := range key {
		want += uint16(b)
	}
	if binary.BigEndian.Uint16(sum) != want || len(key) != c.KeySize() {
		return nil, 0, fmt.Errorf("PKESK: the session key's checksum or size is wrong")
	}
	return key, c, nil
}

// WritePKESK encrypts sessionKey to pub: a v3 PKESK for SEIPD v1 and the
// LibrePGP AEAD packet, a v6 PKESK (v6 true) for SEIPD v2.
func WritePKESK(w io.Writer, pub *gcpacket.PublicKey, c CipherAlgo, sessionKey []byte, v6, hidden bool) error {
	return gcpacket.SerializeEncryptedKeyAEADwithHiddenOption(w, pub, gcpacket.CipherFunction(c), v6, sessionKey, hidden, nil)
}
