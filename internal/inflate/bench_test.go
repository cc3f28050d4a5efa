package inflate

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/base64"
	"hash/adler32"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	kflate "github.com/klauspost/compress/flate"
	kzlib "github.com/klauspost/compress/zlib"

	"github.com/pgpstream/pgpstream/iobuf"
)

// benchSize is the plaintext size of each benchmark input.
const benchSize = 8 << 20

var benchInputs = sync.OnceValue(func() map[string][]byte {
	rng := rand.New(rand.NewPCG(5, 6))
	random := make([]byte, benchSize)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	// Text: Go source from the toolchain, as a stand-in for the text
	// users compress (zlib level 6 makes it about a quarter of its size).
	var src []byte
	filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && len(src) < benchSize && strings.HasSuffix(p, ".go") && !strings.Contains(p, "testdata") {
			b, _ := os.ReadFile(p)
			src = append(src, b...)
		}
		return nil
	})
	for len(src) < benchSize {
		src = append(src, src...)
	}
	return map[string][]byte{
		"text":   src[:benchSize],
		"base64": base64.StdEncoding.AppendEncode(nil, random[:benchSize*3/4])[:benchSize],
		"zeros":  make([]byte, benchSize),
		"random": random,
	}
})

// BenchmarkInflate decodes zlib level 6 data with the standard library,
// klauspost/compress and this package; throughput is of the output.
func BenchmarkInflate(b *testing.B) {
	for _, name := range []string{"text", "base64", "zeros", "random"} {
		p := benchInputs()[name]
		var cb bytes.Buffer
		w, _ := zlib.NewWriterLevel(&cb, 6)
		w.Write(p)
		w.Close()
		c := cb.Bytes()
		b.Run(name+"/stdlib", func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				r, _ := zlib.NewReader(bytes.NewReader(c))
				if n, err := io.Copy(io.Discard, r); err != nil || n != int64(len(p)) {
					b.Fatal(n, err)
				}
			}
		})
		b.Run(name+"/klauspost", func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				r, _ := kzlib.NewReader(bytes.NewReader(c))
				if n, err := io.Copy(io.Discard, r); err != nil || n != int64(len(p)) {
					b.Fatal(n, err)
				}
			}
		})
		b.Run(name+"/inflate", func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			z := NewReader(nil, Zlib)
			for b.Loop() {
				z.Reset(iobuf.NewReader(bytes.NewReader(c), 0), Zlib)
				if n, err := z.WriteTo(io.Discard); err != nil || n != int64(len(p)) {
					b.Fatal(n, err)
				}
			}
		})
	}
}

// BenchmarkDeflate compares the compressors the writer could use, on text.
func BenchmarkDeflate(b *testing.B) {
	p := benchInputs()["text"]
	for _, level := range []int{1, 4, 5, 6, 7, 9} {
		b.Run("stdlib/"+itoa(level), func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			var n int
			for b.Loop() {
				w, _ := flate.NewWriter(io.Discard, level)
				cw := &countWriter{w: w}
				cw.Write(p)
				w.Close()
				n = cw.n
			}
			_ = n
		})
		b.Run("klauspost/"+itoa(level), func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				w, _ := kflate.NewWriter(io.Discard, level)
				w.Write(p)
				w.Close()
			}
		})
	}
}

type countWriter struct {
	w io.Writer
	n int
}

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return c.w.Write(p) }

func itoa(n int) string { return string(rune('0' + n)) }

func BenchmarkAdler(b *testing.B) {
	p := benchInputs()["text"][:1<<20]
	b.Run("stdlib", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			adler32.Checksum(p)
		}
	})
	b.Run("lanes", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			adlerUpdate(1, p)
		}
	})
}
