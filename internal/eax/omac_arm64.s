//go:build !purego

#include "textflag.h"

// LOADKEYS loads the schedule at R1 into V8-V22 as described above.
#define LOADKEYS \
	CMP    $12, R0 \
	BLT    keys10 \
	BEQ    keys12 \
	VLD1.P 64(R1), [V8.B16, V9.B16, V10.B16, V11.B16] \
	VLD1.P 64(R1), [V12.B16, V13.B16, V14.B16, V15.B16] \
	VLD1.P 64(R1), [V16.B16, V17.B16, V18.B16, V19.B16] \
	VLD1   (R1), [V20.B16, V21.B16, V22.B16] \
	B      keysdone \
keys12: \
	VLD1.P 64(R1), [V10.B16, V11.B16, V12.B16, V13.B16] \
	VLD1.P 64(R1), [V14.B16, V15.B16, V16.B16, V17.B16] \
	VLD1.P 64(R1), [V18.B16, V19.B16, V20.B16, V21.B16] \
	VLD1   (R1), [V22.B16] \
	B      keysdone \
keys10: \
	VLD1.P 64(R1), [V12.B16, V13.B16, V14.B16, V15.B16] \
	VLD1.P 64(R1), [V16.B16, V17.B16, V18.B16, V19.B16] \
	VLD1   (R1), [V20.B16, V21.B16, V22.B16] \
keysdone:

#define ENC1(K, X) AESE K.B16, X.B16; AESMC X.B16, X.B16

// func cbcMACAsm(nr int, xk *byte, x *[16]byte, src []byte)
//
// X_i = E(X_{i-1} xor M_i) on the ARMv8 Cryptography Extensions. The chain
// is bound by the latency of the rounds, so nothing else is on it: the
// chain value is kept as Y = X xor K_nr (the last AddRoundKey left undone)
// and the next block enters through the first AESE's key operand,
// M_i xor K0 xor K_nr, computed off the chain (V1). So a block costs nr
// AESE and nr-1 AESMC on the chain and nothing more; cores that fuse the
// pairs run it at about nr times the pair latency.
//
// Registers: V8-V22 the round keys as in the other engines (last key V22,
// last AESE's V21, AES-128 from V12), V23 = K0 xor K_nr, V0 the chain.
TEXT ·cbcMACAsm(SB), NOSPLIT, $0-48
	MOVD nr+0(FP), R0
	MOVD xk+8(FP), R1
	MOVD x+16(FP), R2
	MOVD src_base+24(FP), R3
	MOVD src_len+32(FP), R4
	LSR  $4, R4
	VLD1 (R1), [V24.B16]
	LOADKEYS
	VEOR V24.B16, V22.B16, V23.B16
	VLD1 (R2), [V0.B16]
	VEOR V22.B16, V0.B16, V0.B16

macloop:
	VLD1.P 16(R3), [V1.B16]
	VEOR   V23.B16, V1.B16, V1.B16
	ENC1(V1, V0)
	CMP    $12, R0
	BLT    mac10
	BEQ    mac12
	ENC1(V9, V0); ENC1(V10, V0)

mac12:
	ENC1(V11, V0); ENC1(V12, V0)

mac10:
	ENC1(V13, V0); ENC1(V14, V0); ENC1(V15, V0); ENC1(V16, V0)
	ENC1(V17, V0); ENC1(V18, V0); ENC1(V19, V0); ENC1(V20, V0)
	AESE   V21.B16, V0.B16
	SUBS   $1, R4
	BNE    macloop

	VEOR V22.B16, V0.B16, V0.B16
	VST1 [V0.B16], (R2)
	RET
