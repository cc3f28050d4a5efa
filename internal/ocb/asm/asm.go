// Command asm generates ocb_amd64.s and its Go declarations with avo.
//
// It lives in its own module so the main module does not depend on avo.
// Run it through `go generate ./internal/ocb` from the main module.
//
// The AES-NI routines keep eight blocks in flight: AESENC has a latency of
// three to four cycles and a throughput of two per cycle on current x86
// cores, so eight independent blocks are what keeps both AES units busy.
// The VAES routines carry four blocks per zmm register and four registers
// in flight; on the AMD EPYC (Zen 4) this was written on they run at about
// 2.3 times the AES-NI speed. For CPUs with VAES but no AVX-512 (Zen 3,
// Intel client cores) the ymm routines carry two blocks per register and
// eight registers in flight, sixteen blocks per pass as well.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The eight data registers of the 8-wide routines; X8 holds the round key,
// X9 the running offset, X10 the checksum (or the AD sum), X11 and X12 are
// scratch. That is the whole SSE register file: the code uses only SSE and
// AES-NI encodings so it runs on every CPU that has AES-NI.
var (
	data     = []VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7}
	roundKey = X8
	offset   = X9
	checksum = X10
	tmp      = X11
	tmp2     = X12
)

func main() {
	ConstraintExpr("!purego")

	subWord()
	invMixColumns()
	crypt8("encrypt8", false)
	crypt8("decrypt8", true)
	bulk("sealBlocks", modeSeal)
	bulk("openBlocks", modeOpen)
	bulk("hashBlocks", modeHash)
	wide("sealBlocks16", modeSeal)
	wide("openBlocks16", modeOpen)
	wideY("sealBlocksY", modeSeal)
	wideY("openBlocksY", modeOpen)

	Generate()
}

// subWord lets the Go key expansion apply the S-box without a lookup table
// (whose cache footprint would depend on the key): with the word broadcast to
// all four columns ShiftRows is the identity, so AESENCLAST with a zero round
// key computes exactly SubBytes.
func subWord() {
	TEXT("subWord", NOSPLIT, "func(w uint32) uint32")
	Doc("subWord applies the AES S-box to each byte of w.")
	w := GP32()
	Load(Param("w"), w)
	MOVQ(w.As64(), X0)
	PSHUFD(Imm(0), X0, X0)
	PXOR(X1, X1)
	AESENCLAST(X1, X0)
	MOVQ(X0, w.As64())
	Store(w, ReturnIndex(0))
	RET()
}

// invMixColumns turns an encryption round key into the matching round key of
// the equivalent inverse cipher, which is what AESDEC expects.
func invMixColumns() {
	TEXT("invMixColumns", NOSPLIT, "func(dst, src *[16]byte)")
	Pragma("noescape")
	Doc("invMixColumns sets dst to InvMixColumns(src).")
	src := Load(Param("src"), GP64())
	dst := Load(Param("dst"), GP64())
	MOVOU(Mem{Base: src}, X0)
	AESIMC(X0, X0)
	MOVOU(X0, Mem{Base: dst})
	RET()
}

var labels int

func newLabel(prefix string) string {
	labels++
	return fmt.Sprintf("%s%d", prefix, labels)
}

// rounds runs the whole cipher over the blocks in xs. rk points at the
// schedule and last at its final round key; nr (10, 12 or 14) picks how many
// middle rounds run. Each round key is loaded once and applied to every
// block before the next, so the blocks' rounds interleave.
func rounds(nr, rk, last Register, xs []VecPhysical, decrypt bool) {
	round := func(r int) {
		MOVOU(Mem{Base: rk, Disp: 16 * r}, roundKey)
		for _, x := range xs {
			if decrypt {
				AESDEC(roundKey, x)
			} else {
				AESENC(roundKey, x)
			}
		}
	}
	MOVOU(Mem{Base: rk}, roundKey)
	for _, x := range xs {
		PXOR(roundKey, x)
	}
	for r := 1; r <= 9; r++ {
		round(r)
	}
	final := newLabel("final")
	CMPQ(nr, Imm(12))
	JB(LabelRef(final))
	round(10)
	round(11)
	JE(LabelRef(final))
	round(12)
	round(13)
	Label(final)
	MOVOU(Mem{Base: last}, roundKey)
	for _, x := range xs {
		if decrypt {
			AESDECLAST(roundKey, x)
		} else {
			AESENCLAST(roundKey, x)
		}
	}
}

