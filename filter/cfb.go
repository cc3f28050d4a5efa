package filter

import (
	"crypto/cipher"

	"github.com/pgpstream/pgpstream/packet"
)

// newCFB returns OpenPGP's CFB (zero IV, no resynchronisation) for the
// SEIPD v1 packet.
func newCFB(c packet.CipherAlgo, key []byte, encrypt bool) (cipher.Stream, error) {
	block, err := c.NewBlock(key)
	if err != nil {
		return nil, err
	}
	iv := make([]byte, block.BlockSize())
	if encrypt {
		return cipher.NewCFBEncrypter(block, iv), nil
	}
	return cipher.NewCFBDecrypter(block, iv), nil
}
