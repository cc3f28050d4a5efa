//go:build !purego

#include "textflag.h"

// AES-CFB for the ARMv8 Cryptography Extensions. AESE is AddRoundKey,
// SubBytes and ShiftRows, AESMC is MixColumns; cores from the Cortex-A57 on
// fuse the two when they are adjacent on one register, so they always are.
//
// Registers: V8-V22 hold the round keys, placed so the last key is always
// V22 and the last AESE's V21 (AES-256 uses V8-V22, AES-192 V10-V22, AES-128
// V12-V22); a chain of rounds enters at the key size's first register.
// The keys are the FIPS-197 byte order package aesni lays out.

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

#define ENC8(K) \
	ENC1(K, V0); ENC1(K, V1); ENC1(K, V2); ENC1(K, V3) \
	ENC1(K, V4); ENC1(K, V5); ENC1(K, V6); ENC1(K, V7)

// ROUNDS8 runs rounds 0 to nr-2 (with MixColumns) and the last AESE/AESD
// on V0-V7, entering the chain by the key size in R0. The final round key
// (V22) is left to the caller, which XORs it together with the offsets.
#define ROUNDS8(R8, LAST, l12, l10) \
	CMP  $12, R0 \
	BLT  l10 \
	BEQ  l12 \
	R8(V8); R8(V9) \
l12: \
	R8(V10); R8(V11) \
l10: \
	R8(V12); R8(V13); R8(V14); R8(V15); R8(V16) \
	R8(V17); R8(V18); R8(V19); R8(V20) \
	LAST V21.B16, V0.B16; LAST V21.B16, V1.B16; LAST V21.B16, V2.B16; LAST V21.B16, V3.B16 \
	LAST V21.B16, V4.B16; LAST V21.B16, V5.B16; LAST V21.B16, V6.B16; LAST V21.B16, V7.B16

// XOR8(A0, ..., A7) sets Vj ^= Aj.
#define XOR8(A0, A1, A2, A3, A4, A5, A6, A7) \
	VEOR A0.B16, V0.B16, V0.B16; VEOR A1.B16, V1.B16, V1.B16 \
	VEOR A2.B16, V2.B16, V2.B16; VEOR A3.B16, V3.B16, V3.B16 \
	VEOR A4.B16, V4.B16, V4.B16; VEOR A5.B16, V5.B16, V5.B16 \
	VEOR A6.B16, V6.B16, V6.B16; VEOR A7.B16, V7.B16, V7.B16

// ROUNDS1(X, l12, l10) runs rounds 0 to nr-1 on X, all but the last
// AddRoundKey (V22), which the caller folds into its own XOR.
#define ROUNDS1(X, l12, l10) \
	CMP  $12, R0 \
	BLT  l10 \
	BEQ  l12 \
	ENC1(V8, X); ENC1(V9, X) \
l12: \
	ENC1(V10, X); ENC1(V11, X) \
l10: \
	ENC1(V12, X); ENC1(V13, X); ENC1(V14, X); ENC1(V15, X); ENC1(V16, X) \
	ENC1(V17, X); ENC1(V18, X); ENC1(V19, X); ENC1(V20, X) \
	AESE V21.B16, X.B16

// func encryptBlockAsm(nr int, xk *byte, dst *byte, src *byte)
TEXT ·encryptBlockAsm(SB), NOSPLIT, $0-32
	MOVD nr+0(FP), R0
	MOVD xk+8(FP), R1
	MOVD dst+16(FP), R2
	MOVD src+24(FP), R3
	LOADKEYS
	VLD1 (R3), [V0.B16]
	ROUNDS1(V0, eb12, eb10)
	VEOR V22.B16, V0.B16, V0.B16
	VST1 [V0.B16], (R2)
	RET

// func decryptCFBAsm(nr int, xk *byte, iv *byte, dst []byte, src []byte)
//
// P_i = C_i xor E(C_{i-1}): every cipher input is known ciphertext, so eight
// blocks go through the rounds side by side. V23-V30 keep the group's
// ciphertext for the final XOR, V31 the block before it. Each group's loads
// come before its stores, so dst may be src.
TEXT ·decryptCFBAsm(SB), NOSPLIT, $0-72
	MOVD nr+0(FP), R0
	MOVD xk+8(FP), R1
	MOVD iv+16(FP), R2
	MOVD dst_base+24(FP), R6
	MOVD src_base+48(FP), R7
	MOVD src_len+56(FP), R8
	LOADKEYS
	VLD1 (R2), [V31.B16]

decwide:
	CMP    $128, R8
	BLT    dectail
	VLD1.P 64(R7), [V23.B16, V24.B16, V25.B16, V26.B16]
	VLD1.P 64(R7), [V27.B16, V28.B16, V29.B16, V30.B16]
	VMOV   V31.B16, V0.B16
	VMOV   V23.B16, V1.B16
	VMOV   V24.B16, V2.B16
	VMOV   V25.B16, V3.B16
	VMOV   V26.B16, V4.B16
	VMOV   V27.B16, V5.B16
	VMOV   V28.B16, V6.B16
	VMOV   V29.B16, V7.B16
	VMOV   V30.B16, V31.B16
	ROUNDS8(ENC8, AESE, dec12, dec10)
	XOR8(V22, V22, V22, V22, V22, V22, V22, V22)
	XOR8(V23, V24, V25, V26, V27, V28, V29, V30)
	VST1.P [V0.B16, V1.B16, V2.B16, V3.B16], 64(R6)
	VST1.P [V4.B16, V5.B16, V6.B16, V7.B16], 64(R6)
	SUB    $128, R8
	B      decwide

// Fewer than eight blocks: one at a time. The iterations are independent,
// so an out-of-order core still overlaps them.
dectail:
	CBZ    R8, decdone
	VLD1.P 16(R7), [V23.B16]
	VMOV   V31.B16, V0.B16
	VMOV   V23.B16, V31.B16
	ROUNDS1(V0, dt12, dt10)
	VEOR   V22.B16, V0.B16, V0.B16
	VEOR   V23.B16, V0.B16, V0.B16
	VST1.P [V0.B16], 16(R6)
	SUB    $16, R8
	B      dectail

decdone:
	VST1 [V31.B16], (R2)
	RET

// func encryptCFBAsm(nr int, xk *byte, iv *byte, dst []byte, src []byte)
//
// C_i = P_i xor E(C_{i-1}) is a chain bound by the latency of the rounds;
// the last round key is XORed into P_i off the chain (V24), so the chain is
// the AESE/AESMC pairs and one EOR per block.
TEXT ·encryptCFBAsm(SB), NOSPLIT, $0-72
	MOVD nr+0(FP), R0
	MOVD xk+8(FP), R1
	MOVD iv+16(FP), R2
	MOVD dst_base+24(FP), R6
	MOVD src_base+48(FP), R7
	MOVD src_len+56(FP), R8
	LSR  $4, R8
	CBZ  R8, encdone
	LOADKEYS
	VLD1 (R2), [V0.B16]

encloop:
	VLD1.P 16(R7), [V24.B16]
	VEOR   V22.B16, V24.B16, V24.B16
	ROUNDS1(V0, enc12, enc10)
	VEOR   V24.B16, V0.B16, V0.B16
	VST1.P [V0.B16], 16(R6)
	SUBS   $1, R8
	BNE    encloop

	VST1 [V0.B16], (R2)

encdone:
	RET
