package iobuf

import (
	"errors"
	"io"
	"sync"

	"github.com/pgpstream/pgpstream/internal/spin"
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
	*Joined
	runs   *aheadRuns
	offset int64
}

// aheadRuns is the ring as a RunSource: the run is the buffer being read.
type aheadRuns struct {
	full chan aheadRun
	free chan []byte
	quit chan struct{}
	done chan struct{} // closed when the goroutine has returned
	once sync.Once

	cur []byte // the run being consumed
	buf []byte // the ring buffer under cur, to hand back
	r   int    // consumed of cur
	err error  // the source's error, after its last run

	fillWait, runWait spin.Waiter // the reader's, the consumer's
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

// NewAhead starts reading src on a goroutine into the ring above.
func NewAhead(src io.Reader) *Ahead { return NewAheadSize(src, AheadBuffers, AheadSize) }

// NewAheadSize is NewAhead with a ring of n buffers of size bytes. Each
// buffer is handed over full (or at the end of src), so a source that
// reads in small rounds (a packet body in 8 KiB segments) still costs one
// hand-over per buffer.
func NewAheadSize(src io.Reader, n, size int) *Ahead {
	a := &aheadRuns{
		full: make(chan aheadRun, n),
		free: make(chan []byte, n),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	for range n {
		a.free <- make([]byte, size)
	}
	go a.fill(src)
	return &Ahead{Joined: NewJoined(a), runs: a}
}

func (a *aheadRuns) fill(src io.Reader) {
	defer close(a.done)
	for {
		var b []byte
		a.fillWait.Wait(func() bool { return len(a.free) > 0 }) // see package spin
		select {
		case b = <-a.free:
		case <-a.quit:
			return
		}
		n, err := 0, error(nil)
		for stalls := 0; n < len(b) && err == nil; {
			m, rerr := src.Read(b[n:])
			n += m
			err = rerr
			if m == 0 && err == nil {
				if stalls++; stalls == 100 {
					err = io.ErrNoProgress // a source that returns nothing forever
				}
			}
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

// Run implements RunSource.
func (a *aheadRuns) Run(want int) ([]byte, error) {
	for a.r == len(a.cur) {
		if a.err != nil {
			return nil, a.err
		}
		var run aheadRun
		if want > 0 {
			a.runWait.Wait(func() bool { return len(a.full) > 0 })
			run = <-a.full
		} else {
			select {
			case run = <-a.full:
			default:
				return nil, nil
			}
		}
		if a.buf != nil {
			a.free <- a.buf
		}
		a.buf, a.cur, a.r, a.err = run.buf, run.buf[:run.n], 0, run.err
	}
	return a.cur[a.r:], nil
}

// Advance implements RunSource.
func (a *aheadRuns) Advance(n int) {
	if n > len(a.cur)-a.r {
		panic("iobuf: Consume beyond the peeked data")
	}
	a.r += n
}

// Consume implements Reader.
func (a *Ahead) Consume(n int) {
	a.offset += int64(n)
	a.Joined.Consume(n)
}

// Read implements io.Reader.
func (a *Ahead) Read(p []byte) (int, error) { return ReadVia(a, p) }

// WriteTo implements io.WriterTo.
func (a *Ahead) WriteTo(w io.Writer) (int64, error) { return WriteTo(a, w) }

// Offset is the number of bytes consumed so far.
func (a *Ahead) Offset() int64 { return a.offset }

// Drain consumes the rest of the stream and returns how many bytes that
// was and what ended it: nil at a clean end. The goroutine has stopped
// when it returns.
func (a *Ahead) Drain() (int64, error) {
	var n int64
	for {
		b, err := a.Peek(1)
		n += int64(len(b))
		a.Consume(len(b))
		if err != nil {
			<-a.runs.done
			if err == io.EOF {
				return n, nil
			}
			return n, err
		}
	}
}

// Close stops the reading goroutine and waits for it, so the caller may
// use the source again once the read in progress returns. Reading after
// Close fails; Close may be called twice.
func (a *Ahead) Close() error {
	r := a.runs
	r.once.Do(func() { close(r.quit) })
	<-r.done
	if r.err == nil {
		r.err = errAheadClosed
	}
	r.cur, r.r = nil, 0
	a.Joined = NewJoined(r)
	return nil
}

var errAheadClosed = errors.New("iobuf: read after Close")
