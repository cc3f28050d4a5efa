package iobuf

import (
	"bytes"
	"errors"
	"io"
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

func TestUnconsume(t *testing.T) {
	r := NewReader(bytes.NewReader(pattern(100)), 64)
	buf, _ := r.Peek(10)
	first := append([]byte(nil), buf[:10]...)
	r.Consume(10)
	if !r.Unconsume(4) {
		t.Fatal("Unconsume refused bytes consumed since the last Peek")
	}
	buf, _ = r.Peek(4)
	if !bytes.Equal(buf[:4], first[6:10]) || r.Offset() != 6 {
		t.Fatalf("after Unconsume: %x at offset %d", buf[:4], r.Offset())
	}
	if r.Unconsume(100) {
		t.Fatal("Unconsume accepted more than was consumed")
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
