package ocb

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	gocrypto "github.com/ProtonMail/go-crypto/ocb"

	"github.com/pgpstream/pgpstream/internal/hwf"
)

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// newWithout is New with some CPU features switched off through hwf, as
// --disable-hwf does, so every loop this CPU can run gets the same coverage:
// with avx512 off a VAES CPU runs the ymm loop, with vaes off the 8-block
// AES-NI loop.
func newWithout(features ...string) constructor {
	return func(key []byte, nonceSize int) (cipher.AEAD, error) {
		for _, f := range features {
			hwf.Disable(f)
			defer hwf.Enable(f)
		}
		return New(key, nonceSize)
	}
}

// newAESNI is New on the 8-block AES-NI loop.
var newAESNI = newWithout(hwf.VAES)

type constructor func([]byte, int) (cipher.AEAD, error)

// impls lists every path this build and CPU can run, each once.
func impls() map[string]constructor {
	m := map[string]constructor{"purego": NewPureGo}
	if hwName() == "" {
		return m
	}
	m["asm"] = New
	if hasWide() {
		m["aesni"] = newAESNI
	}
	if hwf.Has(hwf.VAES) && hwf.Has(hwf.AVX2) && hwf.Has(hwf.AVX512) {
		m["vaes-avx2"] = newWithout(hwf.AVX512)
	}
	return m
}

// TestPathChoice checks which loop New picks for each combination of
// features left on, on this CPU.
func TestPathChoice(t *testing.T) {
	if hwName() == "" {
		t.Skip("no assembly on this build or CPU")
	}
	kind := func(c constructor) wideKind {
		a, err := c(make([]byte, 16), 15)
		if err != nil {
			t.Fatal(err)
		}
		return a.(*ocbAEAD).hw.wide
	}
	vaes := hwf.Has(hwf.VAES)
	want := wideNone
	switch {
	case vaes && hwf.Has(hwf.AVX512):
		want = wideAVX512
	case vaes && hwf.Has(hwf.AVX2):
		want = wideAVX2
	}
	if got := kind(New); got != want {
		t.Errorf("New picks %d, want %d", got, want)
	}
	if got := kind(newAESNI); got != wideNone {
		t.Errorf("with vaes off New picks %d", got)
	}
	if got := kind(newWithout(hwf.AVX2, hwf.AVX512)); got != wideNone {
		t.Errorf("with avx2 and avx512 off New picks %d", got)
	}
	if vaes && hwf.Has(hwf.AVX2) {
		if got := kind(newWithout(hwf.AVX512)); got != wideAVX2 {
			t.Errorf("with avx512 off New picks %d, want the ymm loop", got)
		}
		hwf.Disable(hwf.AVX512)
		if got := Implementation(); got != "vaes avx2 asm (16 blocks/pass; AD hash aes-ni, 8)" {
			t.Errorf("with avx512 off Implementation() = %q", got)
		}
		hwf.Enable(hwf.AVX512)
	}
}

