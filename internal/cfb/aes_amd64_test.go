//go:build amd64 && !purego

package cfb

import (
	"bytes"
	"crypto/aes"
	"math/rand/v2"
	"testing"

	"github.com/pgpstream/pgpstream/internal/hwf"
)

// TestKeyExpansion checks the assembly key schedule and single-block path
// against crypto/aes for every key size.
func TestKeyExpansion(t *testing.T) {
	if !hwf.Has(hwf.AES) {
		t.Skip("no AES-NI")
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, kl := range []int{16, 24, 32} {
		for range 50 {
			key, in := randBytes(r, kl), randBytes(r, 16)
			e := newAESNI(key)
			got, want := make([]byte, 16), make([]byte, 16)
			e.encrypt(got, in)
			mustAES(key).Encrypt(want, in)
			if !bytes.Equal(got, want) {
				t.Fatalf("AES-%d key %x: got %x want %x", kl*8, key, got, want)
			}
		}
	}
}

func TestImplementation(t *testing.T) {
	if !hwf.Has(hwf.AES) {
		t.Skip("no AES-NI")
	}
	want := asmName
	if hwf.Has(hwf.VAES) && hwf.Has(hwf.AVX2) {
		want = wideName
	}
	if got := Implementation(); got != want {
		t.Errorf("Implementation() = %q, want %q", got, want)
	}
	hwf.Disable(hwf.VAES)
	if got := Implementation(); got != asmName {
		t.Errorf("with vaes disabled, Implementation() = %q", got)
	}
	if s := must(NewAESDecrypter(make([]byte, 16), make([]byte, 16))); s.(*stream).eng.(*aesniEngine).wide {
		t.Error("with vaes disabled, the engine runs the VAES loop")
	}
	hwf.Enable(hwf.VAES)
	if err := hwf.Disable(hwf.AES); err != nil {
		t.Fatal(err)
	}
	defer hwf.Enable(hwf.AES)
	if got := Implementation(); got != "pure Go" {
		t.Errorf("with AES disabled, Implementation() = %q", got)
	}
	s := must(NewAESDecrypter(make([]byte, 16), make([]byte, 16)))
	if _, ok := s.(*stream).eng.(*goEngine); !ok {
		t.Errorf("with AES disabled, engine is %T", s.(*stream).eng)
	}
	_ = aes.BlockSize
}
