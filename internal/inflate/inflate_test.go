package inflate

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/iobuf/iobuftest"
)

// inputs returns named plaintexts covering what the decoder must handle:
// nothing, one byte, text, incompressible bytes (stored blocks), runs
// (distance 1, length 258), and matches exactly a window apart.
func inputs(t testing.TB) map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	text := base64.StdEncoding.AppendEncode(nil, random(150<<10))
	src, _ := os.ReadFile("inflate.go")
	m := map[string][]byte{
		"empty":      {},
		"one":        {'x'},
		"two":        {'x', 'y'},
		"zeros-258":  make([]byte, 258),
		"zeros-259":  make([]byte, 259),
		"zeros-1M":   make([]byte, 1<<20),
		"random-7":   random(7),
		"random-64K": random(64 << 10),
		"random-1M":  random(1 << 20),
		"base64":     text,
		"source":     bytes.Repeat(src, 12),
	}
	// A block of random bytes repeated exactly a window apart, so the
	// encoder uses distance 32768, and one byte further (no match).
	blk := random(window)
	m["window-edge"] = append(append(append([]byte{}, blk...), blk...), blk[:1000]...)
	m["window-edge+1"] = append(append(append([]byte{}, blk...), 'q'), blk...)
	// Short periods: distances 2..15 the word copies must get right.
	var periods []byte
	for d := 2; d < 20; d++ {
		unit := random(d)
		for i := 0; i < 300; i++ {
			periods = append(periods, unit...)
		}
	}
	m["periods"] = periods
	// Runs of every length near the maximum match.
	var runs []byte
	for n := 250; n < 270; n++ {
		runs = append(runs, bytes.Repeat([]byte{byte(n)}, n)...)
		runs = append(runs, random(3)...)
	}
	m["runs"] = runs
	if files, _ := filepath.Glob("testdata/*.txt"); len(files) > 0 {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m[filepath.Base(f)] = b
		}
	}
	return m
}

var levels = []int{flate.HuffmanOnly, flate.NoCompression, flate.BestSpeed, 3, flate.DefaultCompression, flate.BestCompression}

func deflate(t testing.TB, p []byte, level int) []byte {
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(p)
	w.Close()
	return b.Bytes()
}

func zlibBytes(t testing.TB, p []byte, level int) []byte {
	var b bytes.Buffer
	w, err := zlib.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(p)
	w.Close()
	return b.Bytes()
}

// inflateAll decodes c read in chunks of chunk bytes, reading the output
// readSize bytes at a time (0: WriteTo).
func inflateAll(c []byte, f Format, chunk, readSize int) ([]byte, error) {
	z := NewReader(iobuf.NewReader(bytes.NewReader(c), chunk), f)
	var out bytes.Buffer
	if readSize == 0 {
		_, err := z.WriteTo(&out)
		return out.Bytes(), err
	}
	p := make([]byte, readSize)
	for {
		n, err := z.Read(p)
		out.Write(p[:n])
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return out.Bytes(), err
		}
	}
}

// reference decodes c with the standard library.
func reference(c []byte, f Format) ([]byte, error) {
	var r io.Reader
	if f == Zlib {
		zr, err := zlib.NewReader(bytes.NewReader(c))
		if err != nil {
			return nil, err
		}
		r = zr
	} else {
		r = flate.NewReader(bytes.NewReader(c))
	}
	return io.ReadAll(r)
}

func TestAgainstStdlib(t *testing.T) {
	for name, p := range inputs(t) {
		for _, level := range levels {
			for _, f := range []Format{Raw, Zlib} {
				var c []byte
				if f == Raw {
					c = deflate(t, p, level)
				} else {
					c = zlibBytes(t, p, level)
				}
				for _, chunk := range []int{1, 3, 17, 4096, 0} {
					for _, rs := range []int{0, 1, 1000, 300 << 10} {
						if testing.Short() && chunk < 17 && len(c) > 100<<10 {
							continue
						}
						if chunk < 17 && rs == 1 && len(p) > 200<<10 {
							continue // one byte a time through both ends: slow, and covered by smaller inputs
						}
						got, err := inflateAll(c, f, chunk, rs)
						if err != nil || !bytes.Equal(got, p) {
							t.Fatalf("%s level %d format %d chunk %d read %d: %d bytes, %v; want %d bytes",
								name, level, f, chunk, rs, len(got), err, len(p))
						}
					}
				}
			}
		}
	}
}

