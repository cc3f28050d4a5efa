// Package iobuftest holds every iobuf.Reader in the tree to the reader
// contract written in package iobuf's documentation, as testing/iotest
// does for io.Reader: the same checks, run against each implementation by
// its own package's tests.
package iobuftest

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/pgpstream/pgpstream/iobuf"
)

// Open returns a Reader whose stream is want, reading from src (which
// yields the bytes the implementation reads: want itself, or its
// encoding), or fails the test.
type Open func(t *testing.T, src io.Reader) iobuf.Reader

// Sources are the ways the bytes below may arrive: whole, a byte at a
// time, half of each request, with the error on the last read.
var Sources = map[string]func([]byte) io.Reader{
	"whole":   func(b []byte) io.Reader { return bytes.NewReader(b) },
	"onebyte": func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
	"half":    func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
	"dataerr": func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
}

// Check reads streams of several lengths through open, with encode making
// the bytes open reads from the stream (nil: the stream itself), in random
// patterns of Peek, Consume, Read and Peek(0), and fails t where the
// contract is broken:
//
//   - the bytes come out as they went in, none lost or repeated;
//   - Peek(n) returns at least n bytes unless the stream ends first, and
//     then io.EOF;
//   - a second Peek without a Consume between returns the same bytes
//     first, never fewer;
//   - Peek(0) never reads and never returns more than a Peek(1) would;
//   - after the end, Peek keeps returning io.EOF.
func Check(t *testing.T, open Open, encode func([]byte) []byte, sizes ...int) {
	t.Helper()
	if len(sizes) == 0 {
		sizes = []int{0, 1, 15, 16, 17, 511, 4096, 65537, 300000}
	}
	r := rand.New(rand.NewPCG(uint64(len(sizes)), 11))
	for name, source := range Sources {
		for _, size := range sizes {
			want := make([]byte, size)
			for i := range want {
				want[i] = byte(r.Uint32())
			}
			in := want
			if encode != nil {
				in = encode(want)
			}
			g := &gate{r: source(in), open: make(chan struct{})}
			close(g.open)
			rd := open(t, g)
			got := drain(t, rd, r, size, g)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s, %d bytes: read %d bytes, not the stream (first difference at %d)", name, size, len(got), firstDiff(got, want))
			}
			for range 2 {
				if b, err := rd.Peek(1); len(b) != 0 || !errors.Is(err, io.EOF) {
					t.Fatalf("%s, %d bytes: Peek after the end: %d bytes, %v", name, size, len(b), err)
				}
			}
		}
	}
}

// gate is a source whose reads can be held: Peek(0) must return while
// they are.
type gate struct {
	r    io.Reader
	mu   sync.Mutex
	open chan struct{}
}

func (g *gate) Read(p []byte) (int, error) {
	g.mu.Lock()
	ch := g.open
	g.mu.Unlock()
	<-ch
	return g.r.Read(p)
}

// hold makes reads wait until the returned function is called.
func (g *gate) hold() (release func()) {
	ch := make(chan struct{})
	g.mu.Lock()
	g.open = ch
	g.mu.Unlock()
	return func() { close(ch) }
}

func drain(t *testing.T, rd iobuf.Reader, r *rand.Rand, size int, g *gate) []byte {
	t.Helper()
	var got []byte
	for steps := 0; ; steps++ {
		if steps > 4*size+1000 {
			t.Fatalf("no end after %d steps (%d of %d bytes)", steps, len(got), size)
		}
		switch r.IntN(6) {
		case 0: // Read
			p := make([]byte, r.IntN(2000)+1)
			n, err := rd.Read(p)
			got = append(got, p[:n]...)
			if errors.Is(err, io.EOF) && n == 0 {
				return got
			}
			if err != nil && !errors.Is(err, io.EOF) {
				t.Fatalf("Read: %v", err)
			}
		case 1: // Peek(0), with the source held: it must not wait for it
			release := g.hold()
			type peeked struct {
				b   []byte
				err error
			}
			done := make(chan peeked, 1)
			go func() { b, err := rd.Peek(0); done <- peeked{append([]byte(nil), b...), err} }()
			var p peeked
			select {
			case p = <-done:
				release()
			case <-time.After(2 * time.Second):
				release()
				t.Fatalf("Peek(0) waited for the source")
			}
			b0, err := p.b, p.err
			if err != nil && !errors.Is(err, io.EOF) {
				t.Fatalf("Peek(0): %v", err)
			}
			b1, _ := rd.Peek(1)
			if len(b1) < len(b0) || !bytes.Equal(b1[:len(b0)], b0) {
				t.Fatalf("Peek(0) showed %d bytes that Peek(1) does not begin with", len(b0))
			}
		default:
			n := []int{1, 1, 5, 22, 33, 300, 5000}[r.IntN(7)]
			b, err := rd.Peek(n)
			if len(b) < n && !errors.Is(err, io.EOF) {
				t.Fatalf("Peek(%d): %d bytes, %v", n, len(b), err)
			}
			if err != nil && !errors.Is(err, io.EOF) {
				t.Fatalf("Peek(%d): %v", n, err)
			}
			first := append([]byte(nil), b...)
			again, _ := rd.Peek(n)
			if len(again) < len(first) || !bytes.Equal(again[:len(first)], first) {
				t.Fatalf("Peek(%d) twice: %d then %d bytes, not the same", n, len(first), len(again))
			}
			if len(again) == 0 && errors.Is(err, io.EOF) {
				return got
			}
			k := len(again)
			if r.IntN(2) == 0 {
				k = r.IntN(len(again) + 1)
			}
			got = append(got, again[:k]...)
			rd.Consume(k)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
