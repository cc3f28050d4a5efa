//go:build !purego

#include "textflag.h"

// The OCB engine for the ARMv8 Cryptography Extensions. AESE is AddRoundKey,
// SubBytes and ShiftRows; AESMC is MixColumns. Cores from the Cortex-A57 on
// fuse an AESE with the AESMC that follows it on the same register, so the
// pairs below are always adjacent, and eight blocks are interleaved so a
// core with a three-cycle pair latency and one or two pipelines always has an
// independent pair to issue.
//
// Register plan of the bulk loops (all 32 vector registers):
//	V0-V7    the eight blocks of a group
//	V8-V22   the round keys, placed so the last one is always V22 and the
//	         last AESE's always V21: AES-256 uses V8-V22, AES-192 V10-V22,
//	         AES-128 V12-V22; the rounds enter the unrolled chain at the
//	         key size's first register
//	V23      the running offset (after a group: the eighth block's);
//	         scratch for L_ntz while the offsets are made
//	V24      the checksum, or HASH's sum
//	V25-V31  the offsets of blocks one to seven of the group; before they
//	         are made and after they are spent, the checksum tree's scratch
// The round keys are the same FIPS-197 byte order as on amd64; AESD and
// AESIMC take the equivalent-inverse-cipher schedule, as AESDEC does.

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
#define DEC1(K, X) AESD K.B16, X.B16; AESIMC X.B16, X.B16

#define ENC8(K) \
	ENC1(K, V0); ENC1(K, V1); ENC1(K, V2); ENC1(K, V3) \
	ENC1(K, V4); ENC1(K, V5); ENC1(K, V6); ENC1(K, V7)

#define DEC8(K) \
	DEC1(K, V0); DEC1(K, V1); DEC1(K, V2); DEC1(K, V3) \
	DEC1(K, V4); DEC1(K, V5); DEC1(K, V6); DEC1(K, V7)

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

// SUM8 folds V0-V7 into the checksum V24 as a tree, so the checksum's own
// chain is one EOR per group instead of eight.
#define SUM8 \
	VEOR V0.B16, V1.B16, V25.B16; VEOR V2.B16, V3.B16, V26.B16 \
	VEOR V4.B16, V5.B16, V27.B16; VEOR V6.B16, V7.B16, V28.B16 \
	VEOR V25.B16, V26.B16, V25.B16; VEOR V27.B16, V28.B16, V27.B16 \
	VEOR V25.B16, V27.B16, V25.B16; VEOR V25.B16, V24.B16, V24.B16

// OFFSETS computes the group's offsets from the running offset V23, the
// prefixes at R2 and R11 (R2+64) and L_ntz(idx+8) (idx in R5, table at R3):
// V25-V31 = Offset_i ^ pre[0..6], V23 = Offset_{i+8}. It touches no other
// register, so the data may already be loaded; L_ntz is loaded into V23
// once the old offset is spent.
#define OFFSETS \
	ADD    $8, R5 \
	RBIT   R5, R9 \
	CLZ    R9, R9 \
	ADD    R9<<4, R3, R10 \
	VLD1   (R2), [V25.B16, V26.B16, V27.B16, V28.B16] \
	VLD1   (R11), [V29.B16, V30.B16, V31.B16] \
	VEOR   V23.B16, V25.B16, V25.B16; VEOR V23.B16, V26.B16, V26.B16 \
	VEOR   V23.B16, V27.B16, V27.B16; VEOR V23.B16, V28.B16, V28.B16 \
	VEOR   V23.B16, V29.B16, V29.B16; VEOR V23.B16, V30.B16, V30.B16 \
	VEOR   V23.B16, V31.B16, V31.B16 \
	VLD1   (R10), [V23.B16] \
	VEOR   V31.B16, V23.B16, V23.B16

// BULKARGS loads the bulk loops' arguments; R8 is the number of groups.
#define BULKARGS \
	MOVD nr+0(FP), R0 \
	MOVD rk+8(FP), R1 \
	MOVD pre+16(FP), R2 \
	MOVD ltab+24(FP), R3 \
	MOVD st+32(FP), R4 \
	MOVD idx+40(FP), R5 \
	ADD  $64, R2, R11

// func subWord(w uint32) uint32
// AESE with a zero key on w in all four columns is SubBytes of w: ShiftRows
// moves nothing when the columns are equal.
TEXT ·subWord(SB), NOSPLIT, $0-12
	MOVWU w+0(FP), R0
	VDUP  R0, V0.S4
	VEOR  V1.B16, V1.B16, V1.B16
	AESE  V1.B16, V0.B16
	VMOV  V0.S[0], R0
	MOVW  R0, ret+8(FP)
	RET

// func invMixColumns(dst, src *[16]byte)
TEXT ·invMixColumns(SB), NOSPLIT, $0-16
	MOVD   dst+0(FP), R0
	MOVD   src+8(FP), R1
	VLD1   (R1), [V0.B16]
	AESIMC V0.B16, V0.B16
	VST1   [V0.B16], (R0)
	RET

// func encrypt8(nr int, rk *[15][16]byte, buf *[8][16]byte)
TEXT ·encrypt8(SB), NOSPLIT, $0-24
	MOVD nr+0(FP), R0
	MOVD rk+8(FP), R1
	MOVD buf+16(FP), R2
	LOADKEYS
	VLD1 (R2), [V0.B16, V1.B16, V2.B16, V3.B16]
	ADD  $64, R2, R3
	VLD1 (R3), [V4.B16, V5.B16, V6.B16, V7.B16]
	ROUNDS8(ENC8, AESE, enc12, enc10)
	XOR8(V22, V22, V22, V22, V22, V22, V22, V22)
	VST1 [V0.B16, V1.B16, V2.B16, V3.B16], (R2)
	VST1 [V4.B16, V5.B16, V6.B16, V7.B16], (R3)
	RET

