package camellia

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// The test vectors of RFC 3713 Appendix A.
func TestRFC3713(t *testing.T) {
	pt, _ := hex.DecodeString("0123456789abcdeffedcba9876543210")
	for _, c := range []struct{ key, ct string }{
		{"0123456789abcdeffedcba9876543210", "67673138549669730857065648eabe43"},
		{"0123456789abcdeffedcba98765432100011223344556677", "b4993401b3e996f84ee5cee7d79b09b9"},
		{"0123456789abcdeffedcba987654321000112233445566778899aabbccddeeff", "9acc237dff16d76c20ef7c919e3a7509"},
	} {
		key, _ := hex.DecodeString(c.key)
		want, _ := hex.DecodeString(c.ct)
		b, err := NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 16)
		b.Encrypt(got, pt)
		if !bytes.Equal(got, want) {
			t.Errorf("%d-bit key: Encrypt = %x, want %x", 8*len(key), got, want)
		}
		b.Decrypt(got, want)
		if !bytes.Equal(got, pt) {
			t.Errorf("%d-bit key: Decrypt = %x, want %x", 8*len(key), got, pt)
		}
	}
	if _, err := NewCipher(make([]byte, 20)); err == nil {
		t.Error("20-byte key accepted")
	}
}
