// Package camellia is the Camellia block cipher (RFC 3713), which
// OpenPGP numbers ciphers 11, 12 and 13 (RFC 9580 section 9.3) for
// 128-, 192- and 256-bit keys and GnuPG writes on request. pgpstream
// only reads it; it is written from the RFC, as a straightforward
// byte-table implementation: old archives are small, so it is not tuned.
package camellia

import (
	"crypto/cipher"
	"encoding/binary"
	"math/bits"
	"strconv"
)

// BlockSize is Camellia's block size in bytes.
const BlockSize = 16

// sbox1 is SBOX1 of RFC 3713 section 2.4.4; the other three are derived
// from it (see sbox).
var sbox1 = [256]byte{
	112, 130, 44, 236, 179, 39, 192, 229, 228, 133, 87, 53, 234, 12, 174, 65,
	35, 239, 107, 147, 69, 25, 165, 33, 237, 14, 79, 78, 29, 101, 146, 189,
	134, 184, 175, 143, 124, 235, 31, 206, 62, 48, 220, 95, 94, 197, 11, 26,
	166, 225, 57, 202, 213, 71, 93, 61, 217, 1, 90, 214, 81, 86, 108, 77,
	139, 13, 154, 102, 251, 204, 176, 45, 116, 18, 43, 32, 240, 177, 132, 153,
	223, 76, 203, 194, 52, 126, 118, 5, 109, 183, 169, 49, 209, 23, 4, 215,
	20, 88, 58, 97, 222, 27, 17, 28, 50, 15, 156, 22, 83, 24, 242, 34,
	254, 68, 207, 178, 195, 181, 122, 145, 36, 8, 232, 168, 96, 252, 105, 80,
	170, 208, 160, 125, 161, 137, 98, 151, 84, 91, 30, 149, 224, 255, 100, 210,
	16, 196, 0, 72, 163, 247, 117, 219, 138, 3, 230, 218, 9, 63, 221, 148,
	135, 92, 131, 2, 205, 74, 144, 51, 115, 103, 246, 243, 157, 127, 191, 226,
	82, 155, 216, 38, 200, 55, 198, 59, 129, 150, 111, 75, 19, 190, 99, 46,
	233, 121, 167, 140, 159, 110, 188, 142, 41, 245, 249, 182, 47, 253, 180, 89,
	120, 152, 6, 106, 231, 70, 113, 186, 212, 37, 171, 66, 136, 162, 141, 250,
	114, 7, 185, 85, 248, 238, 172, 10, 54, 73, 42, 104, 60, 56, 241, 164,
	64, 40, 211, 123, 187, 201, 67, 193, 21, 227, 173, 244, 119, 199, 128, 158,
}

// The key schedule constants Sigma1..Sigma6 (RFC 3713 section 2.2).
var sigma = [6]uint64{
	0xA09E667F3BCC908B, 0xB67AE8584CAA73B2, 0xC6EF372FE94F82BE,
	0x54FF53A5F1D36F1C, 0x10E527FADE682D1D, 0xB05688C2B3E6C1FD,
}

// KeySizeError is returned for a key that is not 16, 24 or 32 bytes.
type KeySizeError int

func (k KeySizeError) Error() string {
	return "camellia: invalid key size " + strconv.Itoa(int(k))
}

type camelliaCipher struct {
	grand  bool // 192- or 256-bit key: 24 rounds and three FL layers
	kw     [4]uint64
	k      [24]uint64
	ke     [6]uint64
	dkw    [4]uint64
	dk     [24]uint64
	dke    [6]uint64
	rounds int
}

