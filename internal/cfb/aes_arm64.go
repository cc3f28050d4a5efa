//go:build !purego

package cfb

import "github.com/pgpstream/pgpstream/internal/hwf"

const (
	asmName  = "armv8 aes asm (8 blocks/pass decrypt, serial encrypt)"
	wideName = ""
)

func hasWide() bool { return false }

func decryptCFBAsmY(int, *byte, *byte, []byte, []byte) { panic("cfb: no VAES on arm64") }

// hasAES reports HWCAP_AES and HWCAP_ASIMD, read by x/sys/cpu from the
// kernel, unless --disable-hwf switched either off.
func hasAES() bool { return hwf.Has(hwf.AES) && hwf.Has(hwf.NEON) }

// The assembly is in cfb_arm64.s, hand-written: avo targets amd64 only.

// encryptBlockAsm encrypts one 16-byte block with nr rounds.
//
//go:noescape
func encryptBlockAsm(nr int, xk *byte, dst *byte, src *byte)

// decryptCFBAsm decrypts the whole 16-byte blocks of src into dst, chaining
// from and updating *iv (the previous ciphertext block).
// dst may be src itself: every ciphertext block is loaded before its
// plaintext is stored.
//
//go:noescape
func decryptCFBAsm(nr int, xk *byte, iv *byte, dst []byte, src []byte)

// encryptCFBAsm encrypts the whole 16-byte blocks of src into dst, chaining
// from and updating *iv (the previous ciphertext block).
// dst may be src itself.
//
//go:noescape
func encryptCFBAsm(nr int, xk *byte, iv *byte, dst []byte, src []byte)
