package filter

import (
	"crypto/cipher"
	"fmt"

	"github.com/ProtonMail/go-crypto/eax"
	"github.com/ProtonMail/go-crypto/ocb"

	ourEAX "github.com/pgpstream/pgpstream/internal/eax"
	ourOCB "github.com/pgpstream/pgpstream/internal/ocb"
	"github.com/pgpstream/pgpstream/packet"
)

// aeadTagSize is the tag length of every OpenPGP AEAD mode (RFC 9580 §9.6).
const aeadTagSize = 16

// newAEAD is the one place an AEAD engine is chosen: every chunk of every
// AEAD packet, read or written, sealed or opened, goes through an instance
// made here. AES goes to pgpstream's engines (internal/ocb, internal/eax,
// the standard library's GCM); the other 128-bit ciphers to go-crypto's
// generic modes. Instances are not assumed safe for concurrent use (the
// generic OCB grows its mask table lazily), so each worker makes its own.
func newAEAD(c packet.CipherAlgo, mode packet.AEADAlgo, key []byte) (cipher.AEAD, error) {
	if c.BlockSize() != 16 {
		return nil, &packet.UnsupportedError{Packet: "AEAD", Offset: -1, What: fmt.Sprintf("cipher %v with AEAD: the modes need a 128-bit block cipher", c)}
	}
	block, err := c.NewBlock(key)
	if err != nil {
		return nil, err
	}
	switch mode {
	case packet.AEADOCB:
		if c.IsAES() {
			// 8 blocks per AES-NI pass, 16 with VAES; pure Go elsewhere.
			return ourOCB.New(key, mode.NonceSize())
		}
		return ocb.NewOCBWithNonceAndTagSize(block, mode.NonceSize(), aeadTagSize)
	case packet.AEADEAX:
		if c.IsAES() {
			// AES-NI OMAC in one assembly loop, CTR from the standard library.
			return ourEAX.NewWithNonceSize(key, mode.NonceSize())
		}
		return eax.NewEAXWithNonceAndTagSize(block, mode.NonceSize(), aeadTagSize)
	case packet.AEADGCM:
		return cipher.NewGCM(block)
	}
	return nil, &packet.UnsupportedError{Packet: "AEAD", Offset: -1, What: mode.String()}
}
