// Command asm generates the AES-NI assembly behind package cfb.
//
// Run through `go generate ./internal/cfb`; it writes cfb_amd64.s and
// cfb_amd64_stubs.go in the parent directory.
//
// The round keys live in a byte array in FIPS-197 order (round r at offset
// 16*r), which is the byte order AESENC expects, so they are loaded with
// MOVOU and never need to be aligned. Every routine is unrolled once per key
// size (10, 12 and 14 rounds) and picks its copy with one branch on entry.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// lanes is the number of blocks one decryption pass keeps in flight. AESENC
// has a latency of about four cycles and a throughput of two per cycle on the
// cores we target, so eight independent blocks keep both AES units busy while
// leaving eight XMM registers for keys and ciphertext.
const lanes = 8

var rounds = []int{10, 12, 14}

func main() {
	ConstraintExpr("amd64,!purego")

	encryptBlock()
	decryptCFB()
	decryptCFBY()
	encryptCFB()

	Generate()
}

// vec returns X0..X15 by number.
func vec(i int) VecPhysical {
	return []VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15}[i]
}

// roundKey addresses round key r.
func roundKey(xk GPPhysical, r int) Mem { return Mem{Base: xk, Disp: 16 * r} }

// dispatch jumps to the copy of a routine unrolled for nr rounds and returns
// the label prefix for each key size.
func dispatch(name string, nr GPPhysical) {
	CMPQ(nr, Imm(12))
	JB(LabelRef(name + "_10"))
	JE(LabelRef(name + "_12"))
	JMP(LabelRef(name + "_14"))
}

func encryptBlock() {
	TEXT("encryptBlockAsm", NOSPLIT, "func(nr int, xk *byte, dst, src *byte)")
	Pragma("noescape")
	Doc("encryptBlockAsm encrypts one 16-byte block with nr rounds.")
	Load(Param("nr"), RCX)
	Load(Param("xk"), RAX)
	Load(Param("dst"), RDI)
	Load(Param("src"), RSI)
	MOVOU(Mem{Base: RSI}, X0)
	MOVOU(roundKey(RAX, 0), X1)
	PXOR(X1, X0)
	DECQ(RCX)
	Label("eb_loop")
	ADDQ(Imm(16), RAX)
	MOVOU(roundKey(RAX, 0), X1)
	AESENC(X1, X0)
	DECQ(RCX)
	JNZ(LabelRef("eb_loop"))
	MOVOU(roundKey(RAX, 1), X1)
	AESENCLAST(X1, X0)
	MOVOU(X0, Mem{Base: RDI})
	RET()
}

