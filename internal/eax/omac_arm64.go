//go:build !purego

package eax

import "github.com/pgpstream/pgpstream/internal/hwf"

const asmName = "armv8 aes asm OMAC"

// hasAES reports HWCAP_AES and HWCAP_ASIMD, read by x/sys/cpu from the
// kernel, unless --disable-hwf switched either off.
func hasAES() bool { return hwf.Has(hwf.AES) && hwf.Has(hwf.NEON) }

// cbcMACAsm sets *x = E(...E(E(*x xor M_1) xor M_2)... xor M_n) over the
// n = len(src)/16 whole blocks of src; n must be at least 1. It is in
// omac_arm64.s, hand-written: avo targets amd64 only.
//
//go:noescape
func cbcMACAsm(nr int, xk *byte, x *[16]byte, src []byte)
