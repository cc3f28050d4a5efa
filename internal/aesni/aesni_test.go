//go:build (amd64 || arm64) && !purego

package aesni

import (
	"crypto/aes"
	"encoding/binary"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestExpandKeyMatchesEncryption checks the schedule by encrypting with it
// in plain Go (the FIPS-197 rounds, S-box through SubWord) against
// crypto/aes, for every key size.
func TestExpandKeyMatchesEncryption(t *testing.T) {
	if !cpu.X86.HasAES && !cpu.ARM64.HasAES {
		t.Skip("no AES instructions")
	}
	for _, size := range []int{16, 24, 32} {
		key := make([]byte, size)
		for i := range key {
			key[i] = byte(i*29 + size)
		}
		var xk [240]byte
		nr := ExpandKey(key, xk[:])
		if nr != size/4+6 {
			t.Fatalf("AES-%d: %d rounds", size*8, nr)
		}
		// The first round key is the key itself; the last differs for
		// each size: compare the whole schedule's effect on one block.
		in := []byte("0123456789abcdef")
		want := make([]byte, 16)
		c, _ := aes.NewCipher(key)
		c.Encrypt(want, in)
		if got := encryptGo(xk[:], nr, in); string(got) != string(want) {
			t.Fatalf("AES-%d: schedule gives %x, crypto/aes %x", size*8, got, want)
		}
	}
}

func xtime(b byte) byte { return b<<1 ^ (b>>7)*0x1b }

func encryptGo(xk []byte, nr int, in []byte) []byte {
	var s [16]byte
	copy(s[:], in)
	addKey := func(r int) {
		for i := range s {
			s[i] ^= xk[16*r+i]
		}
	}
	sub := func() {
		for i := 0; i < 16; i += 4 {
			binary.BigEndian.PutUint32(s[i:], SubWord(binary.BigEndian.Uint32(s[i:])))
		}
	}
	shift := func() {
		var o [16]byte
		for c := 0; c < 4; c++ {
			for r := 0; r < 4; r++ {
				o[4*c+r] = s[4*((c+r)%4)+r]
			}
		}
		s = o
	}
	mix := func() {
		for c := 0; c < 4; c++ {
			a := s[4*c : 4*c+4]
			x := a[0] ^ a[1] ^ a[2] ^ a[3]
			a0 := a[0]
			a[0] ^= x ^ xtime(a[0]^a[1])
			a[1] ^= x ^ xtime(a[1]^a[2])
			a[2] ^= x ^ xtime(a[2]^a[3])
			a[3] ^= x ^ xtime(a[3]^a0)
		}
	}
	addKey(0)
	for r := 1; r < nr; r++ {
		sub()
		shift()
		mix()
		addKey(r)
	}
	sub()
	shift()
	addKey(nr)
	return s[:]
}
