package eax

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"

	goeax "github.com/ProtonMail/go-crypto/eax"

	"github.com/pgpstream/pgpstream/internal/hwf"
)

// The test vectors of the EAX paper (Bellare, Rogaway, Wagner: "The EAX
// Mode of Operation", appendix), AES-128; cipher is ciphertext || tag.
var paperVectors = []struct{ msg, key, nonce, header, cipher string }{
	{"", "233952dee4d5ed5f9b9c6d6ff80ff478", "62ec67f9c3a4a407fcb2a8c49031a8b3", "6bfb914fd07eae6b",
		"e037830e8389f27b025a2d6527e79d01"},
	{"f7fb", "91945d3f4dcbee0bf45ef52255f095a4", "becaf043b0a23d843194ba972c66debd", "fa3bfd4806eb53fa",
		"19dd5c4c9331049d0bdab0277408f67967e5"},
	{"1a47cb4933", "01f74ad64077f2e704c0f60ada3dd523", "70c3db4f0d26368400a10ed05d2bff5e", "234a3463c1264ac6",
		"d851d5bae03a59f238a23e39199dc9266626c40f80"},
	{"481c9e39b1", "d07cf6cbb7f313bdde66b727afd3c5e8", "8408dfff3c1a2b1292dc199e46b7d617", "33cce2eabff5a79d",
		"632a9d131ad4c168a4225d8e1ff755939974a7bede"},
	{"40d0c07da5e4", "35b6d0580005bbc12b0587124557d2c2", "fdb6b06676eedc5c61d74276e1f8e816", "aeb96eaebe2970e9",
		"071dfe16c675cb0677e536f73afe6a14b74ee49844dd"},
	{"4de3b35c3fc039245bd1fb7d", "bd8e6e11475e60b268784c38c62feb22", "6eac5c93072d8e8513f750935e46da1b", "d4482d1ca78dce0f",
		"835bb4f15d743e350e728414abb8644fd6ccb86947c5e10590210a4f"},
	{"8b0a79306c9ce7ed99dae4f87f8dd61636", "7c77d6e813bed5ac98baa417477a2e7d", "1a8c98dcd73d38393b2bf1569deefc19", "65d2017990d62528",
		"02083e3979da014812f59f11d52630da30137327d10649b0aa6e1c181db617d7f2"},
	{"1bda122bce8a8dbaf1877d962b8592dd2d56", "5fff20cafab119ca2fc73549e20f5b0d", "dde59b97d722156d4d9aff2bc7559826", "54b9f04e6a09189a",
		"2ec47b2c4954a489afc7ba4897edcdae8cc33b60450599bd02c96382902aef7f832a"},
	{"6cf36720872b8513f6eab1a8a44438d5ef11", "a4a4782bcffd3ec5e7ef6d8c34a56123", "b781fcf2f75fa5a8de97a9ca48e522ec", "899a175897561d7e",
		"0de18fd0fdd91e7af19f1d8ee8733938b1e8e7f6d2231618102fdb7fe55ff1991700"},
	{"ca40d7446e545ffaed3bd12a740a659ffbbb3ceab7", "8395fcf1e95bebd697bd010bc766aac3", "22e7add93cfc6393c57ec0b3c17d6b44", "126735fcc320d25a",
		"cb8920f87a6c75cff39627b56e3ed197c552d295a7cfc46afc253b4652b1af3795b124ab6e"},
}

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestPaperVectors(t *testing.T) {
	for i, v := range paperVectors {
		a, err := New(unhex(v.key))
		if err != nil {
			t.Fatal(err)
		}
		msg, nonce, header, want := unhex(v.msg), unhex(v.nonce), unhex(v.header), unhex(v.cipher)
		if got := a.Seal(nil, nonce, msg, header); !bytes.Equal(got, want) {
			t.Errorf("vector %d: Seal = %x, want %x", i+1, got, want)
		}
		got, err := a.Open(nil, nonce, want, header)
		if err != nil || !bytes.Equal(got, msg) {
			t.Errorf("vector %d: Open = %x, %v; want %x", i+1, got, err, msg)
		}
		// Every single-bit flip of ciphertext or tag must be rejected.
		for bit := 0; bit < 8*len(want); bit++ {
			bad := bytes.Clone(want)
			bad[bit/8] ^= 1 << (bit % 8)
			if _, err := a.Open(nil, nonce, bad, header); err == nil {
				t.Fatalf("vector %d: flipped bit %d accepted", i+1, bit)
			}
		}
		if _, err := a.Open(nil, nonce, want, append(bytes.Clone(header), 0)); err == nil {
			t.Errorf("vector %d: changed header accepted", i+1)
		}
	}
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func reference(t testing.TB, key []byte, nonceSize int) cipher.AEAD {
	b, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	a, err := goeax.NewEAXWithNonceAndTagSize(b, nonceSize, 16)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// misaligned returns a copy of b starting off bytes into a fresh allocation,
// with spare capacity so in-place Seal can append the tag.
func misaligned(b []byte, off, spare int) []byte {
	buf := make([]byte, off+len(b)+spare)[off:]
	copy(buf, b)
	return buf[:len(b)]
}

func differential(t *testing.T, r *rand.Rand, keyLen, nonceSize, n, adLen int) {
	t.Helper()
	key := randBytes(r, keyLen)
	ours, err := NewWithNonceSize(key, nonceSize)
	if err != nil {
		t.Fatal(err)
	}
	ref := reference(t, key, nonceSize)
	nonce, ad, msg := randBytes(r, nonceSize), randBytes(r, adLen), randBytes(r, n)
	want := ref.Seal(nil, nonce, msg, ad)

	prefix := randBytes(r, r.IntN(5))
	got := ours.Seal(bytes.Clone(prefix), nonce, misaligned(msg, r.IntN(8), 0), misaligned(ad, r.IntN(8), 0))
	if !bytes.Equal(got[:len(prefix)], prefix) || !bytes.Equal(got[len(prefix):], want) {
		t.Fatalf("AES-%d nonce %d len %d ad %d: Seal differs from go-crypto", keyLen*8, nonceSize, n, adLen)
	}
	// In place: plaintext buffer with room for the tag.
	buf := misaligned(msg, r.IntN(8), tagSize)
	got = ours.Seal(buf[:0], nonce, buf, ad)
	if !bytes.Equal(got, want) || &got[0] != &buf[:1][0] {
		t.Fatalf("len %d: in-place Seal wrong", n)
	}
	pt, err := ours.Open(got[:0], nonce, got, ad)
	if err != nil || !bytes.Equal(pt, msg) {
		t.Fatalf("len %d: in-place Open: %v", n, err)
	}
	pt, err = ours.Open(nil, nonce, misaligned(want, r.IntN(8), 0), ad)
	if err != nil || !bytes.Equal(pt, msg) {
		t.Fatalf("len %d: Open: %v", n, err)
	}
	// A forgery must fail and leave dst as it was.
	bad := bytes.Clone(want)
	bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
	dst := bytes.Repeat([]byte{0xAA}, len(want))
	if out, err := ours.Open(dst[:0], nonce, bad, ad); err == nil || out != nil {
		t.Fatalf("len %d: forgery accepted", n)
	}
	if !bytes.Equal(dst, bytes.Repeat([]byte{0xAA}, len(want))) {
		t.Fatalf("len %d: failed Open wrote to dst", n)
	}
}

func TestDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 4200; n++ {
		if n > 300 && n%37 != 0 && n%16 > 1 && n%16 < 15 {
			continue
		}
		kl := []int{16, 24, 32}[n%3]
		differential(t, r, kl, 16, n, r.IntN(70))
	}
	for _, ns := range []int{1, 12, 15, 16, 17, 33} {
		for _, ad := range []int{0, 1, 15, 16, 17, 32, 33, 100} {
			differential(t, r, 16, ns, r.IntN(100), ad)
		}
	}
	differential(t, r, 32, 16, 1<<20+3, 13)
}

func TestErrors(t *testing.T) {
	if _, err := New(make([]byte, 20)); err == nil {
		t.Error("20-byte key accepted")
	}
	if _, err := NewWithNonceSize(make([]byte, 16), 0); err == nil {
		t.Error("nonce size 0 accepted")
	}
	a, _ := New(make([]byte, 16))
	if _, err := a.Open(nil, make([]byte, 16), make([]byte, 15), nil); err == nil {
		t.Error("ciphertext shorter than the tag accepted")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("short nonce: no panic")
			}
		}()
		a.Seal(nil, make([]byte, 12), nil, nil)
	}()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("inexact overlap: no panic")
			}
		}()
		buf := make([]byte, 100)
		a.Seal(buf[1:1], make([]byte, 16), buf[:50], nil)
	}()
}

