package packet

import (
	"bytes"
	"testing"
)

func TestSKESKS2K(t *testing.T) {
	salt := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	// v4, AES256, iterated and salted SHA-1 (gpg's default), count 255.
	v4 := append(append([]byte{4, 9, 3, 2}, salt...), 255)
	s, err := ParseSKESK(v4, 0)
	if err != nil {
		t.Fatal(err)
	}
	if mode, hash, got := s.S2K(); mode != 3 || hash != 2 || !bytes.Equal(got, salt) {
		t.Fatalf("v4: %d %d %x", mode, hash, got)
	}
	if m := s.SessionKeyMode(); m != "" {
		t.Fatalf("no session key in it: %q", m)
	}
	withKey, err := ParseSKESK(append(v4, make([]byte, 33)...), 0)
	if err != nil || withKey.SessionKeyMode() != "CFB" {
		t.Fatalf("with a session key: %v %q", err, withKey.SessionKeyMode())
	}
	short, err := ParseSKESK([]byte{4, 9, 3, 2, 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if mode, hash, got := short.S2K(); mode != 3 || hash != 2 || got != nil {
		t.Fatalf("truncated (no salt): %d %d %x", mode, hash, got)
	}
}
