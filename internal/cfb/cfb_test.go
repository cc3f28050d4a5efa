package cfb

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pgpstream/pgpstream/internal/hwf"
)

// impl builds one engine under test from a key and IV.
type impl struct {
	name     string
	keyLen   int
	enc, dec func(key, iv []byte) Stream
	// oracle is the block cipher the stdlib CFB is run with.
	oracle func(key []byte) cipher.Block
}

func mustAES(key []byte) cipher.Block {
	b, err := aes.NewCipher(key)
	if err != nil {
		panic(err)
	}
	return b
}

func must(s Stream, err error) Stream {
	if err != nil {
		panic(err)
	}
	return s
}

// without builds a stream with one CPU feature switched off, as
// --disable-hwf does.
func without(feature string, f func(key, iv []byte) (Stream, error), key, iv []byte) Stream {
	hwf.Disable(feature)
	defer hwf.Enable(feature)
	return must(f(key, iv))
}

func impls() []impl {
	var out []impl
	for _, kl := range []int{16, 24, 32} {
		out = append(out,
			impl{fmt.Sprintf("AES-%d/fast", kl*8), kl,
				func(k, iv []byte) Stream { return must(NewAESEncrypter(k, iv)) },
				func(k, iv []byte) Stream { return must(NewAESDecrypter(k, iv)) }, mustAES},
			// The 8-block AES-NI loop, on CPUs where VAES would run.
			impl{fmt.Sprintf("AES-%d/novaes", kl*8), kl,
				func(k, iv []byte) Stream { return without(hwf.VAES, NewAESEncrypter, k, iv) },
				func(k, iv []byte) Stream { return without(hwf.VAES, NewAESDecrypter, k, iv) }, mustAES},
			impl{fmt.Sprintf("AES-%d/purego", kl*8), kl,
				func(k, iv []byte) Stream { return must(NewAESEncrypterPureGo(k, iv)) },
				func(k, iv []byte) Stream { return must(NewAESDecrypterPureGo(k, iv)) }, mustAES},
		)
	}
	tdes := func(k []byte) cipher.Block {
		b, err := des.NewTripleDESCipher(k)
		if err != nil {
			panic(err)
		}
		return b
	}
	out = append(out,
		impl{"AES-128/generic", 16,
			func(k, iv []byte) Stream { return NewEncrypter(mustAES(k), iv) },
			func(k, iv []byte) Stream { return NewDecrypter(mustAES(k), iv) }, mustAES},
		impl{"3DES/generic", 24,
			func(k, iv []byte) Stream { return NewEncrypter(tdes(k), iv) },
			func(k, iv []byte) Stream { return NewDecrypter(tdes(k), iv) }, tdes},
	)
	return out
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

// splits cuts n into random pieces, biased towards small and block-sized ones
// so partial blocks are carried across calls in every position.
func splits(r *rand.Rand, n int) []int {
	var out []int
	for n > 0 {
		var k int
		switch r.IntN(4) {
		case 0:
			k = r.IntN(17)
		case 1:
			k = r.IntN(200)
		case 2:
			k = 16 * r.IntN(20)
		default:
			k = n
		}
		k = min(k, n)
		out = append(out, k)
		n -= k
	}
	return out
}

// run XORs src through s in the given pieces, into a misaligned copy of the
// output or in place.
func run(s Stream, src []byte, pieces []int, inPlace bool, off int) []byte {
	buf := make([]byte, len(src)+off)[off:]
	if inPlace {
		copy(buf, src)
	}
	in := src
	if inPlace {
		in = buf
	}
	p := 0
	for _, k := range pieces {
		s.XORKeyStream(buf[p:p+k], in[p:p+k])
		p += k
	}
	return buf
}

func check(t *testing.T, r *rand.Rand, im impl, n int) {
	t.Helper()
	key := randBytes(r, im.keyLen)
	block := im.oracle(key)
	iv := randBytes(r, block.BlockSize())
	if r.IntN(2) == 0 {
		iv = make([]byte, block.BlockSize()) // OpenPGP's all-zero IV
	}
	pt := randBytes(r, n)
	want := make([]byte, n)
	cipher.NewCFBEncrypter(block, iv).XORKeyStream(want, pt)

	inPlace, off := r.IntN(2) == 0, r.IntN(8)
	got := run(im.enc(key, iv), pt, splits(r, n), inPlace, off)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: encrypt len %d (in place %v, offset %d): mismatch", im.name, n, inPlace, off)
	}
	inPlace, off = r.IntN(2) == 0, r.IntN(8)
	got = run(im.dec(key, iv), want, splits(r, n), inPlace, off)
	if !bytes.Equal(got, pt) {
		t.Fatalf("%s: decrypt len %d (in place %v, offset %d): mismatch", im.name, n, inPlace, off)
	}
}

func TestAgainstStdlib(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			for n := 0; n <= 600; n++ {
				check(t, r, im, n)
			}
			for _, n := range []int{4095, 4096, 4097, 65536 + 13, 1<<20 + 5} {
				check(t, r, im, n)
			}
		})
	}
}

