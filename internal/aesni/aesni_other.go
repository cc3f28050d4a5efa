//go:build !amd64 || purego

package aesni

// SubWord applies the AES S-box to each byte of w. Only the AES-NI
// engines call it, and they exist only on amd64; elsewhere it is never
// reached.
func SubWord(w uint32) uint32 { panic("aesni: no AES-NI on this build") }
