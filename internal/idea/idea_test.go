package idea

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// The vector of Lai's thesis ("On the design and security of block
// ciphers", 1992), repeated in the published IDEA test sets.
func TestVector(t *testing.T) {
	key, _ := hex.DecodeString("00010002000300040005000600070008")
	pt, _ := hex.DecodeString("0000000100020003")
	want, _ := hex.DecodeString("11fbed2b01986de5")
	c, err := NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 8)
	c.Encrypt(got, pt)
	if !bytes.Equal(got, want) {
		t.Fatalf("Encrypt = %x, want %x", got, want)
	}
	c.Decrypt(got, got)
	if !bytes.Equal(got, pt) {
		t.Fatalf("Decrypt = %x, want %x", got, pt)
	}
}

func TestRoundTrip(t *testing.T) {
	key := []byte("0123456789abcdef")
	c, _ := NewCipher(key)
	for i := 0; i < 256; i++ {
		pt := []byte{byte(i), 0, 0xff, byte(i * 7), 1, 0, 0, byte(255 - i)}
		ct := make([]byte, 8)
		c.Encrypt(ct, pt)
		c.Decrypt(ct, ct)
		if !bytes.Equal(ct, pt) {
			t.Fatalf("round trip %x -> %x", pt, ct)
		}
	}
	if _, err := NewCipher(key[:15]); err == nil {
		t.Fatal("15-byte key accepted")
	}
}

func TestMulInv(t *testing.T) {
	for _, x := range []uint16{0, 1, 2, 3, 0x7fff, 0xffff} {
		if x > 1 && mul(x, mulInv(x)) != 1 {
			t.Errorf("mul(%d, inv) = %d", x, mul(x, mulInv(x)))
		}
	}
	if mul(0, mulInv(0)) != 1 {
		t.Errorf("2^16 is not its own inverse")
	}
}
