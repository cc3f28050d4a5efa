package filter

import (
	"bytes"
	"io"
	"testing"

	"github.com/pgpstream/pgpstream/iobuf"
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

// BenchmarkSEIPDv1Partial decrypts the message as gpg writes it from a
// pipe: SEIPD and literal packet both in 8 KiB partial lengths.
func BenchmarkSEIPDv1Partial(b *testing.B) {
	const size = 64 << 20
	key := bytes.Repeat([]byte{7}, 16)
	lit := reframe(packet.TagLiteral, append(packet.Literal{Format: 'b'}.Append(nil), make([]byte, size)...), 8<<10)
	var body bytes.Buffer
	mw, err := NewMDCWriter(iobuf.NewWriter(&body, 0), packet.CipherAES128, key)
	if err != nil {
		b.Fatal(err)
	}
	mw.Write(lit)
	if err := mw.Close(); err != nil {
		b.Fatal(err)
	}
	var msg bytes.Buffer
	if err := packet.WriteSKESK(&msg, packet.CipherAES128, key, []byte("pw"), false, 1024); err != nil {
		b.Fatal(err)
	}
	msg.Write(reframe(packet.TagSEIPD, body.Bytes(), 8<<10))
	b.SetBytes(size)
	for b.Loop() {
		if _, err := Decrypt(bytes.NewReader(msg.Bytes()), io.Discard, DecryptOptions{Keys: passKeys{[]byte("pw")}}); err != nil {
			b.Fatal(err)
		}
	}
}
