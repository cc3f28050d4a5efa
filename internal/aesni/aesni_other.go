//go:build (!amd64 && !arm64) || purego

package aesni

// SubWord applies the AES S-box to each byte of w. Only the AES
// instruction engines call it, and they exist only on amd64 and arm64;
// elsewhere it is never reached.
func SubWord(w uint32) uint32 { panic("aesni: no AES instructions on this build") }
