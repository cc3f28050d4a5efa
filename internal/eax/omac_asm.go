//go:build (amd64 || arm64) && !purego

package eax

import "github.com/pgpstream/pgpstream/internal/aesni"

// Implementation names the engines behind the AEAD that New would build now.
func Implementation() string {
	if hasAES() {
		return "stdlib AES-CTR + " + asmName
	}
	return "stdlib AES-CTR + Go OMAC loop"
}

// macEngine holds the expanded encryption key in FIPS-197 byte order,
// round r at xk[16r:], the layout AESENC and AESE take from memory.
type macEngine struct {
	nr int
	xk [16 * 15]byte
}

// newMACEngine returns nil when the AES instructions are absent or switched
// off, read once here so a key keeps the engine it was built with.
func newMACEngine(key []byte) *macEngine {
	if !hasAES() {
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