// func decrypt8(nr int, rk *[15][16]byte, buf *[8][16]byte)
TEXT ·decrypt8(SB), NOSPLIT, $0-24
	MOVD nr+0(FP), R0
	MOVD rk+8(FP), R1
	MOVD buf+16(FP), R2
	LOADKEYS
	VLD1 (R2), [V0.B16, V1.B16, V2.B16, V3.B16]
	ADD  $64, R2, R3
	VLD1 (R3), [V4.B16, V5.B16, V6.B16, V7.B16]
	ROUNDS8(DEC8, AESD, dec12, dec10)
	XOR8(V22, V22, V22, V22, V22, V22, V22, V22)
	VST1 [V0.B16, V1.B16, V2.B16, V3.B16], (R2)
	VST1 [V4.B16, V5.B16, V6.B16, V7.B16], (R3)
	RET

// func sealBlocks(nr int, rk *[15][16]byte, pre *[8][16]byte, ltab *[64][16]byte, st *[2][16]byte, idx uint64, dst []byte, src []byte)
TEXT ·sealBlocks(SB), NOSPLIT, $0-96
	BULKARGS
	MOVD dst_base+48(FP), R6
	MOVD src_base+72(FP), R7
	MOVD src_len+80(FP), R8
	LSR  $7, R8
	CBZ  R8, sealdone
	LOADKEYS
	VLD1 (R4), [V23.B16, V24.B16]

sealloop:
	// The checksum is of the plaintext: fold it as a tree while V25-V28
	// are still free, before the offsets take them (an in-order core such
	// as the Cortex-A53 would stall on eight EORs in a chain).
	VLD1.P 64(R7), [V0.B16, V1.B16, V2.B16, V3.B16]
	VLD1.P 64(R7), [V4.B16, V5.B16, V6.B16, V7.B16]
	SUM8
	OFFSETS
	XOR8(V25, V26, V27, V28, V29, V30, V31, V23)
	ROUNDS8(ENC8, AESE, seal12, seal10)
	XOR8(V22, V22, V22, V22, V22, V22, V22, V22)
	XOR8(V25, V26, V27, V28, V29, V30, V31, V23)
	VST1.P [V0.B16, V1.B16, V2.B16, V3.B16], 64(R6)
	VST1.P [V4.B16, V5.B16, V6.B16, V7.B16], 64(R6)
	SUBS   $1, R8
	BNE    sealloop

	VST1 [V23.B16, V24.B16], (R4)

sealdone:
	RET

// func openBlocks(nr int, rk *[15][16]byte, pre *[8][16]byte, ltab *[64][16]byte, st *[2][16]byte, idx uint64, dst []byte, src []byte)
TEXT ·openBlocks(SB), NOSPLIT, $0-96
	BULKARGS
	MOVD dst_base+48(FP), R6
	MOVD src_base+72(FP), R7
	MOVD src_len+80(FP), R8
	LSR  $7, R8
	CBZ  R8, opendone
	LOADKEYS
	VLD1 (R4), [V23.B16, V24.B16]

openloop:
	OFFSETS
	VLD1.P 64(R7), [V0.B16, V1.B16, V2.B16, V3.B16]
	VLD1.P 64(R7), [V4.B16, V5.B16, V6.B16, V7.B16]
	XOR8(V25, V26, V27, V28, V29, V30, V31, V23)
	ROUNDS8(DEC8, AESD, open12, open10)
	XOR8(V22, V22, V22, V22, V22, V22, V22, V22)
	XOR8(V25, V26, V27, V28, V29, V30, V31, V23)
	VST1.P [V0.B16, V1.B16, V2.B16, V3.B16], 64(R6)
	VST1.P [V4.B16, V5.B16, V6.B16, V7.B16], 64(R6)
	// The offsets are spent: their registers hold the checksum tree.
	SUM8
	SUBS   $1, R8
	BNE    openloop

	VST1 [V23.B16, V24.B16], (R4)

opendone:
	RET

// func hashBlocks(nr int, rk *[15][16]byte, pre *[8][16]byte, ltab *[64][16]byte, st *[2][16]byte, idx uint64, src []byte)
TEXT ·hashBlocks(SB), NOSPLIT, $0-72
	BULKARGS
	MOVD src_base+48(FP), R7
	MOVD src_len+56(FP), R8
	LSR  $7, R8
	CBZ  R8, hashdone
	LOADKEYS
	VLD1 (R4), [V23.B16, V24.B16]

hashloop:
	OFFSETS
	VLD1.P 64(R7), [V0.B16, V1.B16, V2.B16, V3.B16]
	VLD1.P 64(R7), [V4.B16, V5.B16, V6.B16, V7.B16]
	XOR8(V25, V26, V27, V28, V29, V30, V31, V23)
	ROUNDS8(ENC8, AESE, hash12, hash10)
	XOR8(V22, V22, V22, V22, V22, V22, V22, V22)
	SUM8
	SUBS   $1, R8
	BNE    hashloop

	VST1 [V23.B16, V24.B16], (R4)

hashdone:
	RET
