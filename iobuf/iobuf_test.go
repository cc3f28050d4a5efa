package iobuf

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"testing"
	"testing/iotest"
)

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*13 + i>>8)
	}
	return b
}

// TestPeekConsume reads a stream through every combination of source
// chunking, buffer size and peek size, keeping some bytes back as the
// trailer-holding filters do, and checks nothing is lost or repeated.
func TestPeekConsume(t *testing.T) {
	data := pattern(100_000)
	sources := map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(data) },
		"one-byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) },
		"half":     func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
		"data-err": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(data)) },
	}
	for name, src := range sources {
		for _, size := range []int{1, 16, 4096, DefaultSize} {
			for _, peek := range []int{1, 22, 1000, 70000} {
				r := NewReader(src(), size)
				var got []byte
				for {
					buf, err := r.Peek(peek)
					if len(buf) < peek && err == nil {
						t.Fatalf("%s/%d/%d: Peek returned %d bytes and no error", name, size, peek, len(buf))
					}
					take := len(buf)
					if err == nil && take > 16 {
						take -= 16 // hold some back, like an MDC
					}
					got = append(got, buf[:take]...)
					r.Consume(take)
					if err == io.EOF && take == len(buf) {
						break
					}
					if err != nil && err != io.EOF {
						t.Fatal(err)
					}
				}
				if !bytes.Equal(got, data) {
					t.Fatalf("%s/%d/%d: got %d bytes, want %d", name, size, peek, len(got), len(data))
				}
				if r.Offset() != int64(len(data)) {
					t.Fatalf("%s/%d/%d: Offset %d", name, size, peek, r.Offset())
				}
			}
		}
	}
}

func TestPeekNeverShrinks(t *testing.T) {
	r := NewReader(iotest.OneByteReader(bytes.NewReader(pattern(1000))), 64)
	a, _ := r.Peek(10)
	b, _ := r.Peek(5)
	if len(b) < len(a) || !bytes.Equal(a, b[:len(a)]) {
		t.Fatalf("a second, smaller Peek gave %d bytes after %d", len(b), len(a))
	}
}

// TestPeekZero: Peek(0) shows what is buffered and never reads.
func TestPeekZero(t *testing.T) {
	src := &countReader{r: bytes.NewReader(pattern(100))}
	r := NewReader(src, 64)
	if buf, err := r.Peek(0); len(buf) != 0 || err != nil || src.reads != 0 {
		t.Fatalf("Peek(0) on a fresh reader: %d bytes, %v, %d reads", len(buf), err, src.reads)
	}
	r.Peek(10)
	reads := src.reads
	buf, err := r.Peek(0)
	if len(buf) < 10 || err != nil || src.reads != reads {
		t.Fatalf("Peek(0) after Peek(10): %d bytes, %v, %d more reads", len(buf), err, src.reads-reads)
	}
	r.Consume(len(buf))
	if buf, err := r.Peek(0); len(buf) != 0 || err != nil {
		t.Fatalf("Peek(0) with nothing buffered: %d bytes, %v", len(buf), err)
	}
	io.Copy(io.Discard, r)
	if _, err := r.Peek(0); err != io.EOF {
		t.Fatalf("Peek(0) at the end: %v", err)
	}
}

type countReader struct {
	r     io.Reader
	reads int
}

func (c *countReader) Read(p []byte) (int, error) { c.reads++; return c.r.Read(p) }

// TestPeekAll: beyond n, Peek returns everything buffered.
func TestPeekAll(t *testing.T) {
	r := NewReader(bytes.NewReader(pattern(1000)), 512)
	r.Peek(300)
	r.Consume(100)
	if buf, _ := r.Peek(1); len(buf) != 412 {
		t.Fatalf("Peek(1) gave %d of the 412 buffered bytes", len(buf))
	}
}

// TestWriteToGathers: rounds smaller than gatherMin reach the writer
// gathered, so only the last write is smaller than gatherMin.
func TestWriteToGathers(t *testing.T) {
	data := pattern(3 << 20)
	for _, size := range []int{64, 8 << 10, gatherMin - 1, gatherMin, DefaultSize} {
		var out writeLog
		n, err := WriteTo(NewReader(iotest.HalfReader(bytes.NewReader(data)), size), &out)
		if err != nil || n != int64(len(data)) || !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("buffer %d: %d bytes, %v", size, n, err)
		}
		for i, w := range out.sizes[:len(out.sizes)-1] {
			if w < gatherMin {
				t.Fatalf("buffer %d: write %d of %d is %d bytes", size, i, len(out.sizes), w)
			}
		}
	}
}

