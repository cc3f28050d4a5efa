// Package idea is the IDEA block cipher (Lai and Massey, 1991), which
// OpenPGP numbers cipher 1 (RFC 9580 section 9.3) and old PGP 2 and
// GnuPG archives use. pgpstream only reads it; it is here so that those
// archives open, not for new data.
package idea

import (
	"crypto/cipher"
	"encoding/binary"
	"strconv"
)

// BlockSize is IDEA's block size in bytes.
const BlockSize = 8

// KeySize is IDEA's key size in bytes.
const KeySize = 16

type ideaCipher struct {
	ek, dk [52]uint16
}

// KeySizeError is returned for a key that is not 16 bytes.
type KeySizeError int

func (k KeySizeError) Error() string {
	return "idea: invalid key size " + strconv.Itoa(int(k))
}

// NewCipher returns the IDEA cipher for a 16-byte key.
func NewCipher(key []byte) (cipher.Block, error) {
	if len(key) != KeySize {
		return nil, KeySizeError(len(key))
	}
	c := &ideaCipher{}
	c.expand(key)
	return c, nil
}

func (c *ideaCipher) BlockSize() int { return BlockSize }

// expand derives the 52 encryption subkeys: the key's eight 16-bit words,
// then the same after each rotation of the 128-bit key left by 25 bits;
// and the decryption subkeys, the inverses in reverse round order.
func (c *ideaCipher) expand(key []byte) {
	hi, lo := binary.BigEndian.Uint64(key), binary.BigEndian.Uint64(key[8:])
	for i := 0; i < 52; {
		for j := 0; j < 8 && i < 52; j, i = j+1, i+1 {
			if j < 4 {
				c.ek[i] = uint16(hi >> (48 - 16*j))
			} else {
				c.ek[i] = uint16(lo >> (48 - 16*(j-4)))
			}
		}
		hi, lo = hi<<25|lo>>39, lo<<25|hi>>39
	}
	ek := &c.ek
	dk := &c.dk
	for r := 0; r < 9; r++ {
		// Decryption round r undoes encryption round 8-r (the ninth
		// "round" is the output transformation).
		e := 6 * (8 - r)
		dk[6*r] = mulInv(ek[e])
		if r == 0 || r == 8 {
			dk[6*r+1] = -ek[e+1]
			dk[6*r+2] = -ek[e+2]
		} else {
			dk[6*r+1] = -ek[e+2]
			dk[6*r+2] = -ek[e+1]
		}
		dk[6*r+3] = mulInv(ek[e+3])
		if r < 8 {
			dk[6*r+4] = ek[e-2]
			dk[6*r+5] = ek[e-1]
		}
	}
}

// mul multiplies modulo 2^16+1, the all-zero word standing for 2^16.
func mul(a, b uint16) uint16 {
	if a == 0 {
		return 1 - b
	}
	if b == 0 {
		return 1 - a
	}
	p := uint32(a) * uint32(b)
	lo, hi := uint16(p), uint16(p>>16)
	if lo < hi {
		return lo - hi + 1
	}
	return lo - hi
}

// mulInv is the inverse under mul (0 and 1 are their own inverses), by
// Fermat: x^(65537-2) modulo the prime 65537.
func mulInv(x uint16) uint16 {
	if x <= 1 {
		return x
	}
	r := uint64(1)
	b := uint64(x)
	for e := 65535; e > 0; e >>= 1 {
		if e&1 != 0 {
			r = r * b % 65537
		}
		b = b * b % 65537
	}
	return uint16(r)
}

func crypt(k *[52]uint16, dst, src []byte) {
	if len(src) < BlockSize || len(dst) < BlockSize {
		panic("idea: block shorter than 8 bytes")
	}
	x1 := binary.BigEndian.Uint16(src[0:])
	x2 := binary.BigEndian.Uint16(src[2:])
	x3 := binary.BigEndian.Uint16(src[4:])
	x4 := binary.BigEndian.Uint16(src[6:])
	for r := 0; r < 8; r++ {
		s := k[6*r : 6*r+6]
		x1 = mul(x1, s[0])
		x2 += s[1]
		x3 += s[2]
		x4 = mul(x4, s[3])
		t0 := mul(s[4], x1^x3)
		t1 := mul(s[5], t0+(x2^x4))
		t0 += t1
		x1 ^= t1
		x4 ^= t0
		x2, x3 = x3^t1, x2^t0
	}
	binary.BigEndian.PutUint16(dst[0:], mul(x1, k[48]))
	binary.BigEndian.PutUint16(dst[2:], x3+k[49])
	binary.BigEndian.PutUint16(dst[4:], x2+k[50])
	binary.BigEndian.PutUint16(dst[6:], mul(x4, k[51]))
}

func (c *ideaCipher) Encrypt(dst, src []byte) { crypt(&c.ek, dst, src) }
func (c *ideaCipher) Decrypt(dst, src []byte) { crypt(&c.dk, dst, src) }
