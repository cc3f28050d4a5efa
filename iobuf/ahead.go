package iobuf

import (
	"errors"
	"io"
	"sync"
)

// Ahead is a Reader whose source is read on a goroutine of its own into a
// small ring of buffers: the read(2) copies out of the page cache run on
// one core while the stages above decrypt on another. A message read
// from a file is otherwise bound by the sum of the two; with Ahead, by
// the larger.
//
// It reads at most the ring's size ahead of the consumer. Close stops the
// goroutine once its read in progress returns; a consumer that stops
// early must call it.
//
// Copies per byte: one, the kernel's read into a ring buffer, which the
// stage above reads in place. A Peek across two ring buffers joins the
// bytes it needs in a side buffer (a header's worth).
type Ahead struct {
	full chan aheadRun
	free chan []byte
	quit chan struct{}
	once sync.Once

	cur    []byte // the run being consumed
	buf    []byte // the ring buffer under cur, to hand back
	r      int    // consumed of cur
	err    error  // the source's error, after its last run
	offset int64

	// join is the side buffer of a Peek across runs: join[:old] are bytes
	// of finished runs; join[old:] copies the current run's first bytes,
	// not yet consumed from it.
	join []byte
	old  int
}

type aheadRun struct {
	buf []byte
	n   int
	err error
}

// AheadBuffers and AheadSize shape the ring: four buffers of 256 KiB,
// 1 MiB in flight. Measured on a 512 MiB AES-256 OCB file (gpg 2.4's,
// 1-64 KiB partial lengths) to /dev/null, 256 KiB and 1 MiB runs gave the
// same time within noise; 64 KiB runs cost more hand-offs.
const (
	AheadBuffers = 4
	AheadSize    = 256 << 10
)

// NewAhead starts reading src on a goroutine.
func NewAhead(src io.Reader) *Ahead {
	a := &Ahead{
		full: make(chan aheadRun, AheadBuffers),
		free: make(chan []byte, AheadBuffers),
		quit: make(chan struct{}),
	}
	for range AheadBuffers {
		a.free <- make([]byte, AheadSize)
	}
	go a.fill(src)
	return a
}

func (a *Ahead) fill(src io.Reader) {
	for {
		var b []byte
		select {
		case b = <-a.free:
		case <-a.quit:
			return
		}
		n, err := src.Read(b)
		for try := 0; n == 0 && err == nil; try++ {
			if try == 100 {
				err = io.ErrNoProgress // a source that returns nothing forever
				break
			}
			n, err = src.Read(b)
		}
		select {
		case a.full <- aheadRun{b, n, err}:
		case <-a.quit:
			return
		}
		if err != nil {
			return
		}
	}
}

// next makes the next run current, handing the finished one back.
func (a *Ahead) next() bool {
	if a.err != nil {
		return false
	}
	if a.buf != nil {
		a.free <- a.buf
		a.buf, a.cur, a.r = nil, nil, 0
	}
	run := <-a.full
	a.buf, a.cur, a.r = run.buf, run.buf[:run.n], 0
	if run.err != nil {
		a.err = run.err
	}
	return true
}

// Peek implements Reader.
func (a *Ahead) Peek(n int) ([]byte, error) {
	if n > MaxPeek {
		return nil, ErrPeekTooLarge
	}
	if a.old > 0 {
		if a.old >= n {
			return a.join[:a.old], nil
		}
		return a.joinPeek(n)
	}
	for len(a.cur)-a.r == 0 {
		if n == 0 {
			if a.err != nil {
				return nil, a.err
			}
			select {
			case run := <-a.full:
				a.take(run)
				continue
			default:
				return nil, nil
			}
		}
		if !a.next() {
			return nil, a.err
		}
	}
	if rest := a.cur[a.r:]; len(rest) >= n {
		return rest, nil
	}
	return a.joinPeek(n)
}

// take is next for a run already received.
func (a *Ahead) take(run aheadRun) {
	if a.buf != nil {
		a.free <- a.buf
	}
	a.buf, a.cur, a.r = run.buf, run.buf[:run.n], 0
	if run.err != nil {
		a.err = run.err
	}
}

// joinPeek serves a Peek of n bytes that the current run cannot: the
// runs it covers whole move into the side buffer, and the run where it
// ends lends a copy of its first bytes.
func (a *Ahead) joinPeek(n int) ([]byte, error) {
	a.join = a.join[:a.old]
	for {
		rest := a.cur[a.r:]
		need := n - len(a.join)
		if len(rest) >= need {
			a.join = append(a.join, rest[:need]...)
			return a.join, nil // join[old:] stays unconsumed in cur
		}
		a.join = append(a.join, rest...)
		a.r = len(a.cur)
		a.old = len(a.join)
		if !a.next() {
			err := a.err
			if err == nil {
				err = io.ErrNoProgress
			}
			return a.join, err
		}
	}
}

// Consume implements Reader.
func (a *Ahead) Consume(n int) {
	if n < 0 {
		panic("iobuf: Consume beyond the peeked data")
	}
	a.offset += int64(n)
	if a.old > 0 {
		if n <= a.old {
			a.join = append(a.join[:0], a.join[n:a.old]...)
			a.old -= n
			return
		}
		n -= a.old
		a.join, a.old = a.join[:0], 0
	}
	if n > len(a.cur)-a.r {
		panic("iobuf: Consume beyond the peeked data")
	}
	a.r += n
}

// Read implements io.Reader.
func (a *Ahead) Read(p []byte) (int, error) { return ReadVia(a, p) }

// WriteTo implements io.WriterTo.
func (a *Ahead) WriteTo(w io.Writer) (int64, error) { return WriteTo(a, w) }

// Offset is the number of bytes consumed so far.
func (a *Ahead) Offset() int64 { return a.offset }

// Close stops the reading goroutine. Reading after Close fails.
func (a *Ahead) Close() error {
	a.once.Do(func() { close(a.quit) })
	if a.err == nil {
		a.err = errAheadClosed
	}
	a.cur, a.r, a.join, a.old = nil, 0, nil, 0
	return nil
}

var errAheadClosed = errors.New("iobuf: read after Close")
