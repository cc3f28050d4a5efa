package packet

import (
	"bytes"
	"errors"
	"testing"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
)

// fakeECDH is a key held elsewhere: it checks what PKESK.Decrypt hands
// it and answers with a fixed session key block.
type fakeECDH struct {
	t                  *testing.T
	ephemeral, wrapped []byte
	block              []byte
	err                error
}

func (f *fakeECDH) DecryptECDH(e, w []byte) ([]byte, error) {
	if !bytes.Equal(e, f.ephemeral) || !bytes.Equal(w, f.wrapped) {
		f.t.Errorf("DecryptECDH(%x, %x), want (%x, %x)", e, w, f.ephemeral, f.wrapped)
	}
	return f.block, f.err
}

func TestPKESKECDHDecrypter(t *testing.T) {
	e := append([]byte{0x40}, bytes.Repeat([]byte{7}, 32)...)
	wrapped := bytes.Repeat([]byte{9}, 40)
	body := []byte{3, 1, 2, 3, 4, 5, 6, 7, 8, 18, 0x01, 0x07} // 263-bit MPI
	body = append(body, e...)
	body = append(body, byte(len(wrapped)))
	body = append(body, wrapped...)
	key := bytes.Repeat([]byte{0xab}, 32)
	var sum uint16
	for _, b := range key {
		sum += uint16(b)
	}
	block := append(append([]byte{9}, key...), byte(sum>>8), byte(sum))

	p, err := ParsePKESK(body, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeECDH{t: t, ephemeral: e, wrapped: wrapped, block: block}
	priv := &gcpacket.PrivateKey{PrivateKey: f}
	got, c, err := p.Decrypt(priv)
	if err != nil || c != CipherAES256 || !bytes.Equal(got, key) {
		t.Fatalf("Decrypt: %x %v %v", got, c, err)
	}

	// A wrong checksum, a key of the wrong size, the key's own error.
	bad := bytes.Clone(block)
	bad[len(bad)-1]++
	f.block = bad
	if _, _, err := p.Decrypt(priv); err == nil {
		t.Errorf("a wrong checksum was taken")
	}
	f.block = append([]byte{7}, block[1:]...) // AES-128 with 32 key bytes
	if _, _, err := p.Decrypt(priv); err == nil {
		t.Errorf("a key of the wrong size was taken")
	}
	f.block, f.err = nil, errors.New("the agent said no")
	if _, _, err := p.Decrypt(priv); err == nil || err.Error() != "the agent said no" {
		t.Errorf("the key's error: %v", err)
	}

	// Truncated fields never reach the key.
	for _, n := range []int{10, 11, 12, 12 + len(e), len(body) - 1} {
		p, err := ParsePKESK(body[:n], 0)
		if err != nil {
			continue
		}
		var te *TruncatedError
		if _, _, err := p.Decrypt(priv); !errors.As(err, &te) {
			t.Errorf("body cut at %d: %v", n, err)
		}
	}
}

type fakeElGamal struct {
	a, b, block []byte
}

func (f *fakeElGamal) DecryptElGamal(a, b []byte) ([]byte, error) {
	if !bytes.Equal(a, f.a) || !bytes.Equal(b, f.b) {
		return nil, errors.New("wrong MPIs")
	}
	return f.block, nil
}

func TestPKESKElGamalDecrypter(t *testing.T) {
	a, b := bytes.Repeat([]byte{0x81}, 256), bytes.Repeat([]byte{0x42}, 255)
	body := []byte{3, 1, 2, 3, 4, 5, 6, 7, 8, 16, 0x08, 0x00}
	body = append(body, a...)
	body = append(body, 0x07, 0xf7)
	body = append(body, b...)
	key := bytes.Repeat([]byte{1}, 16)
	block := append(append([]byte{7}, key...), 0, 16)
	p, err := ParsePKESK(body, 0)
	if err != nil {
		t.Fatal(err)
	}
	priv := &gcpacket.PrivateKey{PrivateKey: &fakeElGamal{a, b, block}}
	if got, c, err := p.Decrypt(priv); err != nil || c != CipherAES128 || !bytes.Equal(got, key) {
		t.Fatalf("Decrypt: %x %v %v", got, c, err)
	}
	for _, n := range []int{11, 12 + 255, 12 + 256 + 1, len(body) - 1} {
		p, _ := ParsePKESK(body[:n], 0)
		var te *TruncatedError
		if _, _, err := p.Decrypt(priv); !errors.As(err, &te) {
			t.Errorf("body cut at %d: %v", n, err)
		}
	}
}
