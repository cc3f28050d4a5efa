package chunk

import (
	"bytes"
	"crypto/cipher"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/pgpstream/pgpstream/internal/ocb"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

func ocbEngine(c packet.CipherAlgo, mode packet.AEADAlgo, key []byte) (cipher.AEAD, error) {
	return ocb.New(key, mode.NonceSize())
}

func ocbPureGo(c packet.CipherAlgo, mode packet.AEADAlgo, key []byte) (cipher.AEAD, error) {
	return ocb.NewPureGo(key, mode.NonceSize())
}

// whole hides an engine's Pieces, so the same bytes go through the
// gathering opener: the reference the piece opener must agree with.
type whole struct{ cipher.AEAD }

func wholeOf(e Engine) Engine {
	return func(c packet.CipherAlgo, m packet.AEADAlgo, k []byte) (cipher.AEAD, error) {
		a, err := e(c, m, k)
		return whole{a}, err
	}
}

func ocbSuite(t testing.TB, e Engine, chunkByte byte) *Suite {
	t.Helper()
	return NewAEADData(e, packet.AEADData{Version: 1, Cipher: packet.CipherAES256, AEAD: packet.AEADOCB,
		ChunkByte: chunkByte, IV: bytes.Repeat([]byte{3}, 15)}, bytes.Repeat([]byte{4}, 32))
}

// cutReader hands out its bytes in runs of random length, as a packet
// body in partial lengths of any size (or a pipe) would: every offset of
// a block and of a chunk becomes a run boundary somewhere.
type cutReader struct {
	b   []byte
	r   *rand.Rand
	max int
}

func (c *cutReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.b), 1+c.r.IntN(c.max))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

func openVia(s *Suite, src iobuf.Reader) ([]byte, error) {
	o, err := NewOpener(src, s, 1)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	var out []byte
	for {
		run, err := o.Next()
		out = append(out, run...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// TestPieceOpener: the boundary table (empty, a byte, a chunk less one,
// a chunk, a chunk and one, several chunks and a tail) for 64-byte,
// 1 KiB and 64 KiB chunks, read in runs of 1, a few, about a segment,
// and whole, on the assembly engine and its pure-Go twin: the plaintext
// is the gathering opener's, byte for byte.
func TestPieceOpener(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for name, e := range map[string]Engine{"asm": ocbEngine, "purego": ocbPureGo} {
		for _, cb := range []byte{0, 4, 10} {
			s := ocbSuite(t, e, cb)
			ref := ocbSuite(t, wholeOf(e), cb)
			if _, ok := must(newCrypter(s)).pieces.(Pieces); !ok {
				t.Fatalf("%s: the OCB engine does not take pieces", name)
			}
			cs := s.ChunkSize
			for _, n := range []int{0, 1, 15, 16, 17, cs - 1, cs, cs + 1, 2*cs + 255, 3*cs + 7} {
				pt := make([]byte, n)
				for i := range pt {
					pt[i] = byte(r.Uint32())
				}
				ct := seal(t, s, pt, 1)
				want, err := openVia(ref, iobuf.NewReader(bytes.NewReader(ct), 0))
				if err != nil || !bytes.Equal(want, pt) {
					t.Fatalf("%s: the gathering opener fails: %v", name, err)
				}
				for _, maxRun := range []int{1, 7, 300, 9000, 1 << 20} {
					if maxRun == 1 && n > 5000 {
						continue
					}
					src := iobuf.NewReader(&cutReader{b: ct, r: r, max: maxRun}, 64)
					got, err := openVia(s, src)
					if err != nil || !bytes.Equal(got, pt) {
						t.Fatalf("%s chunk %d payload %d runs ≤%d: %v, %d bytes", name, cs, n, maxRun, err, len(got))
					}
				}
			}
		}
	}
}

// TestPieceOpenerTampering: a flipped bit in each chunk, its tag, the
// final tag; a cut at every length; nothing after the last good chunk is
// released, and the last chunk only with a good final tag.
func TestPieceOpenerTampering(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	s := ocbSuite(t, ocbEngine, 0) // 64-byte chunks
	cs, full := s.ChunkSize, s.ChunkSize+TagSize
	pt := bytes.Repeat([]byte("0123456789abcdef"), 13) // 208 bytes: 3 chunks and 16
	ct := seal(t, s, pt, 1)
	open := func(b []byte) ([]byte, error) {
		return openVia(s, iobuf.NewReader(&cutReader{b: b, r: r, max: 50}, 16))
	}
	for i := range ct {
		bad := bytes.Clone(ct)
		bad[i] ^= 0x04
		got, err := open(bad)
		if !errors.Is(err, ErrAuthentication) {
			t.Fatalf("bit flip at %d: %v", i, err)
		}
		if ok := (i / full) * cs; len(got) > ok || !bytes.Equal(got, pt[:len(got)]) {
			t.Fatalf("bit flip at %d: %d bytes released, %d authenticated", i, len(got), ok)
		}
	}
	for cut := range len(ct) {
		got, err := open(ct[:cut])
		if err == nil {
			t.Fatalf("cut to %d: no error", cut)
		}
		if !errors.Is(err, ErrAuthentication) && !errors.Is(err, packet.ErrTruncated) {
			t.Fatalf("cut to %d: %v", cut, err)
		}
		if len(got) > 3*cs || !bytes.Equal(got, pt[:len(got)]) {
			t.Fatalf("cut to %d: %d bytes released", cut, len(got))
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// BenchmarkPieceOpener opens 64 MiB of 4 MiB chunks that arrive in gpg
// 2.4's segment sizes (1 KiB to 32 KiB, each run of a segment a separate
// Peek), against the gathering opener on the same runs.
func BenchmarkPieceOpener(b *testing.B) {
	pt := make([]byte, 64<<20)
	for name, e := range map[string]Engine{"pieces": ocbEngine, "gather": wholeOf(ocbEngine)} {
		s := NewAEADData(e, packet.AEADData{Version: 1, Cipher: packet.CipherAES256, AEAD: packet.AEADOCB,
			ChunkByte: 16, IV: make([]byte, 15)}, make([]byte, 32))
		var out bytes.Buffer
		w, _ := NewWriter(nopCloser{&out}, s, 1)
		w.Write(pt)
		w.Close()
		ct := out.Bytes()
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(pt)))
			for b.Loop() {
				src := iobuf.NewReader(&segReader{b: ct}, 256<<10)
				o, _ := NewOpener(src, s, 1)
				for {
					if _, err := o.Next(); err != nil {
						break
					}
				}
			}
		})
	}
}

// segReader returns gpg 2.4.8's partial-length sizes in turn.
type segReader struct {
	b []byte
	i int
}

func (s *segReader) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(s.b), 1024<<(s.i%6))
	s.i++
	copy(p, s.b[:n])
	s.b = s.b[n:]
	return n, nil
}