func lastKey(nr, rk Register) Register {
	last := GP64()
	MOVQ(nr, last)
	SHLQ(Imm(4), last)
	ADDQ(rk, last)
	return last
}

// crypt8 is ECB over exactly eight blocks; the Go side uses it for the nonce,
// the tag and message tails, where eight blocks cost no more time than one.
func crypt8(name string, decrypt bool) {
	TEXT(name, NOSPLIT, "func(nr int, rk *[15][16]byte, buf *[8][16]byte)")
	Pragma("noescape")
	if decrypt {
		Doc(name + " deciphers the eight blocks of buf in place with the inverse-cipher schedule rk.")
	} else {
		Doc(name + " enciphers the eight blocks of buf in place with the schedule rk.")
	}
	nr := Load(Param("nr"), GP64())
	rk := Load(Param("rk"), GP64())
	buf := Load(Param("buf"), GP64())
	last := lastKey(nr, rk)
	for j, x := range data {
		MOVOU(Mem{Base: buf, Disp: 16 * j}, x)
	}
	rounds(nr, rk, last, data, decrypt)
	for j, x := range data {
		MOVOU(x, Mem{Base: buf, Disp: 16 * j})
	}
	RET()
}

type mode int

const (
	modeSeal mode = iota
	modeOpen
	modeHash
)

// bulk emits the OCB main loop over groups of eight full blocks.
//
// For a group starting after block i (i a multiple of 8) the offsets are
// Offset_i xor pre[j] for j = 0..6, where pre holds the fixed prefix XORs
// L_0, L_0^L_1, L_1, L_1^L_2, L_0^L_1^L_2, L_0^L_2, L_2 of the ntz pattern
// 0,1,0,2,0,1,0. Only the eighth block depends on i: it adds
// L_{ntz(i+8)}, found with BSF. So the eight offsets are independent XORs
// instead of a serial chain.
//
// st holds the running offset (st[0]) and checksum or AD sum (st[1]); both
// stay in registers for the whole call.
func bulk(name string, m mode) {
	switch m {
	case modeHash:
		TEXT(name, NOSPLIT, "func(nr int, rk *[15][16]byte, pre *[8][16]byte, ltab *[64][16]byte, st *[2][16]byte, idx uint64, src []byte)")
		Doc(name+" runs OCB's HASH over len(src)/128 groups of eight blocks;",
			"idx is the number of blocks already hashed, a multiple of eight.")
	case modeSeal:
		TEXT(name, NOSPLIT, "func(nr int, rk *[15][16]byte, pre *[8][16]byte, ltab *[64][16]byte, st *[2][16]byte, idx uint64, dst, src []byte)")
		Doc(name+" encrypts len(src)/128 groups of eight blocks into dst;",
			"idx is the number of blocks already processed, a multiple of eight.")
	case modeOpen:
		TEXT(name, NOSPLIT, "func(nr int, rk *[15][16]byte, pre *[8][16]byte, ltab *[64][16]byte, st *[2][16]byte, idx uint64, dst, src []byte)")
		Doc(name+" decrypts len(src)/128 groups of eight blocks into dst with",
			"the inverse-cipher schedule rk; idx is as for sealBlocks.")
	}
	Pragma("noescape")

	nr := Load(Param("nr"), GP64())
	rk := Load(Param("rk"), GP64())
	pre := Load(Param("pre"), GP64())
	ltab := Load(Param("ltab"), GP64())
	st := Load(Param("st"), GP64())
	idx := Load(Param("idx"), GP64())
	src := Load(Param("src").Base(), GP64())
	n := Load(Param("src").Len(), GP64())
	var dst Register
	var frame Mem
	if m != modeHash {
		dst = Load(Param("dst").Base(), GP64())
		frame = AllocLocal(8 * 16)
	}
	last := lastKey(nr, rk)

	SHRQ(Imm(7), n)
	JZ(LabelRef("done"))
	MOVOU(Mem{Base: st}, offset)
	MOVOU(Mem{Base: st, Disp: 16}, checksum)

	Label("loop")
	ntz := GP64()
	ADDQ(Imm(8), idx)
	BSFQ(idx, ntz)
	SHLQ(Imm(4), ntz)
	for j := 0; j < 8; j++ {
		x := data[j]
		if j < 7 {
			MOVOU(Mem{Base: pre, Disp: 16 * j}, tmp)
			PXOR(offset, tmp)
		} else {
			// Offset_{i+8} = Offset_i ^ L_2 ^ L_ntz(i+8) becomes the
			// running offset for the next group.
			MOVOU(Mem{Base: pre, Disp: 16 * 6}, tmp)
			MOVOU(Mem{Base: ltab, Index: ntz, Scale: 1}, tmp2)
			PXOR(tmp2, tmp)
			PXOR(tmp, offset)
			MOVOU(offset, tmp)
		}
		if m != modeHash {
			MOVOU(tmp, frame.Offset(16*j))
		}
		MOVOU(Mem{Base: src, Disp: 16 * j}, x)
		if m == modeSeal {
			PXOR(x, checksum)
		}
		PXOR(tmp, x)
	}

	rounds(nr, rk, last, data, m == modeOpen)

	for j, x := range data {
		if m == modeHash {
			PXOR(x, checksum)
			continue
		}
		MOVOU(frame.Offset(16*j), tmp)
		PXOR(tmp, x)
		if m == modeOpen {
			PXOR(x, checksum)
		}
		MOVOU(x, Mem{Base: dst, Disp: 16 * j})
	}

	ADDQ(Imm(128), src)
	if m != modeHash {
		ADDQ(Imm(128), dst)
	}
	DECQ(n)
	JNZ(LabelRef("loop"))

	MOVOU(offset, Mem{Base: st})
	MOVOU(checksum, Mem{Base: st, Disp: 16})
	Label("done")
	RET()
}

