package filter

import (
	"bytes"
	"io"
	"testing"

	"github.com/pgpstream/pgpstream/packet"
)

// BenchmarkSEIPDv1 measures the whole v1 pipeline in memory (literal,
// CFB+MDC, partial lengths), 64 MiB per op.
func BenchmarkSEIPDv1(b *testing.B) {
	const size = 64 << 20
	plain := make([]byte, size)
	ct := encryptSym(b, plain, EncryptOptions{Cipher: packet.CipherAES128})
	b.Run("encrypt", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if _, err := Encrypt(bytes.NewReader(plain), io.Discard, EncryptOptions{Cipher: packet.CipherAES128, Passphrase: []byte("pw"), S2KCount: 1024}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decrypt", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			if _, err := Decrypt(bytes.NewReader(ct), io.Discard, DecryptOptions{Keys: passKeys{[]byte("pw")}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
