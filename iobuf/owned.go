package iobuf

import (
	"io"
	"sync"
)

// Writing a file costs more than reading one: write(2) copies into fresh
// page-cache pages, about three times what read(2) costs out of them. On a
// second core that copy overlaps the decryption instead of following it,
// and without a copy of its own: the decrypting stage lends its verified
// buffer to the writer's goroutine, and reuses it only once it is
// written.

// Lender is a Reader that can lend the bytes of its last Peek past the
// next Consume: they stay as they are until release is called. Lend
// returns nil when those bytes cannot be lent (a Peek joined across runs
// lives in a side buffer).
type Lender interface {
	Lend() (release func())
}

// OwnedWriter takes p to write later, on another goroutine, and calls
// release once it is done with p. Wait returns when everything taken is
// written, with the first write error.
type OwnedWriter interface {
	io.Writer
	WriteOwned(p []byte, release func()) error
	Wait() error
}

// AsyncWriter is an OwnedWriter over w: lent buffers are written, in
// order, by a goroutine of its own. A plain Write (bytes the caller keeps
// no promise about) waits for what is queued and writes synchronously.
type AsyncWriter struct {
	w      io.Writer
	queue  chan owned
	done   chan struct{}
	mu     sync.Mutex
	err    error
	busy   sync.WaitGroup
	once   sync.Once
	closed bool
}

type owned struct {
	p       []byte
	release func()
}

// asyncQueue bounds the runs in flight (a lender lends many runs of one
// buffer: a literal packet's partial segments); the writer takes all
// that are queued at once, up to asyncBatch, and writes them with one
// writev(2).
const (
	asyncQueue = 256
	asyncBatch = 64
)

// NewAsyncWriter starts the goroutine that writes to w.
func NewAsyncWriter(w io.Writer) *AsyncWriter {
	a := &AsyncWriter{w: w, queue: make(chan owned, asyncQueue), done: make(chan struct{})}
	go a.run()
	return a
}

func (a *AsyncWriter) run() {
	defer close(a.done)
	v := Vectors(a.w)
	batch := make([]owned, 0, asyncBatch)
	bufs := make([][]byte, 0, asyncBatch)
	for o := range a.queue {
		batch = append(batch[:0], o)
	more:
		for len(batch) < asyncBatch {
			select {
			case o, ok := <-a.queue:
				if !ok {
					break more
				}
				batch = append(batch, o)
			default:
				break more
			}
		}
		if a.firstErr() == nil {
			bufs = bufs[:0]
			want := 0
			for _, b := range batch {
				bufs = append(bufs, b.p)
				want += len(b.p)
			}
			n, err := v.WriteVectors(bufs)
			if err == nil && n < int64(want) {
				err = io.ErrShortWrite
			}
			if err != nil {
				a.setErr(err)
			}
			clear(bufs)
		}
		for _, b := range batch {
			b.release()
			a.busy.Done()
		}
		clear(batch)
	}
}

func (a *AsyncWriter) firstErr() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

func (a *AsyncWriter) setErr(err error) {
	a.mu.Lock()
	if a.err == nil {
		a.err = err
	}
	a.mu.Unlock()
}

// WriteOwned implements OwnedWriter. It returns the first error of the
// writes before it.
func (a *AsyncWriter) WriteOwned(p []byte, release func()) error {
	if err := a.firstErr(); err != nil || a.closed {
		if err == nil {
			_, err = a.Write(p)
		}
		release()
		return err
	}
	a.busy.Add(1)
	a.queue <- owned{p, release}
	return nil
}

// Write implements io.Writer, after what is queued.
func (a *AsyncWriter) Write(p []byte) (int, error) {
	if err := a.Wait(); err != nil {
		return 0, err
	}
	n, err := a.w.Write(p)
	if err != nil {
		a.setErr(err)
	}
	return n, err
}

// WriteVectors implements VectorWriter, after what is queued.
func (a *AsyncWriter) WriteVectors(bufs [][]byte) (int64, error) {
	if err := a.Wait(); err != nil {
		return 0, err
	}
	n, err := Vectors(a.w).WriteVectors(bufs)
	if err != nil {
		a.setErr(err)
	}
	return n, err
}

// Wait implements OwnedWriter.
func (a *AsyncWriter) Wait() error {
	a.busy.Wait()
	return a.firstErr()
}

// Close waits for what is queued and stops the goroutine; it returns the
// first write error. Writes after Close are synchronous.
func (a *AsyncWriter) Close() error {
	err := a.Wait()
	a.once.Do(func() { close(a.queue); <-a.done })
	a.closed = true
	return err
}
