//go:build arm64 && !purego

#include "textflag.h"

// func SubWord(w uint32) uint32
//
// AESE with an all-zero round key is ShiftRows(SubBytes(state)); with w
// in all four columns ShiftRows moves nothing, so every lane holds the
// S-box of w, computed without a table.
TEXT ·SubWord(SB), NOSPLIT, $0-12
	MOVWU w+0(FP), R0
	VDUP  R0, V0.S4
	VEOR  V1.B16, V1.B16, V1.B16
	AESE  V1.B16, V0.B16
	VMOV  V0.S[0], R0
	MOVW  R0, ret+8(FP)
	RET