// TestWholeCalls covers block-aligned calls of every size around the 8-block
// pass, where the assembly switches between its wide and tail loops.
func TestWholeCalls(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, im := range impls() {
		key := randBytes(r, im.keyLen)
		block := im.oracle(key)
		iv := randBytes(r, block.BlockSize())
		for nb := 0; nb <= 40; nb++ {
			pt := randBytes(r, nb*block.BlockSize()*3)
			want := make([]byte, len(pt))
			cipher.NewCFBEncrypter(block, iv).XORKeyStream(want, pt)
			third := []int{len(pt) / 3, len(pt) / 3, len(pt) / 3}
			if got := run(im.enc(key, iv), pt, third, false, 0); !bytes.Equal(got, want) {
				t.Fatalf("%s: encrypt %d blocks x3: mismatch", im.name, nb)
			}
			if got := run(im.dec(key, iv), want, third, true, 0); !bytes.Equal(got, pt) {
				t.Fatalf("%s: decrypt %d blocks x3: mismatch", im.name, nb)
			}
		}
	}
}

func TestFastMatchesPureGo(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, kl := range []int{16, 24, 32} {
		key, iv := randBytes(r, kl), randBytes(r, 16)
		msg := randBytes(r, 1<<16+7)
		a := make([]byte, len(msg))
		b := make([]byte, len(msg))
		must(NewAESEncrypter(key, iv)).XORKeyStream(a, msg)
		must(NewAESEncrypterPureGo(key, iv)).XORKeyStream(b, msg)
		if !bytes.Equal(a, b) {
			t.Fatalf("AES-%d encrypt: engines differ", kl*8)
		}
		must(NewAESDecrypter(key, iv)).XORKeyStream(a, msg)
		must(NewAESDecrypterPureGo(key, iv)).XORKeyStream(b, msg)
		if !bytes.Equal(a, b) {
			t.Fatalf("AES-%d decrypt: engines differ", kl*8)
		}
	}
}

func TestErrors(t *testing.T) {
	if _, err := NewAESEncrypter(make([]byte, 17), make([]byte, 16)); err == nil {
		t.Error("17-byte key accepted")
	}
	if _, err := NewAESDecrypter(make([]byte, 16), make([]byte, 8)); err == nil {
		t.Error("8-byte IV accepted")
	}
	mustPanic(t, "short IV", func() { NewEncrypter(mustAES(make([]byte, 16)), make([]byte, 15)) })
	s := must(NewAESEncrypter(make([]byte, 16), make([]byte, 16)))
	buf := make([]byte, 64)
	mustPanic(t, "short dst", func() { s.XORKeyStream(buf[:10], buf[:11]) })
	mustPanic(t, "inexact overlap", func() { s.XORKeyStream(buf[1:33], buf[:32]) })
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}

func FuzzCFB(f *testing.F) {
	f.Add([]byte("0123456789abcdef"), []byte("hello, world"), uint8(0), uint16(5), false)
	f.Add(make([]byte, 32), make([]byte, 300), uint8(3), uint16(129), true)
	f.Fuzz(func(t *testing.T, key, msg []byte, ivSeed uint8, cut uint16, inPlace bool) {
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
		iv := bytes.Repeat([]byte{ivSeed}, 16)
		block := mustAES(key)
		want := make([]byte, len(msg))
		cipher.NewCFBEncrypter(block, iv).XORKeyStream(want, msg)
		c := 0
		if len(msg) > 0 {
			c = int(cut) % (len(msg) + 1)
		}
		pieces := []int{c, len(msg) - c}
		for _, enc := range []Stream{must(NewAESEncrypter(key, iv)), must(NewAESEncrypterPureGo(key, iv))} {
			if got := run(enc, msg, pieces, inPlace, 0); !bytes.Equal(got, want) {
				t.Fatal("encrypt mismatch")
			}
		}
		for _, dec := range []Stream{must(NewAESDecrypter(key, iv)), must(NewAESDecrypterPureGo(key, iv))} {
			if got := run(dec, want, pieces, inPlace, 0); !bytes.Equal(got, msg) {
				t.Fatal("decrypt mismatch")
			}
		}
	})
}

const benchSize = 1 << 20

func bench(b *testing.B, s cipher.Stream) {
	buf := make([]byte, benchSize)
	b.SetBytes(benchSize)
	b.ResetTimer()
	for range b.N {
		s.XORKeyStream(buf, buf)
	}
}

func BenchmarkCFB(b *testing.B) {
	iv := make([]byte, 16)
	for _, kl := range []int{16, 32} {
		key := make([]byte, kl)
		name := fmt.Sprintf("AES-%d", kl*8)
		b.Run(name+"/Encrypt/asm", func(b *testing.B) { bench(b, must(NewAESEncrypter(key, iv))) })
		b.Run(name+"/Encrypt/purego", func(b *testing.B) { bench(b, must(NewAESEncrypterPureGo(key, iv))) })
		b.Run(name+"/Encrypt/stdlib", func(b *testing.B) { bench(b, cipher.NewCFBEncrypter(mustAES(key), iv)) })
		b.Run(name+"/Decrypt/asm", func(b *testing.B) { bench(b, must(NewAESDecrypter(key, iv))) })
		b.Run(name+"/Decrypt/novaes", func(b *testing.B) { bench(b, without(hwf.VAES, NewAESDecrypter, key, iv)) })
		b.Run(name+"/Decrypt/purego", func(b *testing.B) { bench(b, must(NewAESDecrypterPureGo(key, iv))) })
		b.Run(name+"/Decrypt/stdlib", func(b *testing.B) { bench(b, cipher.NewCFBDecrypter(mustAES(key), iv)) })
	}
}
