//go:build amd64 && !purego

package eax

import (
	"encoding/binary"
	"math/bits"

	"github.com/pgpstream/pgpstream/internal/hwf"
)

// Implementation names the engines behind the AEAD that New would build now.
func Implementation() string {
	if hwf.Has(hwf.AES) {
		return "stdlib AES-CTR + aes-ni asm OMAC"
	}
	return "stdlib AES-CTR + Go OMAC loop"
}

// macEngine holds the expanded encryption key in FIPS-197 byte order,
// round r at xk[16r:], the layout AESENC takes from memory.
type macEngine struct {
	nr int
	xk [16 * 15]byte
}

// newMACEngine returns nil when AES-NI is absent or switched off, read once
// here so a key keeps the engine it was built with.
func newMACEngine(key []byte) *macEngine {
	if !hwf.Has(hwf.AES) {
		return nil
	}
	m := &macEngine{}
	m.nr = expandKey(key, m.xk[:])
	return m
}

// run sets *x to the CBC-MAC chain over the whole blocks of src (at least one).
func (m *macEngine) run(x *[blockSize]byte, src []byte) {
	cbcMACAsm(m.nr, &m.xk[0], x, src)
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
