package packet

import (
	"bytes"
	"crypto"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"io"

	"github.com/ProtonMail/go-crypto/eax"
	"github.com/ProtonMail/go-crypto/ocb"
	"github.com/ProtonMail/go-crypto/openpgp/s2k"
)

// LibrePGP's version 5 SKESK (draft-koch-librepgp §5.3, rfc4880bis-10
// §5.3): the session key of a tag 20 packet, wrapped under a passphrase.
//
//	5 | cipher | AEAD mode | S2K specifier | IV (nonce size) | AEAD(session key) with its 16-byte tag
//
// The key-encryption key is the S2K output itself (no HKDF, unlike v6),
// the nonce is the IV, and the associated data is the packet's tag octet
// in new format (0xC3), the version, cipher and mode octets. go-crypto
// reads v5 only when built with -tags v5, so both directions are here.

var errSKESKv5 = errors.New("SKESK v5: wrong passphrase or damaged packet")

func skeskV5AEAD(c CipherAlgo, mode AEADAlgo, kek []byte) (cipher.AEAD, error) {
	block, err := c.NewBlock(kek)
	if err != nil {
		return nil, err
	}
	switch mode {
	case AEADOCB:
		return ocb.NewOCBWithNonceAndTagSize(block, mode.NonceSize(), 16)
	case AEADEAX:
		return eax.NewEAXWithNonceAndTagSize(block, mode.NonceSize(), 16)
	}
	return nil, &UnsupportedError{"SKESK", -1, "version 5 with " + mode.String() + " (known: EAX, OCB)"}
}

// WriteSKESKv5 writes a version 5 SKESK that wraps sessionKey (a key for
// c) under passphrase with iterated and salted S2K (SHA-256) of count
// bytes (0: S2KCount).
func WriteSKESKv5(w io.Writer, c CipherAlgo, mode AEADAlgo, sessionKey, passphrase []byte, count int) error {
	if count == 0 {
		count = s2kCount()
	}
	if c.BlockSize() != 16 || len(sessionKey) != c.KeySize() {
		return errors.New("SKESK v5: the session key must be for a 128-bit block cipher")
	}
	var spec bytes.Buffer
	kek := make([]byte, c.KeySize())
	cfg := &s2k.Config{S2KMode: s2k.IteratedSaltedS2K, Hash: crypto.SHA256, S2KCount: count}
	if err := s2k.Serialize(&spec, kek, rand.Reader, passphrase, cfg); err != nil {
		return err
	}
	aead, err := skeskV5AEAD(c, mode, kek)
	if err != nil {
		return err
	}
	iv := make([]byte, mode.NonceSize())
	if _, err := rand.Read(iv); err != nil {
		return err
	}
	ad := []byte{0xc0 | byte(TagSKESK), 5, byte(c), byte(mode)}
	body := append([]byte{5, byte(c), byte(mode)}, spec.Bytes()...)
	body = append(body, iv...)
	body = aead.Seal(body, iv, sessionKey, ad)
	pkt := AppendHeader(nil, TagSKESK, int64(len(body)))
	_, err = w.Write(append(pkt, body...))
	return err
}

// decryptV5 unwraps the session key of a version 5 SKESK. The cipher it
// returns is the SKESK's; the tag 20 packet names its own, which must agree.
func (s *SKESK) decryptV5(passphrase []byte) ([]byte, CipherAlgo, error) {
	b := s.body
	if len(b) < 3 {
		return nil, 0, &TruncatedError{"SKESK", s.Offset, "the AEAD mode"}
	}
	c, mode := CipherAlgo(b[1]), AEADAlgo(b[2])
	r := bytes.NewReader(b[3:])
	f, err := s2k.Parse(r)
	if err != nil {
		return nil, 0, &StructuralError{"SKESK", s.Offset, "S2K specifier: " + err.Error()}
	}
	rest := b[len(b)-r.Len():]
	n := mode.NonceSize()
	if n == 0 {
		return nil, 0, &UnsupportedError{"SKESK", s.Offset, mode.String()}
	}
	if len(rest) < n+16 {
		return nil, 0, &TruncatedError{"SKESK", s.Offset, "the IV and the encrypted session key"}
	}
	kek := make([]byte, c.KeySize())
	f(kek, passphrase)
	aead, err := skeskV5AEAD(c, mode, kek)
	if err != nil {
		return nil, 0, err
	}
	ad := []byte{0xc0 | byte(TagSKESK), 5, byte(c), byte(mode)}
	key, err := aead.Open(nil, rest[:n], rest[n:], ad)
	if err != nil {
		return nil, 0, errSKESKv5
	}
	return key, c, nil
}