// decryptCFB: P_i = C_i xor E(C_{i-1}). Every E input is ciphertext that is
// already known, so eight blocks go through the rounds side by side.
func decryptCFB() {
	TEXT("decryptCFBAsm", NOSPLIT, "func(nr int, xk *byte, iv *byte, dst, src []byte)")
	Pragma("noescape")
	Doc("decryptCFBAsm decrypts the whole 16-byte blocks of src into dst, chaining",
		"from and updating *iv (the previous ciphertext block).",
		"dst may be src itself: every ciphertext block is loaded before its",
		"plaintext is stored.")
	Load(Param("nr"), RDX)
	Load(Param("xk"), RAX)
	Load(Param("iv"), RBX)
	Load(Param("dst").Base(), RDI)
	Load(Param("src").Base(), RSI)
	Load(Param("src").Len(), RCX)
	// X15 carries the previous ciphertext block from pass to pass.
	MOVOU(Mem{Base: RBX}, X15)
	dispatch("dec", RDX)

	for _, nr := range rounds {
		p := fmt.Sprintf("dec_%d", nr)
		Label(p)

		Label(p + "_wide")
		CMPQ(RCX, Imm(16*lanes))
		JB(LabelRef(p + "_tail"))
		MOVOA(X15, X0)
		for i := 1; i < lanes; i++ {
			MOVOU(Mem{Base: RSI, Disp: 16 * (i - 1)}, vec(i))
		}
		MOVOU(Mem{Base: RSI, Disp: 16 * (lanes - 1)}, X15)
		MOVOU(roundKey(RAX, 0), X8)
		for i := 0; i < lanes; i++ {
			PXOR(X8, vec(i))
		}
		for r := 1; r < nr; r++ {
			// Alternate the key register so the next load need not wait
			// for this round's AESENCs to read it.
			k := vec(8 + r%2)
			MOVOU(roundKey(RAX, r), k)
			for i := 0; i < lanes; i++ {
				AESENC(k, vec(i))
			}
		}
		MOVOU(roundKey(RAX, nr), X8)
		for i := 0; i < lanes; i++ {
			AESENCLAST(X8, vec(i))
		}
		for i := 0; i < lanes; i++ {
			c := vec(9 + i%2)
			MOVOU(Mem{Base: RSI, Disp: 16 * i}, c)
			PXOR(c, vec(i))
			MOVOU(vec(i), Mem{Base: RDI, Disp: 16 * i})
		}
		ADDQ(Imm(16*lanes), RSI)
		ADDQ(Imm(16*lanes), RDI)
		SUBQ(Imm(16*lanes), RCX)
		JMP(LabelRef(p + "_wide"))

		// Fewer than eight blocks left: one at a time. The iterations are
		// still independent, so the core overlaps them on its own.
		Label(p + "_tail")
		CMPQ(RCX, Imm(16))
		JB(LabelRef("dec_done"))
		MOVOA(X15, X0)
		MOVOU(Mem{Base: RSI}, X15)
		MOVOU(roundKey(RAX, 0), X8)
		PXOR(X8, X0)
		for r := 1; r < nr; r++ {
			k := vec(8 + r%2)
			MOVOU(roundKey(RAX, r), k)
			AESENC(k, X0)
		}
		MOVOU(roundKey(RAX, nr), X8)
		AESENCLAST(X8, X0)
		PXOR(X15, X0)
		MOVOU(X0, Mem{Base: RDI})
		ADDQ(Imm(16), RSI)
		ADDQ(Imm(16), RDI)
		SUBQ(Imm(16), RCX)
		JMP(LabelRef(p + "_tail"))
	}

	Label("dec_done")
	MOVOU(X15, Mem{Base: RBX})
	RET()
}

// encryptCFB: C_i = P_i xor E(C_{i-1}) is a chain, so the loop is bound by the
// latency of nr AES rounds per block. Everything else is kept off that chain:
//   - all middle round keys stay in registers;
//   - the chain value is kept pre-whitened (C xor K0), because the last round
//     can absorb K0 together with the plaintext: AESENCLAST with
//     (K_nr xor K0 xor P) as its key yields C xor K0 directly;
//   - C itself is recovered with a PXOR that nothing in the chain waits for.
//
// Register use for 14 rounds: X0 chain, X1..X13 keys, X14 K_nr^K0, X15 scratch.
func encryptCFB() {
	TEXT("encryptCFBAsm", NOSPLIT, "func(nr int, xk *byte, iv *byte, dst, src []byte)")
	Pragma("noescape")
	Doc("encryptCFBAsm encrypts the whole 16-byte blocks of src into dst, chaining",
		"from and updating *iv (the previous ciphertext block).",
		"dst may be src itself.")
	Load(Param("nr"), RDX)
	Load(Param("xk"), RAX)
	Load(Param("iv"), RBX)
	Load(Param("dst").Base(), RDI)
	Load(Param("src").Base(), RSI)
	Load(Param("src").Len(), RCX)
	SHRQ(Imm(4), RCX)
	MOVOU(Mem{Base: RBX}, X0)
	MOVOU(roundKey(RAX, 0), X15)
	PXOR(X15, X0)
	TESTQ(RCX, RCX)
	JZ(LabelRef("enc_done"))
	dispatch("enc", RDX)

	for _, nr := range rounds {
		p := fmt.Sprintf("enc_%d", nr)
		Label(p)
		for r := 1; r < nr; r++ {
			MOVOU(roundKey(RAX, r), vec(r))
		}
		MOVOU(roundKey(RAX, nr), X14)
		MOVOU(roundKey(RAX, 0), X15)
		PXOR(X15, X14)

		Label(p + "_loop")
		MOVOU(Mem{Base: RSI}, X15)
		PXOR(X14, X15)
		for r := 1; r < nr; r++ {
			AESENC(vec(r), X0)
		}
		AESENCLAST(X15, X0)
		MOVOU(roundKey(RAX, 0), X15)
		PXOR(X0, X15)
		MOVOU(X15, Mem{Base: RDI})
		ADDQ(Imm(16), RSI)
		ADDQ(Imm(16), RDI)
		DECQ(RCX)
		JNZ(LabelRef(p + "_loop"))
		JMP(LabelRef("enc_done"))
	}

	Label("enc_done")
	MOVOU(roundKey(RAX, 0), X15)
	PXOR(X15, X0)
	MOVOU(X0, Mem{Base: RBX})
	RET()
}

