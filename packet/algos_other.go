package packet

import (
	"crypto/cipher"

	"golang.org/x/crypto/blowfish"
	"golang.org/x/crypto/twofish"
)

// newOtherBlock covers the legacy ciphers pgpstream reads but never writes.
func newOtherBlock(c CipherAlgo, key []byte) (cipher.Block, error) {
	switch c {
	case CipherTwofish:
		return twofish.NewCipher(key)
	case CipherBlowfish:
		return blowfish.NewCipher(key)
	}
	return nil, &UnsupportedError{"symmetric cipher", -1, c.String() + " (pgpstream reads AES, 3DES, CAST5, Blowfish and Twofish)"}
}
