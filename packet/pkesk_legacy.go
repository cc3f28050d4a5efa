package packet

import (
	"bytes"
	"crypto"
	"crypto/cipher"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"math/big"

	"github.com/ProtonMail/go-crypto/openpgp/ecdh"
	"github.com/ProtonMail/go-crypto/openpgp/elgamal"
	pgperrors "github.com/ProtonMail/go-crypto/openpgp/errors"
	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/ProtonMail/go-crypto/openpgp/s2k"
)

// isUnsupportedCipher reports whether go-crypto refused a PKESK only
// because the session key names a cipher it does not know (it knows
// 3DES, CAST5 and AES), which decryptLegacy then reads.
func isUnsupportedCipher(err error) bool {
	var u pgperrors.UnsupportedError
	return errors.As(err, &u) && string(u) == "unsupported encryption function"
}

// decryptLegacy recovers a v3 PKESK's session key for the ciphers
// go-crypto refuses (IDEA, Blowfish, Twofish, Camellia): the public-key
// step is go-crypto's primitive for the key's algorithm, and the
// decrypted octets are read here as RFC 9580 section 5.1.3 has them:
// the cipher, the key, and a two-octet checksum (the sum of the key's
// octets modulo 65536).
func (p *PKESK) decryptLegacy(priv *gcpacket.PrivateKey) ([]byte, CipherAlgo, error) {
	if p.Version != 3 {
		return nil, 0, &UnsupportedError{"PKESK", p.Offset, "session key layout"}
	}
	fields := p.Fields
	var b []byte
	var err error
	switch priv.PubKeyAlgo {
	case gcpacket.PubKeyAlgoRSA, gcpacket.PubKeyAlgoRSAEncryptOnly:
		c, _, ok := readMPI(fields)
		if !ok {
			return nil, 0, &TruncatedError{"PKESK", p.Offset, "the RSA value"}
		}
		k, ok := priv.PrivateKey.(crypto.Decrypter)
		if !ok {
			return nil, 0, &UnsupportedError{"PKESK", p.Offset, "RSA key type"}
		}
		size := (k.Public().(*rsa.PublicKey).N.BitLen() + 7) / 8
		if len(c) > size {
			return nil, 0, &StructuralError{"PKESK", p.Offset, "RSA value larger than the modulus"}
		}
		padded := make([]byte, size)
		copy(padded[size-len(c):], c)
		b, err = k.Decrypt(rand.Reader, padded, nil)
	case gcpacket.PubKeyAlgoElGamal:
		c1, rest, ok := readMPI(fields)
		c2, _, ok2 := readMPI(rest)
		if !ok || !ok2 {
			return nil, 0, &TruncatedError{"PKESK", p.Offset, "the ElGamal values"}
		}
		b, err = elgamal.Decrypt(priv.PrivateKey.(*elgamal.PrivateKey), new(big.Int).SetBytes(c1), new(big.Int).SetBytes(c2))
	case gcpacket.PubKeyAlgoECDH:
		vsG, rest, ok := readMPI(fields)
		if !ok || len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return nil, 0, &TruncatedError{"PKESK", p.Offset, "the ECDH values"}
		}
		m := rest[1 : 1+int(rest[0])]
		oid, oerr := ecdhOID(&priv.PublicKey)
		if oerr != nil {
			return nil, 0, oerr
		}
		b, err = ecdh.Decrypt(priv.PrivateKey.(*ecdh.PrivateKey), vsG, m, oid, priv.PublicKey.Fingerprint)
	default:
		return nil, 0, &UnsupportedError{"PKESK", p.Offset, "public-key algorithm " + itoa3(byte(priv.PubKeyAlgo)) + " with this cipher"}
	}
	if err != nil {
		return nil, 0, err
	}
	if len(b) < 3 {
		return nil, 0, &StructuralError{"PKESK", p.Offset, "session key too short"}
	}
	c := CipherAlgo(b[0])
	key, sum := b[1:len(b)-2], b[len(b)-2:]
	if c.KeySize() == 0 {
		return nil, c, &UnsupportedError{"PKESK", p.Offset, "symmetric cipher " + itoa3(b[0])}
	}
	var s uint16
	for _, x := range key {
		s += uint16(x)
	}
	var want [2]byte
	binary.BigEndian.PutUint16(want[:], s)
	if len(key) != c.KeySize() || subtle.ConstantTimeCompare(want[:], sum) != 1 {
		return nil, 0, &StructuralError{"PKESK", p.Offset, "session key checksum"}
	}
	return key, c, nil
}

// readMPI reads an OpenPGP multiprecision integer: a two-octet bit
// count, then the octets.
func readMPI(b []byte) (v, rest []byte, ok bool) {
	if len(b) < 2 {
		return nil, nil, false
	}
	n := (int(binary.BigEndian.Uint16(b)) + 7) / 8
	if len(b) < 2+n {
		return nil, nil, false
	}
	return b[2 : 2+n], b[2+n:], true
}

// ecdhOID returns the curve OID of a v4 ECDH key as its packet encodes
// it (length octet first), the form the key derivation hashes.
func ecdhOID(pk *gcpacket.PublicKey) ([]byte, error) {
	var buf bytes.Buffer
	if err := pk.Serialize(&buf); err != nil {
		return nil, err
	}
	pkts := buf.Bytes()
	_, body, _, err := SplitPacket(pkts, 0)
	if err != nil {
		return nil, err
	}
	// version, creation time, algorithm, then the OID.
	if len(body) < 7 || body[0] != 4 || len(body) < 7+int(body[6]) {
		return nil, &UnsupportedError{"PKESK", -1, "ECDH key version for this cipher"}
	}
	return body[6 : 7+int(body[6])], nil
}

// goCryptoCipher reports whether go-crypto's SKESK and PKESK code knows
// c; for the others pgpstream reads the packets itself.
func goCryptoCipher(c CipherAlgo) bool {
	return c == Cipher3DES || c == CipherCAST5 || c.IsAES()
}

// decryptV4Legacy reads a v4 SKESK (RFC 9580 section 5.3.1) whose cipher
// go-crypto does not know: the S2K specifier derives the key-encryption
// key; without an encrypted session key that is the session key, with
// one, the session key is it decrypted in CFB mode with a zero IV, its
// first octet naming the message's cipher.
func (s *SKESK) decryptV4Legacy(passphrase []byte) ([]byte, CipherAlgo, error) {
	if s.Cipher.KeySize() == 0 {
		return nil, 0, &UnsupportedError{"SKESK", s.Offset, "symmetric cipher " + itoa3(byte(s.Cipher))}
	}
	r := bytes.NewReader(s.body[2:])
	derive, err := s2k.Parse(r)
	if err != nil {
		return nil, 0, &StructuralError{"SKESK", s.Offset, "S2K specifier: " + err.Error()}
	}
	kek := make([]byte, s.Cipher.KeySize())
	derive(kek, passphrase)
	esk := s.body[len(s.body)-r.Len():]
	if len(esk) == 0 {
		return kek, s.Cipher, nil
	}
	block, err := s.Cipher.NewBlock(kek)
	if err != nil {
		return nil, 0, err
	}
	out := make([]byte, len(esk))
	cipher.NewCFBDecrypter(block, make([]byte, block.BlockSize())).XORKeyStream(out, esk)
	c := CipherAlgo(out[0])
	if c.KeySize() == 0 || len(out)-1 != c.KeySize() {
		// A wrong passphrase gives a random first octet.
		return nil, 0, &StructuralError{"SKESK", s.Offset, "wrong passphrase or corrupt session key"}
	}
	return out[1:], c, nil
}