// decryptCFBY is decryptCFB with VAES on ymm registers for CPUs that have
// VAES and AVX2: sixteen blocks per pass, two per register. The cipher input
// of register j is (C_{2j-1}, C_{2j}), one unaligned 32-byte load at 16
// bytes before the pair's output, except in register 0, whose low lane is
// the chained block kept in X15. The ciphertext XOR is folded into the last
// round's key, (K_nr xor C_2j, K_nr xor C_2j+1), since VAESENCLAST ends by
// XORing its key in.
//
// Register use: Y0..Y7 blocks, Y8 round key (broadcast each round), Y9 K_nr,
// Y10 K0, Y11 scratch, X15 the previous ciphertext block.
func decryptCFBY() {
	TEXT("decryptCFBAsmY", NOSPLIT, "func(nr int, xk *byte, iv *byte, dst, src []byte)")
	Pragma("noescape")
	Doc("decryptCFBAsmY is decryptCFBAsm with VAES and AVX2 over the first",
		"len(src)/256 groups of sixteen blocks; the caller does the rest.",
		"dst may be src itself: a pass loads all it reads before it stores.")
	Load(Param("nr"), RDX)
	Load(Param("xk"), RAX)
	Load(Param("iv"), RBX)
	Load(Param("dst").Base(), RDI)
	Load(Param("src").Base(), RSI)
	Load(Param("src").Len(), RCX)
	SHRQ(Imm(8), RCX)
	JZ(LabelRef("decy_ret"))
	VMOVDQU(Mem{Base: RBX}, X15)
	VBROADCASTI128(roundKey(RAX, 0), Y10)
	last := GP64()
	MOVQ(RDX, last)
	SHLQ(Imm(4), last)
	ADDQ(RAX, last)
	VBROADCASTI128(Mem{Base: last}, Y9)
	ys := []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7}
	dispatch("decy", RDX)

	for _, nr := range rounds {
		p := fmt.Sprintf("decy_%d", nr)
		Label(p)
		VINSERTI128(Imm(1), Mem{Base: RSI}, Y15, Y0)
		for j := 1; j < 8; j++ {
			VMOVDQU(Mem{Base: RSI, Disp: 32*j - 16}, ys[j])
		}
		VMOVDQU(Mem{Base: RSI, Disp: 240}, X15)
		for _, y := range ys {
			VPXOR(Y10, y, y)
		}
		for r := 1; r < nr; r++ {
			VBROADCASTI128(roundKey(RAX, r), Y8)
			for _, y := range ys {
				VAESENC(Y8, y, y)
			}
		}
		for j, y := range ys {
			VPXOR(Mem{Base: RSI, Disp: 32 * j}, Y9, Y11)
			VAESENCLAST(Y11, y, y)
		}
		for j, y := range ys {
			VMOVDQU(y, Mem{Base: RDI, Disp: 32 * j})
		}
		ADDQ(U32(256), RSI)
		ADDQ(U32(256), RDI)
		DECQ(RCX)
		JNZ(LabelRef(p))
		JMP(LabelRef("decy_done"))
	}

	Label("decy_done")
	VMOVDQU(X15, Mem{Base: RBX})
	VZEROUPPER()
	Label("decy_ret")
	RET()
}
