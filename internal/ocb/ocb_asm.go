//go:build (amd64 || arm64) && !purego

package ocb

import (
	"encoding/binary"
	"math/bits"
)

// hwKey is the key schedule of the AES instruction engines (AES-NI on amd64,
// the ARMv8 Cryptography Extensions on arm64): the assembly needs the raw
// round keys, which crypto/aes does not expose. Both take the same layout.
type hwKey struct {
	nr  int          // rounds: 10, 12 or 14
	enc [15][16]byte // encryption round keys
	dec [15][16]byte // equivalent-inverse-cipher round keys, for AESDEC
	// wide picks the loop for runs of sixteen blocks: the VAES loops on
	// zmm (AVX-512) or ymm (AVX2) registers; wideNone keeps the 8-block
	// AES-NI loop for everything.
	wide wideKind
}

// newHWKey returns nil when the assembly may not be used; the flags are read
// here, once per key, never per call.
func newHWKey(key []byte) *hwKey {
	if !hasAES() {
		return nil
	}
	k := &hwKey{wide: pickWide()}
	k.expand(key)
	return k
}

// expand is the FIPS-197 section 5.2 key expansion. Words are kept in
// little-endian order so each 16-byte round key lands in memory exactly as
// AESENC wants it; RotWord is then a rotation right by eight bits.
func (k *hwKey) expand(key []byte) {
	nk := len(key) / 4
	k.nr = nk + 6
	var w [60]uint32
	for i := range nk {
		w[i] = binary.LittleEndian.Uint32(key[4*i:])
	}
	rcon := uint32(1)
	for i := nk; i < 4*(k.nr+1); i++ {
		t := w[i-1]
		switch {
		case i%nk == 0:
			t = subWord(bits.RotateLeft32(t, -8)) ^ rcon
			rcon <<= 1
			if rcon&0x100 != 0 {
				rcon ^= 0x11b
			}
		case nk > 6 && i%nk == 4:
			t = subWord(t)
		}
		w[i] = w[i-nk] ^ t
	}
	for r := 0; r <= k.nr; r++ {
		for c := range 4 {
			binary.LittleEndian.PutUint32(k.enc[r][4*c:], w[4*r+c])
		}
	}
	// The equivalent inverse cipher (FIPS-197 section 5.3.5) runs the keys
	// backwards with InvMixColumns applied to the middle ones.
	k.dec[0] = k.enc[k.nr]
	for r := 1; r < k.nr; r++ {
		invMixColumns(&k.dec[r], &k.enc[k.nr-r])
	}
	k.dec[k.nr] = k.enc[0]
	clear(w[:])
}

func (k *hwKey) encrypt8(buf *[8]block) { encrypt8(k.nr, &k.enc, buf) }
func (k *hwKey) decrypt8(buf *[8]block) { decrypt8(k.nr, &k.dec, buf) }

func (k *hwKey) sealBulk(o *ocbAEAD, s *state, dst, src []byte) {
	if n := len(src) &^ (2*groupBytes - 1); k.wide != wideNone && n > 0 {
		k.sealWide(o, s, dst[:n], src[:n])
		s.idx += uint64(n / blockSize)
		dst, src = dst[n:], src[n:]
	}
	if len(src) > 0 {
		sealBlocks(k.nr, &k.enc, (*[8]block)(o.pre[:8]), &o.l, &s.oc, s.idx, dst, src)
		s.idx += uint64(len(src) / blockSize)
	}
}

func (k *hwKey) openBulk(o *ocbAEAD, s *state, dst, src []byte) {
	if n := len(src) &^ (2*groupBytes - 1); k.wide != wideNone && n > 0 {
		k.openWide(o, s, dst[:n], src[:n])
		s.idx += uint64(n / blockSize)
		dst, src = dst[n:], src[n:]
	}
	if len(src) > 0 {
		openBlocks(k.nr, &k.dec, (*[8]block)(o.pre[:8]), &o.l, &s.oc, s.idx, dst, src)
		s.idx += uint64(len(src) / blockSize)
	}
}

func (k *hwKey) hashBulk(o *ocbAEAD, s *state, src []byte) {
	hashBlocks(k.nr, &k.enc, (*[8]block)(o.pre[:8]), &o.l, &s.oc, s.idx, src)
	s.idx += uint64(len(src) / blockSize)
}
