package inflate

import "encoding/binary"

// Adler-32 (RFC 1950 section 8.2) for the zlib trailer. hash/adler32 adds
// one byte per step on one dependency chain, and took as long as inflate
// itself (pprof, 8 MiB of base64 text). This one adds 8 bytes per step in
// 16-bit lanes of a uint64: one load, one shift, two masks and four adds
// per word, folded into the sums every 64 bytes.

const adlerMod = 65521

// adlerUpdate returns the Adler-32 of the bytes summed into a followed by p.
func adlerUpdate(a uint32, p []byte) uint32 {
	s1, s2 := uint64(a&0xffff), uint64(a>>16)
	for len(p) >= 64 {
		// Up to 64 blocks of 64 bytes between reductions: s2 grows by
		// less than 64*(s1 + 64*255) + 64*64*255 per block, far below 2^64.
		n := min(len(p)/64, 64)
		for range n {
			s1, s2 = adlerBlock(s1, s2, p[:64])
			p = p[64:]
		}
		s1 %= adlerMod
		s2 %= adlerMod
	}
	for _, b := range p {
		s1 += uint64(b)
		s2 += s1
	}
	return uint32(s2%adlerMod)<<16 | uint32(s1%adlerMod)
}

const lanes = 0x00ff00ff00ff00ff

// adlerBlock adds 64 bytes. With c_j the sum of the bytes at position j
// mod 8 and d_j the sum of those bytes weighted by how many words (of 8)
// remain from theirs to the end, the block adds 64*s1 + 8*sum(d_j) -
// sum(j*c_j) to s2 and sum(c_j) to s1.
func adlerBlock(s1, s2 uint64, p []byte) (uint64, uint64) {
	p = p[:64]
	var ce, co, de, do uint64 // even and odd byte positions, 16-bit lanes
	for i := 0; i < 64; i += 8 {
		w := binary.LittleEndian.Uint64(p[i:])
		ce += w & lanes
		co += w >> 8 & lanes
		de += ce
		do += co
	}
	// Lane bounds: c <= 8*255, d <= 36*255, so the sums below fit in
	// 16 bits and the multiplications carry nothing into the top lane.
	const ones = 0x0001000100010001
	sumC := (ce + co) * ones >> 48
	sumD := de*ones>>48 + do*ones>>48
	// Lane i of ce holds position 2i, of co position 2i+1; the top lane
	// of x*k is sum x_i*k_(3-i).
	jc := ce*(6|4<<16|2<<32)>>48 + co*(7|5<<16|3<<32|1<<48)>>48
	s2 += 64*s1 + 8*sumD - jc
	s1 += sumC
	return s1, s2
}
