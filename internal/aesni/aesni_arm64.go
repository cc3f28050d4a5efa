//go:build arm64 && !purego

package aesni

// SubWord applies the AES S-box to each byte of w, in constant time, for
// the key schedule; on arm64 through AESE (see aesni_arm64.s).
func SubWord(w uint32) uint32
