//go:build (!amd64 && !arm64) || purego

package eax

// Implementation names the engines behind the AEAD that New would build now.
func Implementation() string { return "stdlib AES-CTR + Go OMAC loop" }

// macEngine has no assembly to offer on this build; newMACEngine always
// returns nil and run is never called.
type macEngine struct{}

func newMACEngine(key []byte) *macEngine { return nil }

func (m *macEngine) run(x *[blockSize]byte, src []byte) { panic("eax: no OMAC engine") }
