package filter

import (
	"bytes"
	"compress/bzip2"
	"compress/flate"
	"compress/zlib"
	"encoding/base64"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// text is compressible, not trivially: base64 of pseudo-random bytes
// with repeated stretches.
func text(n int) []byte {
	rng := rand.New(rand.NewPCG(9, 10))
	raw := make([]byte, n*3/4+3)
	for i := range raw {
		if i > 4096 && rng.IntN(4) == 0 {
			raw[i] = raw[i-1000-rng.IntN(2000)]
		} else {
			raw[i] = byte(rng.Uint32())
		}
	}
	return base64.StdEncoding.AppendEncode(nil, raw)[:n]
}

// zipPacket is a Compressed Data packet (ZIP) around inner, in partial lengths.
func zipPacket(t *testing.T, inner []byte) []byte {
	var c bytes.Buffer
	pw := packet.NewPartialWriter(&c, packet.TagCompressed, 4096)
	pw.Write([]byte{byte(packet.CompressZIP)})
	zw, _ := NewCompressor(pw, packet.CompressZIP, 6)
	zw.Write(inner)
	zw.Close()
	pw.Close()
	return c.Bytes()
}

// readAheads counts the read-ahead goroutines alive.
func readAheads() int {
	buf := make([]byte, 1<<20)
	return bytes.Count(buf[:runtime.Stack(buf, true)], []byte("iobuf.(*Ahead).fill("))
}

func TestCompressedRoundTrip(t *testing.T) {
	for _, algo := range []packet.CompressionAlgo{packet.CompressZIP, packet.CompressZLIB, packet.CompressBZIP2} {
		for _, n := range []int{0, 1, 100, 64 << 10, 3<<20 + 17} {
			pt := text(n)
			ct := encryptSym(t, pt, EncryptOptions{Compress: algo, Level: 6})
			var out bytes.Buffer
			if _, err := Decrypt(bytes.NewReader(ct), &out, DecryptOptions{Keys: passKeys{[]byte("pw")}}); err != nil || !bytes.Equal(out.Bytes(), pt) {
				t.Fatalf("%v, %d bytes: got %d bytes, %v", algo, n, out.Len(), err)
			}
		}
	}
}

// TestBZIP2Level: the level is bzip2's block size (the stream header
// says it, "BZh" and the digit), the default 6 as gpg's; a stream of
// several blocks reads back whole (compress/bzip2, a separate decoder).
func TestBZIP2Level(t *testing.T) {
	pt := text(350 << 10) // four blocks of 100 kB at level 1
	for _, tc := range []struct{ level, digit int }{{1, 1}, {9, 9}, {-1, 6}, {0, 6}} {
		var c bytes.Buffer
		w, err := NewCompressor(&c, packet.CompressBZIP2, tc.level)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(pt)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if h := string(c.Bytes()[:4]); h != "BZh"+string(rune('0'+tc.digit)) {
			t.Errorf("level %d: header %q, want BZh%d", tc.level, h, tc.digit)
		}
		got, err := io.ReadAll(bzip2.NewReader(&c))
		if err != nil || !bytes.Equal(got, pt) {
			t.Errorf("level %d: read back %d of %d bytes, %v", tc.level, len(got), len(pt), err)
		}
	}
}

// TestCompressorRatio: text is compressed at the ratio zlib's level 6
// gives (Go's compress/flate matches zlib closely), not stored.
func TestCompressorRatio(t *testing.T) {
	pt := text(200 << 10)
	var ref bytes.Buffer
	fw, _ := flate.NewWriter(&ref, 6)
	fw.Write(pt)
	fw.Close()
	for _, algo := range []packet.CompressionAlgo{packet.CompressZIP, packet.CompressZLIB} {
		var c bytes.Buffer
		w, err := NewCompressor(&c, algo, 6)
		if err != nil {
			t.Fatal(err)
		}
		// As the literal writer drives it: a header, then chunks.
		w.Write(pt[:7])
		for p := pt[7:]; len(p) > 0; p = p[min(len(p), 8192):] {
			w.Write(p[:min(len(p), 8192)])
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if c.Len() > ref.Len()*101/100+16 {
			t.Errorf("%v: %d bytes for %d, compress/flate level 6 writes %d", algo, c.Len(), len(pt), ref.Len())
		}
	}
}

// TestDecompressNoLeak: whatever ends a compressed stream early (corrupt
// data, a failing output, the output limit, tampering), the goroutine that
// reads ahead has stopped when Decrypt returns.
func TestDecompressNoLeak(t *testing.T) {
	big := text(4 << 20)
	good := zipPacket(t, literalPacket(big))
	corrupt := bytes.Clone(good)
	for i := len(corrupt) / 3; i < len(corrupt)/3+64; i++ {
		corrupt[i] ^= 0x5a
	}
	tampered := encryptRaw(t, good)
	tampered[len(tampered)/2] ^= 1

	cases := map[string]struct {
		msg []byte
		out io.Writer
		opt DecryptOptions
	}{
		"corrupt":        {encryptRaw(t, corrupt), io.Discard, DecryptOptions{}},
		"output fails":   {encryptRaw(t, good), failAfter{n: 100 << 10}, DecryptOptions{}},
		"output limit":   {encryptRaw(t, good), io.Discard, DecryptOptions{MaxDecompressed: 1 << 20}},
		"tampered":       {tampered, io.Discard, DecryptOptions{}},
		"truncated":      {encryptRaw(t, good)[:300<<10], io.Discard, DecryptOptions{}},
		"whole, control": {encryptRaw(t, good), io.Discard, DecryptOptions{}},
	}
	for name, c := range cases {
		c.opt.Keys = passKeys{[]byte("pw")}
		_, err := Decrypt(bytes.NewReader(c.msg), c.out, c.opt)
		if (err == nil) != (name == "whole, control") {
			t.Errorf("%s: %v", name, err)
		}
		if name == "tampered" && !errors.Is(err, ErrAuthentication) {
			t.Errorf("tampered: %v, want ErrAuthentication", err)
		}
		if name == "output limit" && !errors.Is(err, ErrTooMuchOutput) {
			t.Errorf("limit: %v, want ErrTooMuchOutput", err)
		}
		// No waiting: Decrypt returns after the goroutine has.
		if n := readAheads(); n != 0 {
			t.Errorf("%s: %d read-ahead goroutines left", name, n)
		}
	}
}

type failAfter struct{ n int }

func (f failAfter) Write(p []byte) (int, error) {
	return 0, errors.New("disk full")
}

// countingSource is an iobuf.Reader that counts what was consumed.
type countingSource struct {
	iobuf.Reader
	consumed int
	failAt   int // fail once this much is consumed (0: never)
}

func (c *countingSource) Peek(n int) ([]byte, error) {
	if c.failAt > 0 && c.consumed >= c.failAt {
		return nil, errBroken
	}
	return c.Reader.Peek(n)
}

func (c *countingSource) Consume(n int) {
	c.consumed += n
	c.Reader.Consume(n)
}

var errBroken = errors.New("broken source")

// TestDecompressTrailing: bytes after the compressed stream inside its
// packet are read off, and the next packet parses.
func TestDecompressTrailing(t *testing.T) {
	lit := literalPacket([]byte("inside"))
	var c bytes.Buffer
	c.WriteByte(byte(packet.CompressZLIB))
	zw, _ := NewCompressor(&c, packet.CompressZLIB, 6)
	zw.Write(lit)
	zw.Close()
	c.WriteString("trailing junk")
	pkt := append(packet.AppendHeader(nil, packet.TagCompressed, int64(c.Len())), c.Bytes()...)
	got, err := decryptPW(encryptRaw(t, pkt), DecryptOptions{})
	if err != nil || string(got) != "inside" {
		t.Fatalf("%q, %v", got, err)
	}
}

func BenchmarkDecryptCompressed(b *testing.B) {
	pt := text(32 << 20)
	ct := encryptSym(b, pt, EncryptOptions{Compress: packet.CompressZLIB, Level: 6})
	b.SetBytes(int64(len(pt)))
	for b.Loop() {
		if _, err := Decrypt(bytes.NewReader(ct), io.Discard, DecryptOptions{Keys: passKeys{[]byte("pw")}}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCompressorBlocks: the block-parallel compressor writes one valid
// stream, for the standard library's readers and ours, at every size
// around the block boundary, every level, both formats.
func TestCompressorBlocks(t *testing.T) {
	src := text(3*compressBlock + 100)
	sizes := []int{0, 1, window, compressBlock - 1, compressBlock, compressBlock + 1, 3*compressBlock + 100}
	levels := []int{-2, 0, 1, 6, 9}
	if testing.Short() {
		levels = []int{0, 6}
	}
	for _, algo := range []packet.CompressionAlgo{packet.CompressZIP, packet.CompressZLIB} {
		for _, level := range levels {
			for _, n := range sizes {
				var c bytes.Buffer
				w, err := NewCompressor(&c, algo, level)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := w.Write(src[:n]); err != nil {
					t.Fatal(err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				var r io.Reader = flate.NewReader(bytes.NewReader(c.Bytes()))
				if algo == packet.CompressZLIB {
					if r, err = zlib.NewReader(bytes.NewReader(c.Bytes())); err != nil {
						t.Fatalf("%v level %d, %d bytes: %v", algo, level, n, err)
					}
				}
				got, err := io.ReadAll(r)
				if err != nil || !bytes.Equal(got, src[:n]) {
					t.Fatalf("%v level %d, %d bytes: stdlib reads %d bytes, %v", algo, level, n, len(got), err)
				}
				d, _ := NewDecompressor(iobuf.NewReader(bytes.NewReader(c.Bytes()), 0), algo, 0)
				got, err = io.ReadAll(d)
				d.Close()
				if err != nil || !bytes.Equal(got, src[:n]) {
					t.Fatalf("%v level %d, %d bytes: we read %d bytes, %v", algo, level, n, len(got), err)
				}
			}
		}
	}
	// The zlib header is the one zlib (and compress/zlib) writes.
	for _, level := range []int{-1, 0, 1, 2, 5, 6, 7, 9} {
		var ref bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&ref, level)
		zw.Close()
		if h := zlibHeader(level); !bytes.Equal(h, ref.Bytes()[:2]) {
			t.Errorf("level %d: header %x, compress/zlib writes %x", level, h, ref.Bytes()[:2])
		}
	}
	// Blocks cost little: within 0.5% of one stream.
	var one, par bytes.Buffer
	fw, _ := flate.NewWriter(&one, 6)
	fw.Write(src)
	fw.Close()
	w, _ := NewCompressor(&par, packet.CompressZIP, 6)
	w.Write(src)
	w.Close()
	if par.Len() > one.Len()*1005/1000 {
		t.Errorf("blocks: %d bytes, one stream %d", par.Len(), one.Len())
	}
}

// TestCompressorWriteError: a failing destination is reported, and Close
// waits for the jobs.
func TestCompressorWriteError(t *testing.T) {
	w, _ := NewCompressor(failAfter{}, packet.CompressZLIB, 1)
	src := text(5 * compressBlock)
	_, werr := w.Write(src)
	cerr := w.Close()
	if werr == nil && cerr == nil {
		t.Fatal("no error from a failing destination")
	}
}