// NewCipher returns the Camellia cipher for a 16-, 24- or 32-byte key.
func NewCipher(key []byte) (cipher.Block, error) {
	c := &camelliaCipher{}
	var klh, kll, krh, krl uint64
	switch len(key) {
	case 16:
		klh, kll = binary.BigEndian.Uint64(key), binary.BigEndian.Uint64(key[8:])
	case 24:
		klh, kll = binary.BigEndian.Uint64(key), binary.BigEndian.Uint64(key[8:])
		krh = binary.BigEndian.Uint64(key[16:])
		krl = ^krh
		c.grand = true
	case 32:
		klh, kll = binary.BigEndian.Uint64(key), binary.BigEndian.Uint64(key[8:])
		krh, krl = binary.BigEndian.Uint64(key[16:]), binary.BigEndian.Uint64(key[24:])
		c.grand = true
	default:
		return nil, KeySizeError(len(key))
	}
	c.schedule(klh, kll, krh, krl)
	return c, nil
}

func (c *camelliaCipher) BlockSize() int { return BlockSize }

// rot rotates the 128-bit value hi||lo left by n bits (0 <= n < 128).
func rot(hi, lo uint64, n uint) (uint64, uint64) {
	if n >= 64 {
		hi, lo = lo, hi
		n -= 64
	}
	if n == 0 {
		return hi, lo
	}
	return hi<<n | lo>>(64-n), lo<<n | hi>>(64-n)
}

// schedule is RFC 3713 section 2.2.
func (c *camelliaCipher) schedule(klh, kll, krh, krl uint64) {
	d1, d2 := klh^krh, kll^krl
	d2 ^= f(d1, sigma[0])
	d1 ^= f(d2, sigma[1])
	d1 ^= klh
	d2 ^= kll
	d2 ^= f(d1, sigma[2])
	d1 ^= f(d2, sigma[3])
	kah, kal := d1, d2
	d1, d2 = kah^krh, kal^krl
	d2 ^= f(d1, sigma[4])
	d1 ^= f(d2, sigma[5])
	kbh, kbl := d1, d2

	type src struct {
		hi, lo uint64
		n      uint
	}
	pair := func(s src) (uint64, uint64) { return rot(s.hi, s.lo, s.n) }
	L := func(n uint) src { return src{klh, kll, n} }
	R := func(n uint) src { return src{krh, krl, n} }
	A := func(n uint) src { return src{kah, kal, n} }
	B := func(n uint) src { return src{kbh, kbl, n} }
	if !c.grand {
		c.rounds = 18
		c.kw[0], c.kw[1] = pair(L(0))
		ks := []src{A(0), L(15), A(15), L(45), A(45), L(60), A(60), L(94), A(94), L(111)}
		// k1..k18, with k9 and k10 from different halves (RFC 3713).
		c.k[0], c.k[1] = pair(ks[0])
		c.k[2], c.k[3] = pair(ks[1])
		c.k[4], c.k[5] = pair(ks[2])
		c.k[6], c.k[7] = pair(ks[3])
		c.k[8], _ = pair(ks[4])
		_, c.k[9] = pair(ks[5])
		c.k[10], c.k[11] = pair(ks[6])
		c.k[12], c.k[13] = pair(ks[7])
		c.k[14], c.k[15] = pair(ks[8])
		c.k[16], c.k[17] = pair(ks[9])
		c.ke[0], c.ke[1] = pair(A(30))
		c.ke[2], c.ke[3] = pair(L(77))
		c.kw[2], c.kw[3] = pair(A(111))
	} else {
		c.rounds = 24
		c.kw[0], c.kw[1] = pair(L(0))
		for i, s := range []src{B(0), R(15), A(15), B(30), L(45), A(45), R(60), B(60), L(77), R(94), A(94), L(111)} {
			c.k[2*i], c.k[2*i+1] = pair(s)
		}
		c.ke[0], c.ke[1] = pair(R(30))
		c.ke[2], c.ke[3] = pair(L(60))
		c.ke[4], c.ke[5] = pair(A(77))
		c.kw[2], c.kw[3] = pair(B(111))
	}
	// Decryption runs the same network with the subkeys reversed.
	c.dkw = [4]uint64{c.kw[2], c.kw[3], c.kw[0], c.kw[1]}
	for i := 0; i < c.rounds; i++ {
		c.dk[i] = c.k[c.rounds-1-i]
	}
	nke := 2 * (c.rounds/6 - 1)
	for i := 0; i < nke; i++ {
		c.dke[i] = c.ke[nke-1-i]
	}
}