// wide emits the VAES/AVX-512 main loop over groups of sixteen blocks, four
// per zmm register. Everything stays in registers: the 11 to 15 round keys
// (broadcast to all four lanes), the sixteen offsets, the group prefixes and
// the checksum.
//
// The prefixes are those of bulk extended to sixteen blocks; the XOR of
// L_ntz(1..15) is L_3, so the sixteenth offset is Offset_i ^ L_3 ^
// L_ntz(i+16), and only that last lane needs the BSF-selected L.
//
// Two XORs are folded away: the first round key together with the offset
// and the plaintext in one VPTERNLOGQ, and the offset into the last round
// key, since AESENCLAST/AESDECLAST end by XORing their key into the state.
//
// The loop is emitted once per key size so the last round key's register is
// fixed at generation time.
func wide(name string, m mode) {
	TEXT(name, NOSPLIT, "func(nr int, rk *[15][16]byte, pre *[16][16]byte, ltab *[64][16]byte, st *[2][16]byte, idx uint64, dst, src []byte)")
	if m == modeSeal {
		Doc(name+" is sealBlocks for CPUs with VAES and AVX-512, over len(src)/256",
			"groups of sixteen blocks; idx must be a multiple of sixteen.")
	} else {
		Doc(name+" is openBlocks for CPUs with VAES and AVX-512, over len(src)/256",
			"groups of sixteen blocks; idx must be a multiple of sixteen.")
	}
	Pragma("noescape")

	var (
		in      = []VecPhysical{Z0, Z1, Z2, Z3}
		offs    = []VecPhysical{Z4, Z5, Z6, Z7}
		pres    = []VecPhysical{Z8, Z9, Z10, Z11}
		off     = Z12 // Offset_i in all four lanes
		lsel    = Z13 // L_ntz(i+16) in all four lanes
		sum     = Z14 // four partial checksums, folded at the end
		lastK   = Z15
		keys    = []VecPhysical{Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30}
		lane3   = K1
		ternXor = Imm(0x96) // VPTERNLOG truth table of a ^ b ^ c
	)

	nr := Load(Param("nr"), GP64())
	rk := Load(Param("rk"), GP64())
	pre := Load(Param("pre"), GP64())
	ltab := Load(Param("ltab"), GP64())
	st := Load(Param("st"), GP64())
	idx := Load(Param("idx"), GP64())
	src := Load(Param("src").Base(), GP64())
	n := Load(Param("src").Len(), GP64())
	dst := Load(Param("dst").Base(), GP64())

	SHRQ(Imm(8), n)
	JZ(LabelRef("done"))

	for j, z := range pres {
		VMOVDQU64(Mem{Base: pre, Disp: 64 * j}, z)
	}
	VBROADCASTI32X4(Mem{Base: st}, off)
	// An EVEX write to an xmm register zeroes the rest of the zmm, so the
	// other three partial checksums start at zero.
	VMOVDQU64(Mem{Base: st, Disp: 16}, sum.AsX())
	k := GP64()
	MOVQ(U32(0xc0), k) // qwords 6 and 7: the fourth block of a zmm
	KMOVW(k.As32(), lane3)

	for r := 0; r < 15; r++ {
		// Keys past nr are never used; loading them is harmless as
		// the schedule array always has fifteen.
		VBROADCASTI32X4(Mem{Base: rk, Disp: 16 * r}, keys[r])
	}

	for _, rounds := range []int{10, 12, 14} {
		loop := fmt.Sprintf("loop%d", rounds)
		next := fmt.Sprintf("not%d", rounds)
		if rounds != 14 {
			CMPQ(nr, Imm(uint64(rounds)))
			JNE(LabelRef(next))
		}
		Label(loop)
		ntz := GP64()
		ADDQ(Imm(16), idx)
		BSFQ(idx, ntz)
		SHLQ(Imm(4), ntz)
		VBROADCASTI32X4(Mem{Base: ltab, Index: ntz, Scale: 1}, lsel)
		for j := range offs {
			VPXORQ(pres[j], off, offs[j])
		}
		VPXORQ(lsel, offs[3], lane3, offs[3])
		VSHUFI64X2(Imm(0xff), offs[3], offs[3], off) // next Offset_i: block 16's

		for j, x := range in {
			VMOVDQU64(Mem{Base: src, Disp: 64 * j}, x)
		}
		if m == modeSeal {
			VPTERNLOGQ(ternXor, in[0], in[1], sum)
			VPTERNLOGQ(ternXor, in[2], in[3], sum)
		}
		for j, x := range in {
			VPTERNLOGQ(ternXor, offs[j], keys[0], x)
		}
		for r := 1; r < rounds; r++ {
			for _, x := range in {
				if m == modeOpen {
					VAESDEC(keys[r], x, x)
				} else {
					VAESENC(keys[r], x, x)
				}
			}
		}
		for j, x := range in {
			VPXORQ(keys[rounds], offs[j], lastK)
			if m == modeOpen {
				VAESDECLAST(lastK, x, x)
			} else {
				VAESENCLAST(lastK, x, x)
			}
		}
		if m == modeOpen {
			VPTERNLOGQ(ternXor, in[0], in[1], sum)
			VPTERNLOGQ(ternXor, in[2], in[3], sum)
		}
		for j, x := range in {
			VMOVDQU64(x, Mem{Base: dst, Disp: 64 * j})
		}
		ADDQ(U32(256), src)
		ADDQ(U32(256), dst)
		DECQ(n)
		JNZ(LabelRef(loop))
		JMP(LabelRef("fold"))
		if rounds != 14 {
			Label(next)
		}
	}

	Label("fold")
	VEXTRACTI64X4(Imm(1), sum, lastK.AsY())
	VPXORQ(lastK.AsY(), sum.AsY(), sum.AsY())
	VEXTRACTI32X4(Imm(1), sum.AsY(), lastK.AsX())
	VPXORQ(lastK.AsX(), sum.AsX(), sum.AsX())
	VMOVDQU64(sum.AsX(), Mem{Base: st, Disp: 16})
	VMOVDQU64(off.AsX(), Mem{Base: st})
	VZEROUPPER()
	Label("done")
	RET()
}

