// Command asm generates the AES-NI assembly behind package eax's OMAC.
//
// Run through `go generate ./internal/eax`; it writes omac_amd64.s and
// omac_amd64_stubs.go in the parent directory.
//
// Round keys are a byte array in FIPS-197 order (round r at offset 16*r),
// loaded with MOVOU so they need no alignment.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	ConstraintExpr("amd64,!purego")
	cbcMAC()
	Generate()
}

func vec(i int) VecPhysical {
	return []VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15}[i]
}

func roundKey(xk GPPhysical, r int) Mem { return Mem{Base: xk, Disp: 16 * r} }

// cbcMAC: X_i = E(X_{i-1} xor M_i) is a chain bound by the latency of nr AES
// rounds per block, so everything else is kept off it:
//   - the middle round keys stay in registers;
//   - the chain value is kept as X xor K0 xor M_next, because the last round
//     can absorb the next block and the next K0 at once: AESENCLAST with
//     (K_nr xor K0 xor M_next) as its key yields the next round-0 state;
//   - the next block's load and XOR do not depend on the chain.
//
// Register use for 14 rounds: X0 chain, X1..X13 keys, X14 K_nr^K0, X15 scratch.
func cbcMAC() {
	TEXT("cbcMACAsm", NOSPLIT, "func(nr int, xk *byte, x *[16]byte, src []byte)")
	Pragma("noescape")
	Doc("cbcMACAsm sets *x = E(...E(E(*x xor M_1) xor M_2)... xor M_n) over the",
		"n = len(src)/16 whole blocks of src; n must be at least 1.")
	Load(Param("nr"), RDX)
	Load(Param("xk"), RAX)
	Load(Param("x"), RBX)
	Load(Param("src").Base(), RSI)
	Load(Param("src").Len(), RCX)
	SHRQ(Imm(4), RCX)
	DECQ(RCX)
	MOVOU(Mem{Base: RBX}, X0)
	MOVOU(roundKey(RAX, 0), X15)
	PXOR(X15, X0)
	MOVOU(Mem{Base: RSI}, X15)
	PXOR(X15, X0)
	CMPQ(RDX, Imm(12))
	JB(LabelRef("mac_10"))
	JE(LabelRef("mac_12"))
	JMP(LabelRef("mac_14"))

	for _, nr := range []int{10, 12, 14} {
		p := fmt.Sprintf("mac_%d", nr)
		Label(p)
		for r := 1; r < nr; r++ {
			MOVOU(roundKey(RAX, r), vec(r))
		}
		MOVOU(roundKey(RAX, nr), X14)
		MOVOU(roundKey(RAX, 0), X15)
		PXOR(X15, X14)
		TESTQ(RCX, RCX)
		JZ(LabelRef(p + "_last"))

		Label(p + "_loop")
		MOVOU(Mem{Base: RSI, Disp: 16}, X15)
		PXOR(X14, X15)
		for r := 1; r < nr; r++ {
			AESENC(vec(r), X0)
		}
		AESENCLAST(X15, X0)
		ADDQ(Imm(16), RSI)
		DECQ(RCX)
		JNZ(LabelRef(p + "_loop"))

		Label(p + "_last")
		for r := 1; r < nr; r++ {
			AESENC(vec(r), X0)
		}
		AESENCLAST(X14, X0)
		JMP(LabelRef("mac_done"))
	}

	// The chain value still carries K0; take it off.
	Label("mac_done")
	MOVOU(roundKey(RAX, 0), X15)
	PXOR(X15, X0)
	MOVOU(X0, Mem{Base: RBX})
	RET()
}
