package asynchash

import (
	"crypto/sha1"
	"hash"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/internal/cfb"
)

func TestMatchesSHA1(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 3*bufSize+12345)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	sizes := []int{0, 1, 22, 64, bufSize - 1, bufSize, bufSize + 1, 2*bufSize + 7, len(data)}
	pieces := []func() int{
		func() int { return 1 },
		func() int { return 4096 },
		func() int { return bufSize },
		func() int { return bufSize + 1 },
		func() int { return r.IntN(3 * bufSize) },
		func() int { return r.IntN(100) },
	}
	for _, n := range sizes {
		for pi, piece := range pieces {
			if pi == 0 && n > 100000 {
				continue
			}
			msg := data[:n]
			h := NewAsync()
			for p := 0; p < n; {
				k := min(piece(), n-p)
				if w, err := h.Write(msg[p : p+k]); w != k || err != nil {
					t.Fatalf("Write = %d, %v", w, err)
				}
				p += k
			}
			if got, want := h.Sum(), sha1.Sum(msg); got != want {
				t.Fatalf("len %d pattern %d: %x, want %x", n, pi, got, want)
			}
			h.Close()
		}
	}
}

// TestSumThenWrite checks that Sum is a snapshot and writing may go on.
func TestSumThenWrite(t *testing.T) {
	h := NewAsync()
	defer h.Close()
	h.Write([]byte("abc"))
	if h.Sum() != sha1.Sum([]byte("abc")) {
		t.Fatal("first Sum wrong")
	}
	h.Write([]byte("def"))
	if h.Sum() != sha1.Sum([]byte("abcdef")) {
		t.Fatal("second Sum wrong")
	}
}

func TestClose(t *testing.T) {
	h := NewAsync()
	h.Write([]byte("hello"))
	h.Close()
	h.Close()
	if h.Sum() != sha1.Sum([]byte("hello")) {
		t.Fatal("Sum after Close wrong")
	}
	// After Close writes are hashed on the caller's goroutine.
	h.Write([]byte(" world"))
	h.WriteShared([]byte("!"), func() {})
	if h.Sum() != sha1.Sum([]byte("hello world!")) {
		t.Fatal("writes after Close lost")
	}
	NewAsync().Close() // without Sum or Write
}

func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 100 {
		h := NewAsync()
		h.Write(make([]byte, bufSize+5))
		if i := rand.IntN(2); i == 0 {
			h.Sum()
		}
		h.Close()
	}
	// Close tells the goroutine to stop; it may still be on its way out.
	if after := settle(before); after > before {
		t.Fatalf("goroutines: %d before, %d after", before, after)
	}
	// A Hasher dropped without Close is stopped by its cleanup.
	for range 10 {
		NewAsync().Write([]byte("forgotten"))
	}
	if after := settle(before); after > before {
		t.Fatalf("dropped Hashers: %d goroutines before, %d after", before, after)
	}
}

// settle waits up to 5 s (a loaded machine schedules exiting goroutines
// late) for the goroutine count to fall back to want, and returns it.
func settle(want int) int {
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > want && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	return runtime.NumGoroutine()
}

const chunk = 64 << 10

func BenchmarkHash(b *testing.B) {
	buf := make([]byte, chunk)
	b.Run("sync", func(b *testing.B) {
		b.SetBytes(chunk)
		h := sha1.New()
		for range b.N {
			h.Write(buf)
		}
		h.Sum(nil)
	})
	b.Run("async", func(b *testing.B) {
		b.SetBytes(chunk)
		h := NewAsync()
		defer h.Close()
		for range b.N {
			h.Write(buf)
		}
		h.Sum()
	})
}

// BenchmarkDecryptAndHash is the SEIPD v1 inner loop: CFB-decrypt 64 MiB in
// 64 KiB chunks and hash the plaintext, with the hash inline or on the
// Hasher's goroutine.
func BenchmarkDecryptAndHash(b *testing.B) {
	const total = 64 << 20
	key, iv := make([]byte, 16), make([]byte, 16)
	src := make([]byte, total)
	dst := make([]byte, chunk)
	run := func(b *testing.B, write func([]byte), sum func()) {
		b.SetBytes(total)
		for range b.N {
			d, _ := cfb.NewAESDecrypter(key, iv)
			for p := 0; p < total; p += chunk {
				d.XORKeyStream(dst, src[p:p+chunk])
				write(dst)
			}
			sum()
		}
	}
	b.Run("decrypt-only", func(b *testing.B) { run(b, func([]byte) {}, func() {}) })
	b.Run("sync", func(b *testing.B) {
		h := sha1.New()
		run(b, func(p []byte) { h.Write(p) }, func() { h.Sum(nil); h.Reset() })
	})
	b.Run("async", func(b *testing.B) {
		var h *sha1Hasher
		run(b, func(p []byte) {
			if h == nil {
				h = NewAsync()
			}
			h.Write(p)
		}, func() { h.Sum(); h.Close(); h = nil })
	})
}

// TestWriteShared mixes copied and lent writes: the digest is that of the
// bytes in order, and every lent buffer is released exactly once, after
// which changing it does not change the digest.
func TestWriteShared(t *testing.T) {
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	h := NewAsync()
	defer h.Close()
	released := make(chan int, 64)
	var lent [][]byte
	off := 0
	for i, n := range []int{100, 512 << 10, 7, 1 << 20, 300 << 10, 1, 900 << 10} {
		chunk := data[off : off+n]
		off += n
		if i%2 == 1 {
			b := append([]byte(nil), chunk...)
			lent = append(lent, b)
			idx := len(lent) - 1
			h.WriteShared(b, func() { released <- idx })
		} else {
			h.Write(chunk)
		}
	}
	sum := h.Sum()
	if want := sha1.Sum(data[:off]); sum != want {
		t.Fatalf("digest %x, want %x", sum, want)
	}
	seen := map[int]bool{}
	for range lent {
		i := <-released
		if seen[i] {
			t.Fatalf("buffer %d released twice", i)
		}
		seen[i] = true
	}
}

// sha1Hasher is a Hasher of one SHA-1, as the MDC uses it.
type sha1Hasher struct {
	*Hasher
	s hash.Hash
}

func NewAsync() *sha1Hasher {
	s := sha1.New()
	return &sha1Hasher{New(s), s}
}

// Sum is the digest of everything written so far.
func (h *sha1Hasher) Sum() (d [sha1.Size]byte) {
	h.Flush()
	h.s.Sum(d[:0])
	return d
}
