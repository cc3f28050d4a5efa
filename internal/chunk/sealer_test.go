package chunk

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// runs collects a Sealer's runs and last segment, and checks the
// framing rules it relies on.
type runs struct {
	t      *testing.T
	body   bytes.Buffer
	n      int
	closed bool
}

func (r *runs) WriteRun(frame []byte, off int) error {
	b := frame[off:]
	if r.closed || (r.n == 0 && len(b) < 512) {
		r.t.Fatalf("run %d of %d bytes (closed %v)", r.n, len(b), r.closed)
	}
	r.n++
	r.body.Write(b)
	return nil
}

func (r *runs) Close(frame []byte, off int) error {
	last := frame[off:]
	r.closed = true
	r.body.Write(last)
	return nil
}

// TestSealerAsWriter: the Sealer's packet body is byte for byte what
// NewWriter writes (prefix first), for the boundary table, written in
// commits of every size from one byte to beyond a run, with a full run
// going out as one power of two.
func TestSealerAsWriter(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	prefix := []byte{1, 9, 2, 16, 0xaa, 0xbb, 0xcc} // the packet's fixed fields, as tag 20 has them
	for name, e := range map[string]Engine{"asm": ocbEngine, "purego": ocbPureGo} {
		for _, cb := range []byte{0, 4, 10, 16} {
			s := ocbSuite(t, e, cb)
			cs := s.ChunkSize
			sizes := []int{0, 1, 15, 16, 17, cs - 1, cs, cs + 1, 2*cs + 255, SealRun - 1, SealRun, SealRun + 17, 3*SealRun + 5}
			if cs <= 1<<16 {
				sizes = append(sizes, 5*cs+7)
			}
			for _, n := range sizes {
				pt := make([]byte, n)
				for i := range pt {
					pt[i] = byte(r.Uint32())
				}
				want := append(bytes.Clone(prefix), seal(t, s, pt, 1)...)
				for _, maxCommit := range []int{1, 13, 4096, 1 << 20} {
					if maxCommit == 1 && n > 3000 {
						continue
					}
					out := &runs{t: t}
					w, err := NewSealer(out, s, prefix)
					if err != nil {
						t.Fatal(err)
					}
					for rest := pt; len(rest) > 0; {
						k := min(len(rest), 1+r.IntN(maxCommit))
						if r.IntN(2) == 0 {
							// Sealed out of place, from the caller's bytes.
							if m, err := w.Write(rest[:k]); err != nil || m != k {
								t.Fatalf("Write: %d of %d, %v", m, k, err)
							}
							rest = rest[k:]
							continue
						}
						buf, err := w.Buffer()
						if err != nil || len(buf) == 0 {
							t.Fatalf("Buffer: %d bytes, %v", len(buf), err)
						}
						k = min(k, len(buf))
						copy(buf, rest[:k])
						if err := w.Commit(k); err != nil {
							t.Fatal(err)
						}
						rest = rest[k:]
					}
					if err := w.Close(); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(out.body.Bytes(), want) {
						t.Fatalf("%s chunk %d payload %d commits ≤%d: the body differs from NewWriter's", name, cs, n, maxCommit)
					}
				}
			}
		}
	}
}

// TestSealerRuns: with big commits, every run but the last is SealRun
// bytes, one partial segment each.
func TestSealerRuns(t *testing.T) {
	s := ocbSuite(t, ocbEngine, 16)
	var sizes []int
	out := &sizeRuns{sizes: &sizes}
	w, _ := NewSealer(out, s, make([]byte, 19))
	pt := make([]byte, 10<<20+3)
	for rest := pt; len(rest) > 0; {
		buf, _ := w.Buffer()
		k := copy(buf, rest)
		w.Commit(k)
		rest = rest[k:]
	}
	w.Close()
	for i, n := range sizes[:len(sizes)-1] {
		if n != SealRun {
			t.Fatalf("run %d: %d bytes", i, n)
		}
	}
}

type sizeRuns struct{ sizes *[]int }

func (s *sizeRuns) WriteRun(b []byte, off int) error {
	*s.sizes = append(*s.sizes, len(b)-off)
	return nil
}
func (s *sizeRuns) Close(b []byte, off int) error {
	*s.sizes = append(*s.sizes, len(b)-off)
	return nil
}

func BenchmarkSealer(b *testing.B) {
	s := ocbSuite(b, ocbEngine, 16)
	pt := make([]byte, 64<<20)
	b.SetBytes(int64(len(pt)))
	for b.Loop() {
		w, _ := NewSealer(&sizeRuns{sizes: new([]int)}, s, make([]byte, 19))
		for rest := pt; len(rest) > 0; {
			buf, _ := w.Buffer()
			k := copy(buf, rest)
			w.Commit(k)
			rest = rest[k:]
		}
		w.Close()
	}
}
