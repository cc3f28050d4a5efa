package ocb

import (
	"crypto/subtle"
	"encoding/binary"
	"math/bits"
)

// The pure-Go bulk loops mirror the assembly: offsets come eight blocks at
// a time from the running offset and o.pre, a whole pass is XORed with its
// offsets by one subtle.XORBytes call (itself vectorised), and only the
// block cipher runs per block, since crypto/aes has no multi-block API.
// Copies per byte: src -> scratch (XOR), cipher in place, scratch -> dst
// (XOR).

// passBytes is what one pass handles: four groups of eight blocks. Longer
// passes amortise the XORBytes calls; measured, 512 bytes gets within a few
// percent of the bare cost of crypto/aes one block at a time.
const passBytes = 4 * groupBytes

// goScratch is allocated once per call: it is handed to the cipher.Block
// interface, so it would escape to the heap anyway.
type goScratch struct {
	offs [passBytes]byte
	buf  [passBytes]byte
}

// offsets fills offs[:n] (n a multiple of groupBytes) with the offsets of
// the next n/16 blocks, s.idx being a multiple of eight, and advances s.
func (o *ocbAEAD) offsets(s *state, offs []byte) {
	le := binary.LittleEndian
	x, y := le.Uint64(s.oc[0][:8]), le.Uint64(s.oc[0][8:])
	for len(offs) >= groupBytes {
		g := offs[:groupBytes]
		for j := range 7 {
			le.PutUint64(g[16*j:], x^le.Uint64(o.pre[j][:8]))
			le.PutUint64(g[16*j+8:], y^le.Uint64(o.pre[j][8:]))
		}
		s.idx += 8
		l := &o.l[bits.TrailingZeros64(s.idx)]
		x ^= le.Uint64(o.pre[6][:8]) ^ le.Uint64(l[:8])
		y ^= le.Uint64(o.pre[6][8:]) ^ le.Uint64(l[8:])
		le.PutUint64(g[112:], x)
		le.PutUint64(g[120:], y)
		offs = offs[groupBytes:]
	}
	le.PutUint64(s.oc[0][:8], x)
	le.PutUint64(s.oc[0][8:], y)
}

// xorBlocksInto XORs the blocks of p (a multiple of 16 bytes) into sum.
func xorBlocksInto(sum *block, p []byte) {
	le := binary.LittleEndian
	x, y := le.Uint64(sum[:8]), le.Uint64(sum[8:])
	for ; len(p) >= blockSize; p = p[blockSize:] {
		x ^= le.Uint64(p[:8])
		y ^= le.Uint64(p[8:16])
	}
	le.PutUint64(sum[:8], x)
	le.PutUint64(sum[8:], y)
}

func (o *ocbAEAD) goSealBulk(s *state, dst, src []byte) {
	w := new(goScratch)
	for len(src) > 0 {
		n := min(len(src), passBytes)
		o.offsets(s, w.offs[:n])
		subtle.XORBytes(w.buf[:n], src[:n], w.offs[:n])
		// The checksum is taken before dst is written: dst may be src.
		xorBlocksInto(&s.oc[1], src[:n])
		for j := 0; j < n; j += blockSize {
			o.b.Encrypt(w.buf[j:j+blockSize], w.buf[j:j+blockSize])
		}
		subtle.XORBytes(dst[:n], w.buf[:n], w.offs[:n])
		src, dst = src[n:], dst[n:]
	}
}

func (o *ocbAEAD) goOpenBulk(s *state, dst, src []byte) {
	w := new(goScratch)
	for len(src) > 0 {
		n := min(len(src), passBytes)
		o.offsets(s, w.offs[:n])
		subtle.XORBytes(w.buf[:n], src[:n], w.offs[:n])
		for j := 0; j < n; j += blockSize {
			o.b.Decrypt(w.buf[j:j+blockSize], w.buf[j:j+blockSize])
		}
		subtle.XORBytes(dst[:n], w.buf[:n], w.offs[:n])
		xorBlocksInto(&s.oc[1], dst[:n])
		src, dst = src[n:], dst[n:]
	}
}

func (o *ocbAEAD) goHashBulk(s *state, src []byte) {
	w := new(goScratch)
	for len(src) > 0 {
		n := min(len(src), passBytes)
		o.offsets(s, w.offs[:n])
		subtle.XORBytes(w.buf[:n], src[:n], w.offs[:n])
		for j := 0; j < n; j += blockSize {
			o.b.Encrypt(w.buf[j:j+blockSize], w.buf[j:j+blockSize])
		}
		xorBlocksInto(&s.oc[1], w.buf[:n])
		src = src[n:]
	}
}
