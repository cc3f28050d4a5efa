package inspect

import (
	"slices"
	"testing"
)

// TestDescribeSecretS2K: the protected secret key's specifier is read
// by packet.ParseS2K, so Argon2 (which names no hash) lists its own
// parameters, and an AEAD-protected key its mode's nonce as the IV.
func TestDescribeSecretS2K(t *testing.T) {
	salt := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	nonce := make([]byte, 15) // OCB
	for i := range nonce {
		nonce[i] = byte(0xa0 + i)
	}
	// v6, usage 253: count, cipher 9, AEAD 2 (OCB), S2K length 20, Argon2.
	body := append([]byte{253, 44, 9, 2, 20, 4}, salt...)
	body = append(body, 1, 4, 21)
	body = append(body, nonce...)
	body = append(body, 0xff, 0xff)
	got := describeSecret(6, 27, 1, 1, body)
	want := []string{
		"argon2 S2K, algo: 9, AEAD protection, salt: 0102030405060708090A0B0C0D0E0F10, passes: 1, parallelism: 4, memory: 2097152 KiB",
		"protect IV:  a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 aa ab ac ad ae",
		"skey[1]: [v4 protected]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	// Cut inside the Argon2 parameters: what is there, no panic.
	if got := describeSecret(6, 27, 1, 1, body[:12]); len(got) == 0 {
		t.Error("nothing listed for a cut specifier")
	}
}
