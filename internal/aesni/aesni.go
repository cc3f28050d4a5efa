// Package aesni holds what the AES instruction engines (internal/cfb,
// internal/eax) share: the AES key schedule in the byte order AESENC (on
// amd64) and AESE (on arm64) take from memory. Each engine keeps its own
// assembly for the rounds, fused with its mode.
package aesni

//go:generate go run -C asm . -out ../aesni_amd64.s -stubs ../aesni_amd64_stubs.go -pkg aesni

import (
	"encoding/binary"
	"math/bits"
)

// ExpandKey writes the AES encryption key schedule of key (16, 24 or 32
// bytes) to xk in FIPS-197 byte order, round r at xk[16r:], and returns
// the number of rounds. xk must hold 16*(rounds+1) bytes (240 for
// AES-256). The S-box is applied with AESKEYGENASSIST (SubWord), so no
// key-dependent table lookup leaks the key through the cache.
func ExpandKey(key, xk []byte) (nr int) {
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
			t = SubWord(bits.RotateLeft32(t, 8)) ^ rcon<<24
			rcon <<= 1
			if rcon&0x100 != 0 {
				rcon ^= 0x11b
			}
		case nk > 6 && i%nk == 4:
			t = SubWord(t)
		}
		w[i] = w[i-nk] ^ t
	}
	for i := 0; i < 4*(nr+1); i++ {
		binary.BigEndian.PutUint32(xk[4*i:], w[i])
	}
	return nr
}