// TestBlockTypes checks that the encodings used cover every block type.
func TestBlockTypes(t *testing.T) {
	seen := map[uint32]bool{}
	for _, p := range inputs(t) {
		for _, level := range levels {
			c := deflate(t, p, level)
			if len(c) > 0 {
				seen[uint32(c[0]>>1&3)] = true
			}
		}
	}
	for typ := range uint32(3) {
		if !seen[typ] {
			t.Errorf("no stream starts with a block of type %d", typ)
		}
	}
}

// Hand-made streams, bits written least significant first.
type bitWriter struct {
	b    []byte
	acc  uint64
	nacc uint
}

func (w *bitWriter) put(v uint64, n uint) {
	w.acc |= v << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

// putCode writes a Huffman code, most significant bit first.
func (w *bitWriter) putCode(code uint64, n uint) { w.put(uint64(reverse(int(code), int(n))), n) }

func (w *bitWriter) bytes() []byte {
	if w.nacc > 0 {
		return append(w.b, byte(w.acc))
	}
	return w.b
}

// fixedLitCode returns the fixed code of a literal/length symbol.
func fixedLitCode(s int) (uint64, uint) {
	switch {
	case s < 144:
		return uint64(0x30 + s), 8
	case s < 256:
		return uint64(0x190 + s - 144), 9
	case s < 280:
		return uint64(s - 256), 7
	}
	return uint64(0xc0 + s - 280), 8
}

func TestEdgeCases(t *testing.T) {
	fixed := func(f func(w *bitWriter)) []byte {
		var w bitWriter
		w.put(1, 1) // final
		w.put(1, 2) // fixed
		f(&w)
		return w.bytes()
	}
	lit := func(w *bitWriter, s int) { w.putCode(fixedLitCode(s)) }
	cases := map[string][]byte{
		"empty input":             {},
		"reserved block type":     {0x07},
		"stored length mismatch":  {0x01, 0x05, 0x00, 0xfa, 0xfe, 'h', 'e', 'l', 'l', 'o'},
		"stored truncated":        {0x01, 0x05, 0x00, 0xfa, 0xff, 'h', 'e'},
		"literal 286":             fixed(func(w *bitWriter) { lit(w, 286) }),
		"literal 287":             fixed(func(w *bitWriter) { lit(w, 287) }),
		"distance 30":             fixed(func(w *bitWriter) { lit(w, 'a'); lit(w, 257); w.putCode(30, 5); lit(w, 256) }),
		"distance before start":   fixed(func(w *bitWriter) { lit(w, 'a'); lit(w, 257); w.putCode(1, 5); lit(w, 256) }),
		"distance before start 2": fixed(func(w *bitWriter) { lit(w, 257); w.putCode(0, 5); lit(w, 256) }),
		"no end of block":         fixed(func(w *bitWriter) { lit(w, 'a') }),
		"not final, then nothing": {0x02, 0x00}, // a fixed block, empty, not final
		"dynamic, too many codes": {0xfd, 0xff, 0xff},
		"dynamic truncated":       {0x05, 0x00},
		"stored then empty fixed": append([]byte{0x00, 0x03, 0x00, 0xfc, 0xff, 'a', 'b', 'c'}, 0x03, 0x00),
		"distance 1 length 258": fixed(func(w *bitWriter) {
			lit(w, 'z')
			lit(w, 285)
			w.putCode(0, 5)
			lit(w, 256)
		}),
		"length 258 from code 284": fixed(func(w *bitWriter) {
			lit(w, 'z')
			lit(w, 284)
			w.put(31, 5) // 227+31 = 258: allowed by the format, zlib too
			w.putCode(0, 5)
			lit(w, 256)
		}),
		"distance 2 overlap": fixed(func(w *bitWriter) {
			lit(w, 'a')
			lit(w, 'b')
			lit(w, 270) // length 23..24, 2 extra bits
			w.put(1, 2)
			w.putCode(1, 5)
			lit(w, 256)
		}),
		"trailing bytes ignored": append(fixed(func(w *bitWriter) { lit(w, 'k'); lit(w, 256) }), 1, 2, 3),
	}
	for name, c := range cases {
		want, werr := reference(c, Raw)
		for _, chunk := range []int{1, 0} {
			got, err := inflateAll(c, Raw, chunk, 0)
			if (err == nil) != (werr == nil) || err == nil && !bytes.Equal(got, want) {
				t.Errorf("%s (chunk %d): got %q, %v; stdlib %q, %v", name, chunk, got, err, want, werr)
			}
		}
	}
	// The errors are the documented ones.
	if _, err := inflateAll(cases["reserved block type"], Raw, 0, 0); !errors.Is(err, ErrCorrupt) {
		t.Errorf("reserved block type: %v, want ErrCorrupt", err)
	}
	if _, err := inflateAll(cases["stored truncated"], Raw, 0, 0); err != io.ErrUnexpectedEOF {
		t.Errorf("truncated: %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestZlibFraming(t *testing.T) {
	good := zlibBytes(t, []byte("hello, hello, hello"), 6)
	bad := func(f func(b []byte)) []byte { b := bytes.Clone(good); f(b); return b }
	cases := map[string][]byte{
		"bad method":    bad(func(b []byte) { b[0] = 0x79 }),
		"bad check":     bad(func(b []byte) { b[1]++ }),
		"dictionary":    {0x78, 0xbb, 0, 0, 0, 1, 0x03, 0x00},
		"bad checksum":  bad(func(b []byte) { b[len(b)-1]++ }),
		"no checksum":   good[:len(good)-4],
		"half checksum": good[:len(good)-2],
		"no header":     good[:1],
	}
	for name, c := range cases {
		if _, err := reference(c, Zlib); err == nil {
			t.Fatalf("%s: stdlib accepts it", name)
		}
		if got, err := inflateAll(c, Zlib, 0, 0); err == nil {
			t.Errorf("%s: accepted, %q", name, got)
		}
	}
	if _, err := inflateAll(cases["bad checksum"], Zlib, 0, 0); !errors.Is(err, ErrCorrupt) {
		t.Errorf("bad checksum: %v, want ErrCorrupt", err)
	}
}

// TestMalformed: every truncation and many bit flips of valid streams
// fail exactly when the standard library's decoder fails, with the same
// output when both succeed, and never panic.
func TestMalformed(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := inputs(t)["source"][:20000]
	for _, level := range levels {
		for _, f := range []Format{Raw, Zlib} {
			var c []byte
			if f == Raw {
				c = deflate(t, p, level)
			} else {
				c = zlibBytes(t, p, level)
			}
			step, flips := 1, 300
			if testing.Short() {
				step, flips = 13, 60
			}
			for n := 0; n < len(c); n += step {
				compare(t, fmt.Sprintf("level %d format %d cut at %d", level, f, n), c[:n], f)
			}
			for range flips {
				m := bytes.Clone(c)
				for range 1 + rng.IntN(3) {
					m[rng.IntN(len(m))] ^= 1 << rng.IntN(8)
				}
				compare(t, fmt.Sprintf("level %d format %d flipped", level, f), m, f)
			}
		}
	}
}

func compare(t *testing.T, name string, c []byte, f Format) {
	t.Helper()
	want, werr := reference(c, f)
	got, err := inflateAll(c, f, 0, 0)
	if (err == nil) != (werr == nil) {
		t.Fatalf("%s: got %v, stdlib %v", name, err, werr)
	}
	if err == nil && !bytes.Equal(got, want) {
		t.Fatalf("%s: output differs", name)
	}
	if err != nil && !bytes.HasPrefix(want, got) && !bytes.HasPrefix(got, want) {
		t.Fatalf("%s: the output before the error differs", name)
	}
}

// TestPeekContract: Peek(n) returns at least n bytes before the end and
// grows the buffer for a large n; Consume past the peeked data panics.
func TestPeekContract(t *testing.T) {
	in := inputs(t)
	p := append(bytes.Repeat(in["base64"], 5), in["random-1M"]...)
	z := NewReader(iobuf.NewReader(bytes.NewReader(deflate(t, p, 6)), 0), Raw)
	for _, n := range []int{1, 100, OutSize, OutSize + 1, 3 * OutSize} {
		b, err := z.Peek(n)
		if err != nil || len(b) < n {
			t.Fatalf("Peek(%d): %d bytes, %v", n, len(b), err)
		}
		if !bytes.Equal(b[:n], p[:n]) {
			t.Fatalf("Peek(%d): wrong bytes", n)
		}
	}
	z.Consume(10)
	p = p[10:]
	rest, err := io.ReadAll(z)
	if err != nil || !bytes.Equal(rest, p) {
		t.Fatalf("rest: %d bytes, %v", len(rest), err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Consume beyond the peeked data did not panic")
		}
	}()
	z.Consume(1)
}

// TestLeavesInput: after the stream, the input is positioned right after
// it when the last refill was byte by byte, so what follows can be read.
func TestLeavesInput(t *testing.T) {
	c := append(zlibBytes(t, []byte("short"), 6), "after"...)
	src := iobuf.NewReader(bytes.NewReader(c), 0)
	z := NewReader(src, Zlib)
	if got, err := io.ReadAll(z); err != nil || string(got) != "short" {
		t.Fatalf("%q, %v", got, err)
	}
	rest, _ := io.ReadAll(src)
	if string(rest) != "after" {
		t.Fatalf("left %q", rest)
	}
}

// TestResetReuses: a Reset reader decodes a second stream with no new
// buffers.
func TestResetReuses(t *testing.T) {
	c := zlibBytes(t, inputs(t)["source"], 6)
	z := NewReader(iobuf.NewReader(bytes.NewReader(c), 0), Zlib)
	io.Copy(io.Discard, z)
	src := iobuf.NewReader(bytes.NewReader(c), 0)
	allocs := testing.AllocsPerRun(5, func() {
		src = iobuf.NewReader(bytes.NewReader(c), 0)
		z.Reset(src, Zlib)
		if _, err := io.Copy(io.Discard, z); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 10 {
		t.Errorf("%v allocations per stream after Reset", allocs)
	}
	// Memory is bounded: the window and output room, nothing grown.
	if len(z.buf) != window+OutSize {
		t.Errorf("buffer grew to %d bytes", len(z.buf))
	}
}

func TestAdler(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	ff := bytes.Repeat([]byte{0xff}, 1<<20) // the largest sums
	for _, p := range [][]byte{big, ff} {
		for _, n := range []int{0, 1, 7, 63, 64, 65, 127, 128, 4095, 4096, 4097, 5552, 5553, 64 * 64 * 3, 1 << 20} {
			if got, want := adlerUpdate(1, p[:n]), adler32.Checksum(p[:n]); got != want {
				t.Fatalf("%d bytes: %08x, want %08x", n, got, want)
			}
		}
		// Split anywhere: the running sum carries over.
		a := adlerUpdate(adlerUpdate(1, p[:1000]), p[1000:])
		if a != adler32.Checksum(p) {
			t.Fatal("split sum differs")
		}
	}
}

// TestGPG decodes what gpg 2.2 writes with -z 6 (gpg --store -z 6
// --compress-algo zlib|zip FILE, the Compressed Data packet's body after
// its algorithm octet): a literal packet holding the file. gpg's ZIP uses
// an 8 KiB window, its ZLIB zlib's default 32 KiB.
func TestGPG(t *testing.T) {
	sizes := map[string]int{"random16k": 16384, "zeros1m": 1 << 20, "man30k": 30000, "gosrc120k": 120000}
	files, _ := filepath.Glob("testdata/gpg-z6-*")
	if len(files) != 2*len(sizes) {
		t.Fatalf("%d gpg-made streams in testdata, want %d", len(files), 2*len(sizes))
	}
	for _, name := range files {
		c, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f := Raw
		if filepath.Ext(name) == ".zlib" {
			f = Zlib
		}
		base := filepath.Base(name)
		size := sizes[base[len("gpg-z6-"):len(base)-len(filepath.Ext(base))]]
		want, err := reference(c, f)
		if err != nil || len(want) < size || len(want) > size+64 {
			t.Fatalf("%s: stdlib reads %d bytes, %v; the file has %d", name, len(want), err, size)
		}
		for _, chunk := range []int{1, 100, 0} {
			for _, rs := range []int{0, 1} {
				got, err := inflateAll(c, f, chunk, rs)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s chunk %d read %d: %d bytes, %v", name, chunk, rs, len(got), err)
				}
			}
		}
	}
}

// TestConforms holds the Reader to iobuf's reader contract, over deflate
// streams of several lengths read in every way the sources allow.
func TestConforms(t *testing.T) {
	iobuftest.Check(t, func(t *testing.T, src io.Reader) iobuf.Reader {
		return NewReader(iobuf.NewReader(src, 0), Raw)
	}, func(b []byte) []byte {
		var out bytes.Buffer
		fw, _ := flate.NewWriter(&out, 6)
		fw.Write(b)
		fw.Close()
		return out.Bytes()
	})
}
