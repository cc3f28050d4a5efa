//go:build amd64 && !purego

package cfb

import (
	"encoding/binary"
	"math/bits"

	"github.com/pgpstream/pgpstream/internal/hwf"
)

// Implementation names the AES-CFB engine NewAESEncrypter and
// NewAESDecrypter would pick now.
func Implementation() string {
	if hwf.Has(hwf.AES) {
		return "aes-ni asm (8 blocks/pass decrypt, serial encrypt)"
	}
	return "pure Go"
}

// aesniEngine keeps the expanded encryption key in FIPS-197 byte order,
// round r at xk[16r:], the layout AESENC takes from memory. CFB never runs
// the AES inverse cipher, so there is no decryption schedule.
type aesniEngine struct {
	nr int
	xk [16 * 15]byte
}

// newAESNI returns nil when AES-NI is absent or switched off, read once here
// so a key keeps the engine it was built with.
func newAESNI(key []byte) *aesniEngine {
	if !hwf.Has(hwf.AES) {
		return nil
	}
	e := &aesniEngine{}
	e.nr = expandKey(key, e.xk[:])
	return e
}

// expandKey is the FIPS-197 §5.2 key expansion. SubWord runs on the AES unit
// (subWord), so no key-dependent table lookup leaks the key through the cache.
func expandKey(key, xk []byte) (nr int) {
	nk := len(key) / 4
	nr = nk + 6
	var w [4 * 15]uint32
	for i := 0; i < nk; i++ {
		w[i] = binary.BigEndian.Uint32(key[4*i:])
	}
	rcon := uint32(1)
	for i := nk; i < 4*(nr+1); i++ {
		t := w[i-1]
		switch {
		case i%nk == 0:
			t = subWord(bits.RotateLeft32(t, 8)) ^ rcon<<24
			rcon <<= 1
			if rcon&0x100 != 0 {
				rcon ^= 0x11b
			}
		case nk > 6 && i%nk == 4:
			t = subWord(t)
		}
		w[i] = w[i-nk] ^ t
	}
	for i := 0; i < 4*(nr+1); i++ {
		binary.BigEndian.PutUint32(xk[4*i:], w[i])
	}
	return nr
}

func (e *aesniEngine) encrypt(dst, src []byte) {
	_, _ = dst[15], src[15]
	encryptBlockAsm(e.nr, &e.xk[0], &dst[0], &src[0])
}

func (e *aesniEngine) encBlocks(iv, dst, src []byte) {
	_, _ = iv[15], dst[len(src)-1]
	encryptCFBAsm(e.nr, &e.xk[0], &iv[0], dst, src)
}

func (e *aesniEngine) decBlocks(iv, dst, src []byte) {
	_, _ = iv[15], dst[len(src)-1]
	decryptCFBAsm(e.nr, &e.xk[0], &iv[0], dst, src)
}