func sbox(i int, x byte) byte {
	switch i {
	case 2:
		return bits.RotateLeft8(sbox1[x], 1)
	case 3:
		return bits.RotateLeft8(sbox1[x], 7)
	case 4:
		return sbox1[bits.RotateLeft8(x, 1)]
	}
	return sbox1[x]
}

// f is the F-function of RFC 3713 section 2.4.1.
func f(in, ke uint64) uint64 {
	x := in ^ ke
	t1 := sbox(1, byte(x>>56))
	t2 := sbox(2, byte(x>>48))
	t3 := sbox(3, byte(x>>40))
	t4 := sbox(4, byte(x>>32))
	t5 := sbox(2, byte(x>>24))
	t6 := sbox(3, byte(x>>16))
	t7 := sbox(4, byte(x>>8))
	t8 := sbox(1, byte(x))
	y1 := t1 ^ t3 ^ t4 ^ t6 ^ t7 ^ t8
	y2 := t1 ^ t2 ^ t4 ^ t5 ^ t7 ^ t8
	y3 := t1 ^ t2 ^ t3 ^ t5 ^ t6 ^ t8
	y4 := t2 ^ t3 ^ t4 ^ t5 ^ t6 ^ t7
	y5 := t1 ^ t2 ^ t6 ^ t7 ^ t8
	y6 := t2 ^ t3 ^ t5 ^ t7 ^ t8
	y7 := t3 ^ t4 ^ t5 ^ t6 ^ t8
	y8 := t1 ^ t4 ^ t5 ^ t6 ^ t7
	return uint64(y1)<<56 | uint64(y2)<<48 | uint64(y3)<<40 | uint64(y4)<<32 |
		uint64(y5)<<24 | uint64(y6)<<16 | uint64(y7)<<8 | uint64(y8)
}

// fl and flInv are RFC 3713 sections 2.4.2 and 2.4.3.
func fl(in, ke uint64) uint64 {
	x1, x2 := uint32(in>>32), uint32(in)
	k1, k2 := uint32(ke>>32), uint32(ke)
	x2 ^= bits.RotateLeft32(x1&k1, 1)
	x1 ^= x2 | k2
	return uint64(x1)<<32 | uint64(x2)
}

func flInv(in, ke uint64) uint64 {
	y1, y2 := uint32(in>>32), uint32(in)
	k1, k2 := uint32(ke>>32), uint32(ke)
	y1 ^= y2 | k2
	y2 ^= bits.RotateLeft32(y1&k1, 1)
	return uint64(y1)<<32 | uint64(y2)
}

func (c *camelliaCipher) crypt(kw *[4]uint64, k *[24]uint64, ke *[6]uint64, dst, src []byte) {
	if len(src) < BlockSize || len(dst) < BlockSize {
		panic("camellia: block shorter than 16 bytes")
	}
	d1 := binary.BigEndian.Uint64(src) ^ kw[0]
	d2 := binary.BigEndian.Uint64(src[8:]) ^ kw[1]
	for r := 0; r < c.rounds; r += 2 {
		if r > 0 && r%6 == 0 {
			d1 = fl(d1, ke[r/3-2])
			d2 = flInv(d2, ke[r/3-1])
		}
		d2 ^= f(d1, k[r])
		d1 ^= f(d2, k[r+1])
	}
	d2 ^= kw[2]
	d1 ^= kw[3]
	binary.BigEndian.PutUint64(dst, d2)
	binary.BigEndian.PutUint64(dst[8:], d1)
}

func (c *camelliaCipher) Encrypt(dst, src []byte) { c.crypt(&c.kw, &c.k, &c.ke, dst, src) }
func (c *camelliaCipher) Decrypt(dst, src []byte) { c.crypt(&c.dkw, &c.dk, &c.dke, dst, src) }