type writeLog struct {
	bytes.Buffer
	sizes []int
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	return w.Buffer.Write(p)
}

// TestStage holds a trailer back over every way of producing and consuming.
func TestStage(t *testing.T) {
	data := pattern(10_000)
	for _, lending := range []bool{false, true} {
		for _, keep := range []int{0, 1, 22} {
			for _, size := range []int{64, 1000, 4096} {
				for _, step := range []int{1, 7, 100, 5000} {
					for _, peek := range []int{1, 30, 200} {
						s := NewStage(size, keep)
						if lending {
							s = NewLendingStage(size, keep)
						}
						// Loans come back one round late, from another
						// goroutine, checking the lent bytes did not change.
						var loans sync.WaitGroup
						var back func()
						var got, rel []byte
						in := data
						for {
							for len(s.Ready()) < peek && !s.Ended() {
								dst := s.Space(peek)
								if len(dst) == 0 {
									break
								}
								k := copy(dst, in[:min(step, len(in))])
								in = in[k:]
								r := s.Produce(k)
								rel = append(rel, r...)
								if lending && len(r) > 0 {
									if back != nil {
										back()
									}
									release, want := s.Lend(r), append([]byte(nil), r...)
									loans.Add(1)
									c := make(chan struct{})
									back = func() { close(c) }
									go func() {
										defer loans.Done()
										<-c
										if !bytes.Equal(r, want) {
											t.Errorf("lent bytes changed before they came back")
										}
										release()
									}()
								}
								if len(in) == 0 {
									tr := s.End()
									if want := data[len(data)-keep:]; !bytes.Equal(tr, want) {
										t.Fatalf("keep %d size %d step %d: trailer %x", keep, size, step, tr)
									}
								}
							}
							r := s.Ready()
							if len(r) == 0 && s.Ended() {
								break
							}
							if len(r) < peek && !s.Ended() {
								t.Fatalf("keep %d size %d: %d ready after filling for %d", keep, size, len(r), peek)
							}
							take := min(len(r), peek)
							got = append(got, r[:take]...)
							s.Consume(take)
						}
						if back != nil {
							back()
						}
						loans.Wait()
						want := data[:len(data)-keep]
						if !bytes.Equal(got, want) || !bytes.Equal(rel, want) {
							t.Fatalf("lending %v keep %d size %d step %d peek %d: got %d, released %d, want %d", lending, keep, size, step, peek, len(got), len(rel), len(want))
						}
					}
				}
			}
		}
	}
}

func TestPeekBound(t *testing.T) {
	r := NewReader(bytes.NewReader(nil), 16)
	if _, err := r.Peek(MaxPeek + 1); !errors.Is(err, ErrPeekTooLarge) {
		t.Fatalf("got %v", err)
	}
}

// zeroReader returns (0, nil) forever: a broken source must end in an
// error, not a loop.
type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestNoProgress(t *testing.T) {
	_, err := NewReader(zeroReader{}, 16).Peek(1)
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("got %v", err)
	}
}

func TestWriterLendsBuffer(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, 100)
	data := pattern(1000)
	for p := data; len(p) > 0; {
		buf, err := w.Buffer()
		if err != nil {
			t.Fatal(err)
		}
		n := copy(buf, p[:min(len(p), 37)])
		if err := w.Commit(n); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
	}
	w.Write(data[:5])
	if _, err := w.ReadFrom(iotest.HalfReader(bytes.NewReader(data))); err != nil {
		t.Fatal(err)
	}
	w.Close()
	want := append(append(append([]byte(nil), data...), data[:5]...), data...)
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("got %d bytes, want %d", out.Len(), len(want))
	}
}

func TestWriteTo(t *testing.T) {
	data := pattern(300_000)
	var out bytes.Buffer
	n, err := NewReader(bytes.NewReader(data), 1000).WriteTo(&out)
	if err != nil || n != int64(len(data)) || !bytes.Equal(out.Bytes(), data) {
		t.Fatalf("WriteTo: %d, %v", n, err)
	}
}
