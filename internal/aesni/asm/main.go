// Command asm generates the assembly behind package aesni.
//
// Run through `go generate ./internal/aesni`; it writes aesni_amd64.s and
// aesni_amd64_stubs.go in the parent directory.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	ConstraintExpr("amd64,!purego")
	subWord()
	Generate()
}

func subWord() {
	TEXT("SubWord", NOSPLIT, "func(w uint32) uint32")
	Doc("SubWord applies the AES S-box to each byte of w, in constant time, for",
		"the key schedule (AESKEYGENASSIST's lowest lane is SubWord of lane 1).")
	Load(Param("w"), EAX)
	MOVD(EAX, X0)
	PSHUFD(Imm(0), X0, X0)
	AESKEYGENASSIST(Imm(0), X0, X1)
	MOVD(X1, EAX)
	Store(EAX, ReturnIndex(0))
	RET()
}