// wideY emits the VAES/AVX2 main loop over groups of sixteen blocks, two per
// ymm register, for CPUs that have VAES without AVX-512. There are only
// sixteen ymm registers, so unlike wide the round keys are broadcast from
// memory each round (one load per eight VAESENC, which the load ports
// absorb) and the offsets are rebuilt from the prefixes instead of kept:
//
//	Y0..Y7  the sixteen blocks
//	Y8      the round key of the current round
//	Y9      Offset_i in both lanes
//	Y10     two partial checksums, folded at the end
//	Y11     the offsets of blocks 15 and 16 (the one pair that needs L_ntz)
//	Y12     the last round key, Y13 the first, both in both lanes
//	Y14/15  scratch
//
// The offset is folded into the first round (with K0) and into the last
// round key, as in wide. Each VPXOR of a prefix takes it straight from
// memory, so a pass costs 16 loads of data, 16 of prefixes and nr of keys.
func wideY(name string, m mode) {
	TEXT(name, NOSPLIT, "func(nr int, rk *[15][16]byte, pre *[16][16]byte, ltab *[64][16]byte, st *[2][16]byte, idx uint64, dst, src []byte)")
	if m == modeSeal {
		Doc(name+" is sealBlocks for CPUs with VAES and AVX2, over len(src)/256",
			"groups of sixteen blocks; idx must be a multiple of sixteen.")
	} else {
		Doc(name+" is openBlocks for CPUs with VAES and AVX2, over len(src)/256",
			"groups of sixteen blocks; idx must be a multiple of sixteen.")
	}
	Pragma("noescape")

	var (
		in     = []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7}
		key    = Y8
		off    = Y9
		sum    = Y10
		off78  = Y11
		lastK  = Y12
		firstK = Y13
		t0     = Y14
		t1     = Y15
	)

	nr := Load(Param("nr"), GP64())
	rk := Load(Param("rk"), GP64())
	pre := Load(Param("pre"), GP64())
	ltab := Load(Param("ltab"), GP64())
	st := Load(Param("st"), GP64())
	idx := Load(Param("idx"), GP64())
	src := Load(Param("src").Base(), GP64())
	n := Load(Param("src").Len(), GP64())
	dst := Load(Param("dst").Base(), GP64())
	last := lastKey(nr, rk)

	SHRQ(Imm(8), n)
	JZ(LabelRef("done"))

	VBROADCASTI128(Mem{Base: st}, off)
	// A VEX write to an xmm register zeroes the upper lane, so the second
	// partial checksum starts at zero.
	VMOVDQU(Mem{Base: st, Disp: 16}, sum.AsX())
	VBROADCASTI128(Mem{Base: rk}, firstK)
	VBROADCASTI128(Mem{Base: last}, lastK)

	for _, rounds := range []int{10, 12, 14} {
		loop := fmt.Sprintf("loop%d", rounds)
		next := fmt.Sprintf("not%d", rounds)
		if rounds != 14 {
			CMPQ(nr, Imm(uint64(rounds)))
			JNE(LabelRef(next))
		}
		Label(loop)
		ntz := GP64()
		ADDQ(Imm(16), idx)
		BSFQ(idx, ntz)
		SHLQ(Imm(4), ntz)
		// t0 = (0, L_ntz(i+16)): the low lane zeroed by the xmm load,
		// then the lanes swapped.
		VMOVDQU(Mem{Base: ltab, Index: ntz, Scale: 1}, t0.AsX())
		VPERM2I128(Imm(0x08), t0, t0, t0)
		VPXOR(Mem{Base: pre, Disp: 32 * 7}, off, off78)
		VPXOR(t0, off78, off78)

		VPXOR(firstK, off, t1) // Offset_i ^ K0
		for j, x := range in {
			VMOVDQU(Mem{Base: src, Disp: 32 * j}, x)
			if m == modeSeal {
				VPXOR(x, sum, sum)
			}
			if j < 7 {
				VPXOR(Mem{Base: pre, Disp: 32 * j}, t1, t0)
			} else {
				VPXOR(firstK, off78, t0)
			}
			VPXOR(t0, x, x)
		}
		for r := 1; r < rounds; r++ {
			VBROADCASTI128(Mem{Base: rk, Disp: 16 * r}, key)
			for _, x := range in {
				if m == modeOpen {
					VAESDEC(key, x, x)
				} else {
					VAESENC(key, x, x)
				}
			}
		}
		VPXOR(lastK, off, t1) // Offset_i ^ K_nr
		for j, x := range in {
			if j < 7 {
				VPXOR(Mem{Base: pre, Disp: 32 * j}, t1, t0)
			} else {
				VPXOR(lastK, off78, t0)
			}
			if m == modeOpen {
				VAESDECLAST(t0, x, x)
				VPXOR(x, sum, sum)
			} else {
				VAESENCLAST(t0, x, x)
			}
			VMOVDQU(x, Mem{Base: dst, Disp: 32 * j})
		}
		// The next Offset_i is block 16's, the upper lane of off78.
		VPERMQ(Imm(0xee), off78, off)
		ADDQ(U32(256), src)
		ADDQ(U32(256), dst)
		DECQ(n)
		JNZ(LabelRef(loop))
		JMP(LabelRef("fold"))
		if rounds != 14 {
			Label(next)
		}
	}

	Label("fold")
	VEXTRACTI128(Imm(1), sum, t0.AsX())
	VPXOR(t0.AsX(), sum.AsX(), sum.AsX())
	VMOVDQU(sum.AsX(), Mem{Base: st, Disp: 16})
	VMOVDQU(off.AsX(), Mem{Base: st})
	VZEROUPPER()
	Label("done")
	RET()
}