// RFC 7253 Appendix A, OCB-AES-128-TAGLEN128: N, A, P, C||T.
var rfcVectors = [][4]string{
	{"BBAA99887766554433221100", "", "", "785407BFFFC8AD9EDCC5520AC9111EE6"},
	{"BBAA99887766554433221101", "0001020304050607", "0001020304050607", "6820B3657B6F615A5725BDA0D3B4EB3A257C9AF1F8F03009"},
	{"BBAA99887766554433221102", "0001020304050607", "", "81017F8203F081277152FADE694A0A00"},
	{"BBAA99887766554433221103", "", "0001020304050607", "45DD69F8F5AAE72414054CD1F35D82760B2CD00D2F99BFA9"},
	{"BBAA99887766554433221104", "000102030405060708090A0B0C0D0E0F", "000102030405060708090A0B0C0D0E0F", "571D535B60B277188BE5147170A9A22C3AD7A4FF3835B8C5701C1CCEC8FC3358"},
	{"BBAA99887766554433221105", "000102030405060708090A0B0C0D0E0F", "", "8CF761B6902EF764462AD86498CA6B97"},
	{"BBAA99887766554433221106", "", "000102030405060708090A0B0C0D0E0F", "5CE88EC2E0692706A915C00AEB8B2396F40E1C743F52436BDF06D8FA1ECA343D"},
	{"BBAA99887766554433221107", "000102030405060708090A0B0C0D0E0F1011121314151617", "000102030405060708090A0B0C0D0E0F1011121314151617", "1CA2207308C87C010756104D8840CE1952F09673A448A122C92C62241051F57356D7F3C90BB0E07F"},
	{"BBAA99887766554433221108", "000102030405060708090A0B0C0D0E0F1011121314151617", "", "6DC225A071FC1B9F7C69F93B0F1E10DE"},
	{"BBAA99887766554433221109", "", "000102030405060708090A0B0C0D0E0F1011121314151617", "221BD0DE7FA6FE993ECCD769460A0AF2D6CDED0C395B1C3CE725F32494B9F914D85C0B1EB38357FF"},
	{"BBAA9988776655443322110A", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F", "BD6F6C496201C69296C11EFD138A467ABD3C707924B964DEAFFC40319AF5A48540FBBA186C5553C68AD9F592A79A4240"},
	{"BBAA9988776655443322110B", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F", "", "FE80690BEE8A485D11F32965BC9D2A32"},
	{"BBAA9988776655443322110C", "", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F", "2942BFC773BDA23CABC6ACFD9BFD5835BD300F0973792EF46040C53F1432BCDFB5E1DDE3BC18A5F840B52E653444D5DF"},
	{"BBAA9988776655443322110D", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F2021222324252627", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F2021222324252627", "D5CA91748410C1751FF8A2F618255B68A0A12E093FF454606E59F9C1D0DDC54B65E8628E568BAD7AED07BA06A4A69483A7035490C5769E60"},
	{"BBAA9988776655443322110E", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F2021222324252627", "", "C5CD9D1850C141E358649994EE701B68"},
	{"BBAA9988776655443322110F", "", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F2021222324252627", "4412923493C57D5DE0D700F753CCE0D1D2D95060122E9F15A5DDBFC5787E50B5CC55EE507BCB084E479AD363AC366B95A98CA5F3000B1479"},
}

func TestRFC7253Vectors(t *testing.T) {
	key := unhex("000102030405060708090A0B0C0D0E0F")
	for name, newAEAD := range impls() {
		a, err := newAEAD(key, 12)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range rfcVectors {
			n, ad, p, want := unhex(v[0]), unhex(v[1]), unhex(v[2]), unhex(v[3])
			if got := a.Seal(nil, n, p, ad); !bytes.Equal(got, want) {
				t.Errorf("%s: vector %d: Seal = %X, want %X", name, i, got, want)
			}
			got, err := a.Open(nil, n, want, ad)
			if err != nil || !bytes.Equal(got, p) {
				t.Errorf("%s: vector %d: Open = %X, %v; want %X", name, i, got, err, p)
			}
		}
	}
}

// TestRFC7253Iterated is the Appendix A check that exercises every length
// from 0 to 127 bytes in both A and P and folds all results into one tag.
func TestRFC7253Iterated(t *testing.T) {
	want := map[int]string{
		16: "67E944D23256C5E0B6C61FA22FDF1EA2",
		24: "F673F2C3E7174AAE7BAE986CA9F29E17",
		32: "D90EB8E9C977C88B79DD793D7FFA161C",
	}
	nonce := func(i int) []byte {
		n := make([]byte, 12)
		binary.BigEndian.PutUint32(n[8:], uint32(i))
		return n
	}
	for name, newAEAD := range impls() {
		for keyLen, w := range want {
			key := make([]byte, keyLen)
			key[keyLen-1] = 128 // num2str(TAGLEN, 8)
			a, err := newAEAD(key, 12)
			if err != nil {
				t.Fatal(err)
			}
			var c []byte
			for i := range 128 {
				s := make([]byte, i)
				c = a.Seal(c, nonce(3*i+1), s, s)
				c = a.Seal(c, nonce(3*i+2), s, nil)
				c = a.Seal(c, nonce(3*i+3), nil, s)
			}
			if got := a.Seal(nil, nonce(385), nil, c); !bytes.Equal(got, unhex(w)) {
				t.Errorf("%s AES-%d: got %X, want %s", name, keyLen*8, got, w)
			}
		}
	}
}

// check compares every path against go-crypto's ocb for one input, sealing
// and opening both into fresh buffers and in place (at byte offset off, so
// nothing need be aligned), and checks that a flipped bit anywhere makes
// Open fail without releasing plaintext.
func check(t testing.TB, key, nonce, pt, ad []byte, off, flip int) {
	t.Helper()
	blk, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := gocrypto.NewOCBWithNonceAndTagSize(blk, len(nonce), tagSize)
	if err != nil {
		t.Fatal(err)
	}
	want := ref.Seal(nil, nonce, pt, ad)

	for name, newAEAD := range impls() {
		a, err := newAEAD(key, len(nonce))
		if err != nil {
			t.Fatal(err)
		}
		got := a.Seal([]byte("prefix"), nonce, pt, ad)
		if !bytes.Equal(got[6:], want) || string(got[:6]) != "prefix" {
			t.Fatalf("%s: Seal(key %d, nonce %d, pt %d, ad %d) differs from go-crypto",
				name, len(key), len(nonce), len(pt), len(ad))
		}

		raw := make([]byte, off+len(pt)+tagSize)
		buf := raw[off : off+len(pt)]
		copy(buf, pt)
		sealed := a.Seal(buf[:0], nonce, buf, ad)
		if !bytes.Equal(sealed, want) {
			t.Fatalf("%s: in-place Seal differs (pt %d, ad %d)", name, len(pt), len(ad))
		}
		opened, err := a.Open(sealed[:0], nonce, sealed, ad)
		if err != nil || !bytes.Equal(opened, pt) {
			t.Fatalf("%s: in-place Open failed (pt %d, ad %d): %v", name, len(pt), len(ad), err)
		}

		opened, err = a.Open(nil, nonce, want, ad)
		if err != nil || !bytes.Equal(opened, pt) {
			t.Fatalf("%s: Open failed (pt %d, ad %d): %v", name, len(pt), len(ad), err)
		}

		// Tamper with the ciphertext, the tag or the AD.
		bad := bytes.Clone(want)
		badAD := bytes.Clone(ad)
		if i := flip % (len(bad) + len(badAD)); i < len(bad) {
			bad[i] ^= 1 << (flip & 7)
		} else {
			badAD[i-len(bad)] ^= 1 << (flip & 7)
		}
		dst := make([]byte, 0, len(pt))
		if out, err := a.Open(dst, nonce, bad, badAD); !errors.Is(err, ErrOpen) || out != nil {
			t.Fatalf("%s: tampered Open = %v, %v", name, out, err)
		}
		for _, b := range dst[:len(pt)] {
			if b != 0 {
				t.Fatalf("%s: tampered Open left plaintext in dst", name)
			}
		}
	}
}

func TestAgainstGoCrypto(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rnd := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	keySizes := []int{16, 24, 32}
	lengths := make([]int, 0, 700)
	for n := 0; n <= 600; n++ {
		lengths = append(lengths, n)
	}
	lengths = append(lengths, 1023, 1024, 1025, 4095, 4096, 4097, 16384+13, 65536)
	for i, n := range lengths {
		key := rnd(keySizes[i%3])
		nonce := rnd(1 + (i/3)%15) // every key size meets every nonce size
		// AD lengths walk a different cycle so they meet every pt length class.
		ad := rnd((i * 7) % 300)
		check(t, key, nonce, rnd(n), ad, i%16, i*31+5)
	}
	// Long AD, as the bulk HASH path needs.
	for _, n := range []int{120, 127, 128, 129, 255, 1000, 4096 + 5} {
		check(t, rnd(16), rnd(15), rnd(33), rnd(n), 1, n)
	}
}

// TestPathsAgree runs every assembly path and the pure-Go path over one
// large random message per key size; go-crypto is too slow to be the only
// check at this size.
func TestPathsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	msg := make([]byte, 1<<20+77)
	for i := range msg {
		msg[i] = byte(r.Uint32())
	}
	nonce, ad, pt := msg[100:115], msg[:1000], msg[1:]
	for _, keyLen := range []int{16, 24, 32} {
		key := msg[:keyLen]
		ref, _ := NewPureGo(key, 15)
		want := ref.Seal(nil, nonce, pt, ad)
		for name, newAEAD := range impls() {
			a, _ := newAEAD(key, 15)
			if got := a.Seal(nil, nonce, pt, ad); !bytes.Equal(got, want) {
				t.Fatalf("AES-%d: %s and purego Seal differ", keyLen*8, name)
			}
			if p, err := a.Open(nil, nonce, want, ad); err != nil || !bytes.Equal(p, pt) {
				t.Fatalf("AES-%d: %s Open of purego output failed: %v", keyLen*8, name, err)
			}
		}
	}
}

// TestDisableAES checks that switching AES-NI off through hwf, as
// --disable-hwf does, makes New fall back to pure Go.
func TestDisableAES(t *testing.T) {
	hwf.Disable(hwf.AES)
	defer hwf.Enable(hwf.AES)
	if got := Implementation(); got != "pure Go" {
		t.Errorf("Implementation() = %q with AES disabled", got)
	}
	a, _ := New(make([]byte, 16), 15)
	if a.(*ocbAEAD).hw != nil {
		t.Error("New used the assembly with AES disabled")
	}
}

func TestInterface(t *testing.T) {
	for _, bad := range []int{0, 16, -1} {
		if _, err := New(make([]byte, 16), bad); err == nil {
			t.Errorf("nonce size %d accepted", bad)
		}
	}
	for _, bad := range []int{0, 15, 17, 33} {
		if _, err := New(make([]byte, bad), 15); err == nil {
			t.Errorf("key size %d accepted", bad)
		}
	}
	a, _ := New(make([]byte, 16), 15)
	if a.NonceSize() != 15 || a.Overhead() != 16 {
		t.Errorf("NonceSize, Overhead = %d, %d", a.NonceSize(), a.Overhead())
	}
	if _, err := a.Open(nil, make([]byte, 15), make([]byte, 15), nil); !errors.Is(err, ErrOpen) {
		t.Errorf("short ciphertext: %v", err)
	}
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", what)
			}
		}()
		f()
	}
	mustPanic("wrong nonce size", func() { a.Seal(nil, make([]byte, 12), nil, nil) })
	buf := make([]byte, 100)
	mustPanic("inexact overlap", func() { a.Seal(buf[1:1], make([]byte, 15), buf[:50], nil) })
	if Implementation() == "" {
		t.Error("empty Implementation()")
	}
	t.Logf("implementation: %s", Implementation())
}

func TestNoAllocs(t *testing.T) {
	if hwName() == "" {
		t.Skip("the pure-Go path allocates scratch for crypto/aes")
	}
	a, _ := New(make([]byte, 16), 15)
	nonce := make([]byte, 15)
	buf := make([]byte, 4096+5+tagSize)
	ad := make([]byte, 13)
	if n := testing.AllocsPerRun(10, func() {
		ct := a.Seal(buf[:0], nonce, buf[:4096+5], ad)
		if _, err := a.Open(ct[:0], nonce, ct, ad); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Seal+Open allocate %v times", n)
	}
}

func FuzzOCB(f *testing.F) {
	f.Add(uint8(0), uint8(15), []byte("key material 0123456789abcdef0123"), []byte("header"), []byte("hello, world"), uint16(0), uint8(0))
	f.Add(uint8(1), uint8(1), []byte{}, []byte{}, make([]byte, 4100), uint16(4099), uint8(3))
	f.Add(uint8(2), uint8(12), make([]byte, 64), make([]byte, 300), make([]byte, 129), uint16(77), uint8(1))
	f.Fuzz(func(t *testing.T, ks, ns uint8, seed, ad, pt []byte, flip uint16, off uint8) {
		keyLen := 16 + 8*int(ks%3)
		nonceLen := 1 + int(ns%15)
		material := make([]byte, keyLen+nonceLen)
		copy(material, seed)
		// The fuzzer's own slices start at arbitrary offsets too; check
		// adds an in-place run at off.
		check(t, material[:keyLen], material[keyLen:], pt, ad, int(off%16), int(flip))
	})
}

var sink []byte

func BenchmarkOCB(b *testing.B) {
	type impl struct {
		name string
		new  func([]byte) cipher.AEAD
	}
	var list []impl
	if hwName() != "" {
		list = append(list, impl{"asm", func(k []byte) cipher.AEAD { a, _ := New(k, 15); return a }})
	}
	for _, name := range []string{"vaes-avx2", "aesni"} {
		if c, ok := impls()[name]; ok {
			list = append(list, impl{name, func(k []byte) cipher.AEAD { a, _ := c(k, 15); return a }})
		}
	}
	list = append(list,
		impl{"purego", func(k []byte) cipher.AEAD { a, _ := NewPureGo(k, 15); return a }},
		impl{"gocrypto", func(k []byte) cipher.AEAD {
			blk, _ := aes.NewCipher(k)
			a, _ := gocrypto.NewOCBWithNonceAndTagSize(blk, 15, 16)
			return a
		}},
	)
	sizes := []struct {
		name string
		n    int
	}{{"16KiB", 16 << 10}, {"1MiB", 1 << 20}}
	nonce := make([]byte, 15)
	ad := make([]byte, 13) // an OpenPGP v2 SEIPD chunk's AD
	for _, im := range list {
		for _, keyLen := range []int{16, 32} {
			a := im.new(make([]byte, keyLen))
			for _, sz := range sizes {
				buf := make([]byte, sz.n+tagSize)
				ct := a.Seal(nil, nonce, buf[:sz.n], ad)
				b.Run(fmt.Sprintf("impl=%s/key=%d/op=seal/size=%s", im.name, keyLen*8, sz.name), func(b *testing.B) {
					b.SetBytes(int64(sz.n))
					for b.Loop() {
						sink = a.Seal(buf[:0], nonce, buf[:sz.n], ad)
					}
				})
				b.Run(fmt.Sprintf("impl=%s/key=%d/op=open/size=%s", im.name, keyLen*8, sz.name), func(b *testing.B) {
					b.SetBytes(int64(sz.n))
					for b.Loop() {
						var err error
						if sink, err = a.Open(buf[:0], nonce, ct, ad); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
