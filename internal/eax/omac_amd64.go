//go:build amd64 && !purego

package eax

import (
	"github.com/pgpstream/pgpstream/internal/aesni"
	"github.com/pgpstream/pgpstream/internal/hwf"
)

// Implementation names the engines behind the AEAD that New would build now.
func Implementation() string {
	if hwf.Has(hwf.AES) {
		return "stdlib AES-CTR + aes-ni asm OMAC"
	}
	return "stdlib AES-CTR + Go OMAC loop"
}

// macEngine holds the expanded encryption key in FIPS-197 byte order,
// round r at xk[16r:], the layout AESENC takes from memory.
type macEngine struct {
	nr int
	xk [16 * 15]byte
}

// newMACEngine returns nil when AES-NI is absent or switched off, read once
// here so a key keeps the engine it was built with.
func newMACEngine(key []byte) *macEngine {
	if !hwf.Has(hwf.AES) {
		return nil
	}
	m := &macEngine{}
	m.nr = aesni.ExpandKey(key, m.xk[:])
	return m
}

// run sets *x to the CBC-MAC chain over the whole blocks of src (at least one).
func (m *macEngine) run(x *[blockSize]byte, src []byte) {
	cbcMACAsm(m.nr, &m.xk[0], x, src)
}
