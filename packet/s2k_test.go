package packet

import (
	"bytes"
	"crypto/rand"
	"testing"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/ProtonMail/go-crypto/openpgp/s2k"

	"github.com/pgpstream/pgpstream/iobuf"
)

// iteratedS2K agrees with go-crypto's S2K over the edge cases of the
// repetition: a count below one period, one period exactly, counts that
// cut a period and the block, several contexts (keys longer than the hash).
func TestIteratedS2KMatchesGoCrypto(t *testing.T) {
	for _, h := range []HashAlgo{HashSHA1, HashSHA256, HashSHA512} {
		for _, pass := range []string{"", "pw", "a passphrase of some length", string(bytes.Repeat([]byte("x"), 70000))} {
			for _, count := range []int{1, 8 + len(pass), 1024, 65537, s2kBlock + 3, 1 << 20} {
				for _, keyLen := range []int{16, 32, 64, 100} {
					var salt [8]byte
					rand.Read(salt[:])
					want := make([]byte, keyLen)
					s2k.Iterated(want, h.Crypto().New(), []byte(pass), salt[:], count)
					got := make([]byte, keyLen)
					if err := iteratedS2K(got, h, salt[:], []byte(pass), count); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want) {
						t.Fatalf("%v, passphrase of %d, count %d, key %d: %x, go-crypto %x", h, len(pass), count, keyLen, got, want)
					}
				}
			}
		}
	}
}

// The simple and salted S2Ks are iteratedS2K without salt, or with the
// input once: go-crypto's Simple and Salted give the same keys.
func TestSimpleSaltedS2KMatchGoCrypto(t *testing.T) {
	for _, h := range []HashAlgo{HashSHA1, HashSHA256, HashSHA512} {
		for _, pass := range []string{"", "pw", "a passphrase of some length"} {
			for _, keyLen := range []int{16, 32, 100} {
				salt := make([]byte, 8)
				rand.Read(salt)
				want, got := make([]byte, keyLen), make([]byte, keyLen)
				s2k.Simple(want, h.Crypto().New(), []byte(pass))
				if iteratedS2K(got, h, nil, []byte(pass), 0); !bytes.Equal(got, want) {
					t.Fatalf("simple %v %q %d: %x, go-crypto %x", h, pass, keyLen, got, want)
				}
				s2k.Salted(want, h.Crypto().New(), []byte(pass), salt)
				if iteratedS2K(got, h, salt, []byte(pass), 0); !bytes.Equal(got, want) {
					t.Fatalf("salted %v %q %d: %x, go-crypto %x", h, pass, keyLen, got, want)
				}
			}
		}
	}
}

// Version 4 SKESKs with an iterated S2K, with and without an encrypted
// session key and over several hashes, open to what go-crypto makes of
// them; a wrong passphrase gives no session key.
func TestSKESKv4IteratedDecrypt(t *testing.T) {
	var bodies [][]byte
	for _, c := range []CipherAlgo{CipherAES128, CipherAES256} {
		sk := make([]byte, c.KeySize())
		rand.Read(sk)
		var buf bytes.Buffer
		if err := WriteSKESK(&buf, c, sk, []byte("pw"), false, 1<<16); err != nil {
			t.Fatal(err)
		}
		r := iobuf.NewReader(bytes.NewReader(buf.Bytes()), 0)
		h, err := ReadHeader(r)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, buf.Bytes()[len(buf.Bytes())-int(h.Length):])
		for _, hash := range []HashAlgo{HashSHA1, HashSHA256, HashSHA512} {
			// No encrypted session key: the S2K output is the key.
			b := []byte{4, byte(c), 3, byte(hash), 1, 2, 3, 4, 5, 6, 7, 8, 0x60}
			bodies = append(bodies, b)
		}
	}
	for _, b := range bodies {
		s, err := ParseSKESK(b, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok, _ := s.decryptV4Iterated([]byte("pw")); !ok {
			t.Fatalf("%x: not decrypted by our S2K", b)
		}
		pkt := append(AppendHeader(nil, TagSKESK, int64(len(b))), b...)
		gp, err := gcpacket.Read(bytes.NewReader(pkt))
		if err != nil {
			t.Fatal(err)
		}
		wantKey, wantC, err := gp.(*gcpacket.SymmetricKeyEncrypted).Decrypt([]byte("pw"))
		if err != nil {
			t.Fatal(err)
		}
		key, c, err := s.Decrypt([]byte("pw"))
		if err != nil || c != CipherAlgo(wantC) || !bytes.Equal(key, wantKey) {
			t.Fatalf("%x: %x %v %v, go-crypto %x %v", b, key, c, err, wantKey, wantC)
		}
		if key2, _, err := s.Decrypt([]byte("wrong")); err == nil && bytes.Equal(key2, key) {
			t.Fatalf("%x: a wrong passphrase gave the session key", b)
		}
	}
}

// What writeSKESKv4 writes, go-crypto opens to the same session key, and
// the count it codes is the smallest one at least as large as asked.
func TestWriteSKESKv4GoCryptoReads(t *testing.T) {
	for _, c := range []CipherAlgo{CipherAES128, CipherAES192, CipherAES256} {
		for _, count := range []int{1024, 65536 + 1, S2KCount} {
			sk := make([]byte, c.KeySize())
			rand.Read(sk)
			var buf bytes.Buffer
			if err := WriteSKESK(&buf, c, sk, []byte("pw"), false, count); err != nil {
				t.Fatal(err)
			}
			gp, err := gcpacket.Read(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			key, gc, err := gp.(*gcpacket.SymmetricKeyEncrypted).Decrypt([]byte("pw"))
			if err != nil || CipherAlgo(gc) != c || !bytes.Equal(key, sk) {
				t.Fatalf("%v, count %d: go-crypto read %x %v %v, want %x", c, count, key, gc, err, sk)
			}
			coded := buf.Bytes()[2+12]
			if got := decodeS2KCount(coded); got < count || (coded > 0 && decodeS2KCount(coded-1) >= count) {
				t.Fatalf("count %d coded as %d (%d octets)", count, coded, got)
			}
		}
	}
}