func FuzzEAX(f *testing.F) {
	f.Add([]byte("0123456789abcdef"), []byte("nonce"), []byte("header"), []byte("message"), false)
	f.Add(make([]byte, 32), make([]byte, 16), []byte{}, make([]byte, 33), true)
	f.Fuzz(func(t *testing.T, key, nonce, ad, msg []byte, inPlace bool) {
		switch {
		case len(key) >= 32:
			key = key[:32]
		case len(key) >= 24:
			key = key[:24]
		case len(key) >= 16:
			key = key[:16]
		default:
			return
		}
		if len(nonce) == 0 {
			return
		}
		ours, err := NewWithNonceSize(key, len(nonce))
		if err != nil {
			t.Fatal(err)
		}
		want := reference(t, key, len(nonce)).Seal(nil, nonce, msg, ad)
		var got []byte
		if inPlace {
			buf := append(bytes.Clone(msg), make([]byte, tagSize)...)
			got = ours.Seal(buf[:0], nonce, buf[:len(msg)], ad)
		} else {
			got = ours.Seal(nil, nonce, msg, ad)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("Seal = %x, want %x", got, want)
		}
		pt, err := ours.Open(nil, nonce, got, ad)
		if err != nil || !bytes.Equal(pt, msg) {
			t.Fatalf("Open: %v", err)
		}
	})
}

