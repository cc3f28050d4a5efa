package packet

import (
	"bytes"
	"errors"
	"testing"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"
)

// A v3 PKESK naming a cipher go-crypto refuses opens through
// decryptLegacy; one naming a cipher nobody knows is an
// UnsupportedError, not a wrong key.
func TestPKESKLegacyCipher(t *testing.T) {
	for _, algo := range []gcpacket.PublicKeyAlgorithm{gcpacket.PubKeyAlgoEdDSA, gcpacket.PubKeyAlgoRSA} {
		cfg := &gcpacket.Config{Algorithm: algo, Curve: gcpacket.Curve25519, RSABits: 1024}
		e, err := v2.NewEntity("t", "", "t@example.org", cfg)
		if err != nil {
			t.Fatal(err)
		}
		sub := e.Subkeys[0]
		for _, c := range []CipherAlgo{CipherCamellia256, CipherIDEA, CipherTwofish, CipherAlgo(99)} {
			size := c.KeySize()
			if size == 0 {
				size = 16
			}
			key := bytes.Repeat([]byte{0x5a}, size)
			var buf bytes.Buffer
			if err := gcpacket.SerializeEncryptedKeyAEAD(&buf, sub.PublicKey, gcpacket.CipherFunction(c), false, key, nil); err != nil {
				t.Fatalf("%v %v: %v", algo, c, err)
			}
			_, body, _, err := SplitPacket(buf.Bytes(), 0)
			if err != nil {
				t.Fatal(err)
			}
			p, err := ParsePKESK(body, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, gc, err := p.Decrypt(sub.PrivateKey)
			if c.KeySize() == 0 {
				var u *UnsupportedError
				if !errors.As(err, &u) {
					t.Errorf("%v cipher 99: %v, want UnsupportedError", algo, err)
				}
				continue
			}
			if err != nil || gc != c || !bytes.Equal(got, key) {
				t.Errorf("%v %v: %x %v %v", algo, c, got, gc, err)
			}
		}
	}
}
