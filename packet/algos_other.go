package packet

import (
	"crypto/cipher"

	"golang.org/x/crypto/blowfish"
	"golang.org/x/crypto/twofish"

	"github.com/pgpstream/pgpstream/internal/camellia"
	"github.com/pgpstream/pgpstream/internal/idea"
)

// newOtherBlock covers the legacy ciphers pgpstream reads but never writes.
func newOtherBlock(c CipherAlgo, key []byte) (cipher.Block, error) {
	switch c {
	case CipherTwofish:
		return twofish.NewCipher(key)
	case CipherBlowfish:
		return blowfish.NewCipher(key)
	case CipherIDEA:
		return idea.NewCipher(key)
	case CipherCamellia128, CipherCamellia192, CipherCamellia256:
		return camellia.NewCipher(key)
	}
	return nil, &UnsupportedError{"symmetric cipher", -1, c.String() + " (pgpstream reads AES, Camellia, 3DES, CAST5, Blowfish, Twofish and IDEA)"}
}
