//go:build !purego

package ocb

import "github.com/pgpstream/pgpstream/internal/hwf"

// The arm64 engine (ocb_arm64.s) runs the 8-block loops on the ARMv8
// Cryptography Extensions. It needs Advanced SIMD and the AES instructions
// (HWCAP_ASIMD, HWCAP_AES), which x/sys/cpu reads from the kernel.
func hasAES() bool { return hwf.Has(hwf.AES) && hwf.Has(hwf.NEON) }

func hwName() string {
	if !hasAES() {
		return ""
	}
	return "armv8 aes asm (8 blocks/pass)"
}

// arm64 has no wider AES than one block per register (SVE2's AESE on
// scalable vectors is not in any core this was written for).
func pickWide() wideKind { return wideNone }

func hasWide() bool { return false }

func (k *hwKey) sealWide(*ocbAEAD, *state, []byte, []byte) { panic("ocb: no wide loop on arm64") }
func (k *hwKey) openWide(*ocbAEAD, *state, []byte, []byte) { panic("ocb: no wide loop on arm64") }

// subWord applies the AES S-box to each byte of w.
func subWord(w uint32) uint32

// invMixColumns sets dst to InvMixColumns(src).
//
//go:noescape
func invMixColumns(dst *[16]byte, src *[16]byte)

// encrypt8 enciphers the eight blocks of buf in place with the schedule rk.
//
//go:noescape
func encrypt8(nr int, rk *[15][16]byte, buf *[8][16]byte)

// decrypt8 deciphers the eight blocks of buf in place with the inverse-cipher schedule rk.
//
//go:noescape
func decrypt8(nr int, rk *[15][16]byte, buf *[8][16]byte)

// sealBlocks encrypts len(src)/128 groups of eight blocks into dst;
// idx is the number of blocks already processed, a multiple of eight.
//
//go:noescape
func sealBlocks(nr int, rk *[15][16]byte, pre *[8][16]byte, ltab *[64][16]byte, st *[2][16]byte, idx uint64, dst []byte, src []byte)

// openBlocks decrypts len(src)/128 groups of eight blocks into dst with
// the inverse-cipher schedule rk; idx is as for sealBlocks.
//
//go:noescape
func openBlocks(nr int, rk *[15][16]byte, pre *[8][16]byte, ltab *[64][16]byte, st *[2][16]byte, idx uint64, dst []byte, src []byte)

// hashBlocks runs OCB's HASH over len(src)/128 groups of eight blocks;
// idx is the number of blocks already hashed, a multiple of eight.
//
//go:noescape
func hashBlocks(nr int, rk *[15][16]byte, pre *[8][16]byte, ltab *[64][16]byte, st *[2][16]byte, idx uint64, src []byte)
