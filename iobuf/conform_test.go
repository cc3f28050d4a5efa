package iobuf_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/iobuf/iobuftest"
)

func TestBufferedConforms(t *testing.T) {
	for _, size := range []int{16, 4096, 0} {
		iobuftest.Check(t, func(t *testing.T, src io.Reader) iobuf.Reader { return iobuf.NewReader(src, size) }, nil)
	}
}

func TestAheadConforms(t *testing.T) {
	iobuftest.Check(t, func(t *testing.T, src io.Reader) iobuf.Reader {
		a := iobuf.NewAhead(src)
		t.Cleanup(func() { a.Close() })
		return a
	}, nil)
}

// countingReader counts what its source has been asked for, and fails at
// failAt bytes.
type countingReader struct {
	r      io.Reader
	read   int
	failAt int
}

var errBroken = errors.New("broken source")

func (c *countingReader) Read(p []byte) (int, error) {
	if c.failAt > 0 && c.read >= c.failAt {
		return 0, errBroken
	}
	if c.failAt > 0 {
		p = p[:min(len(p), c.failAt-c.read)]
	}
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

// TestAheadBounded: the goroutine reads at most its ring ahead of the
// consumer, an error from the source reaches the consumer after the bytes
// before it, Close stops a goroutine waiting for a buffer and waits for
// it, and Drain counts what it dropped.
func TestAheadBounded(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 300000)
	src := &countingReader{r: bytes.NewReader(data)}
	a := iobuf.NewAheadSize(src, 2, 64<<10)
	if b, err := a.Peek(1); err != nil || !bytes.Equal(b, data[:len(b)]) {
		t.Fatalf("first peek: %v", err)
	}
	a.Consume(1)
	time.Sleep(50 * time.Millisecond)
	a.Close()
	if src.read > 2*64<<10 {
		t.Errorf("read %d bytes ahead, the ring holds %d", src.read, 2*64<<10)
	}
	a.Close() // twice is fine

	src = &countingReader{r: bytes.NewReader(data), failAt: 300 << 10}
	a = iobuf.NewAheadSize(src, 2, 64<<10)
	got, err := io.ReadAll(a)
	if !errors.Is(err, errBroken) || len(got) != 300<<10 || !bytes.Equal(got, data[:len(got)]) {
		t.Errorf("failing source: %d bytes, %v", len(got), err)
	}
	a.Close()

	a = iobuf.NewAheadSize(bytes.NewReader(data), 2, 64<<10)
	a.Peek(1)
	a.Consume(1000)
	if n, err := a.Drain(); n != int64(len(data)-1000) || err != nil {
		t.Errorf("Drain: %d, %v", n, err)
	}
}

// slowWriter takes its time over each write and keeps what it wrote.
type slowWriter struct {
	bytes.Buffer
	fail int // fail the write after this many bytes (0: never)
}

func (s *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	if s.fail > 0 && s.Len()+len(p) > s.fail {
		return 0, errBroken
	}
	return s.Buffer.Write(p)
}

// TestAsyncWriterOrder: lent and plain writes reach the writer in order,
// every lent buffer is released once, and an error comes back from Wait
// and from the writes after it.
func TestAsyncWriterOrder(t *testing.T) {
	var w slowWriter
	a := iobuf.NewAsyncWriter(&w)
	var want bytes.Buffer
	released := 0
	for i := range 50 {
		p := bytes.Repeat([]byte{byte(i)}, 1000+i)
		want.Write(p)
		if i%3 == 0 {
			a.Write(p)
			continue
		}
		q := bytes.Clone(p)
		a.WriteOwned(q, func() { released++; clear(q) })
	}
	if err := a.Close(); err != nil || !bytes.Equal(w.Bytes(), want.Bytes()) || released != 33 {
		t.Fatalf("err %v, %d bytes (want %d), %d released", err, w.Len(), want.Len(), released)
	}

	f := slowWriter{fail: 5000}
	a = iobuf.NewAsyncWriter(&f)
	for range 10 {
		a.WriteOwned(make([]byte, 1000), func() {})
	}
	if err := a.Wait(); !errors.Is(err, errBroken) {
		t.Fatalf("Wait: %v", err)
	}
	if err := a.WriteOwned(make([]byte, 10), func() {}); !errors.Is(err, errBroken) {
		t.Fatalf("a write after the error: %v", err)
	}
	a.Close()
}

// runsOf is a RunSource that cuts its source's bytes into runs of 1 to
// 700 bytes, each read in full before it is offered, and offers nothing
// for want 0 before a run is at hand, as RunSource says.
type runsOf struct {
	src  io.Reader
	rng  uint32
	run  []byte
	err  error
	held bool // run holds unconsumed bytes
}

func (r *runsOf) Run(want int) ([]byte, error) {
	if r.held && len(r.run) > 0 {
		return r.run, nil
	}
	if want == 0 || r.err != nil {
		return nil, r.err
	}
	r.rng = r.rng*1103515245 + 12345
	buf := make([]byte, 1+int(r.rng>>16)%700)
	n, err := io.ReadFull(r.src, buf)
	if n == 0 {
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		r.err = err
		return nil, err
	}
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		r.err = err
	} else if err != nil {
		r.err = nil
	}
	r.run, r.held = buf[:n], true
	return r.run, nil
}

func (r *runsOf) Advance(n int) {
	r.run = r.run[n:]
	r.held = len(r.run) > 0
}

// TestJoinedConforms holds Joined itself to the contract, over runs that
// end anywhere in a consumer's Peek (its users, packet.Body, Ahead and the
// AEAD opener, are held to it by their own packages).
func TestJoinedConforms(t *testing.T) {
	iobuftest.Check(t, func(t *testing.T, src io.Reader) iobuf.Reader {
		return iobuf.NewJoined(&runsOf{src: src, rng: 7})
	}, nil)
}