func BenchmarkEAX(b *testing.B) {
	key, nonce, ad := make([]byte, 16), make([]byte, 16), make([]byte, 13)
	for _, size := range []int{1 << 10, 64 << 10} {
		msg := make([]byte, size)
		for _, impl := range []struct {
			name string
			a    cipher.AEAD
		}{
			{"ours", must(New(key))},
			{"go-crypto", reference(b, key, 16)},
		} {
			buf := make([]byte, size+tagSize)
			sealed := impl.a.Seal(nil, nonce, msg, ad)
			b.Run(fmt.Sprintf("Seal/%dK/%s", size>>10, impl.name), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for range b.N {
					impl.a.Seal(buf[:0], nonce, msg, ad)
				}
			})
			b.Run(fmt.Sprintf("Open/%dK/%s", size>>10, impl.name), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for range b.N {
					if _, err := impl.a.Open(buf[:0], nonce, sealed, ad); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func must(a cipher.AEAD, err error) cipher.AEAD {
	if err != nil {
		panic(err)
	}
	return a
}

// TestEngines runs the paper vectors and differential tests once more with
// the AES-NI OMAC switched off, so one test run covers both engines.
func TestEngines(t *testing.T) {
	if err := hwf.Disable(hwf.AES); err != nil {
		t.Fatal(err)
	}
	defer hwf.Enable(hwf.AES)
	if a := must(New(make([]byte, 16))); a.(*eaxAEAD).mac != nil {
		t.Fatal("AES disabled but the assembly OMAC is in use")
	}
	t.Run("PaperVectors", TestPaperVectors)
	r := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{0, 1, 15, 16, 17, 31, 32, 33, 100, 4096, 4097} {
		differential(t, r, []int{16, 24, 32}[n%3], 16, n, r.IntN(40))
	}
}
