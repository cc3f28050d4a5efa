// Package asynchash feeds hashes on a goroutine of their own, so on a
// machine with a second core the hashing overlaps the cipher and the
// write(2)s instead of adding to them: SEIPD v1's MDC (SHA-1, about
// 1.5 GB/s here, the slowest stage of a v1 message) and the signature
// hashes over a signed message's literal data (SHA-256, SHA-512).
//
// Write copies p into one of a few fixed buffers and returns: one copy
// per byte, a memmove beside a hash about thirty times slower. A stage
// that can leave its bytes alone until they are hashed lends them instead
// (WriteShared) and costs no copy. On one core everything is hashed on the
// caller's goroutine, as it is after Close.
package asynchash

import (
	"io"
	"runtime"
)

const (
	// bufSize and numBufs bound the memory at 1 MiB per Hasher. A buffer
	// is handed over only when full, so each hand-off (two channel
	// operations) is amortised over 256 KiB, about 100 µs of SHA-1. Four
	// buffers let the writer run ahead of the hasher by up to 768 KiB
	// before it blocks.
	bufSize = 256 << 10
	numBufs = 4
)

// Hasher writes what it is given to its hashes, in order, on its
// goroutine. Like hash.Hash it is for one goroutine at a time; the hashes
// are the caller's to read after Flush or Close.
type Hasher struct {
	w      *worker
	ws     []io.Writer
	cur    []byte // buffer being filled; nil when none is held
	allocd int    // buffers made so far, at most numBufs
	inline bool   // one core, or after Close: hash on the caller's goroutine
	stop   runtime.Cleanup
}

// worker is what the hashing goroutine sees. It does not point back to the
// Hasher, so a Hasher dropped without Close still becomes unreachable and
// its cleanup stops the goroutine.
type worker struct {
	ws    []io.Writer
	work  chan job
	free  chan []byte
	reply chan struct{}
	done  chan struct{}
}

// job hashes buf, if any, then answers on reply if flush is set. A buffer
// lent by WriteShared comes with release, called once it is hashed;
// otherwise buf is one of the Hasher's own and goes back to free.
type job struct {
	buf     []byte
	flush   bool
	release func()
}

// New returns a Hasher of ws with its goroutine started (none on one
// core). Buffers are made on demand, so a short message costs one buffer,
// not four.
func New(ws ...io.Writer) *Hasher {
	h := &Hasher{ws: ws}
	if runtime.GOMAXPROCS(0) < 2 {
		h.inline = true
		return h
	}
	w := &worker{
		ws:    ws,
		work:  make(chan job, numBufs+1),
		free:  make(chan []byte, numBufs),
		reply: make(chan struct{}, 1),
		done:  make(chan struct{}),
	}
	go w.run()
	h.w = w
	h.stop = runtime.AddCleanup(h, func(w *worker) { close(w.work) }, w)
	return h
}

// Async reports whether the hashing runs on a goroutine of its own.
func (h *Hasher) Async() bool { return !h.inline }

func (w *worker) run() {
	defer close(w.done)
	for j := range w.work {
		if j.buf != nil {
			for _, x := range w.ws {
				x.Write(j.buf)
			}
			if j.release != nil {
				j.release()
			} else {
				w.free <- j.buf[:0]
			}
		}
		if j.flush {
			w.reply <- struct{}{}
		}
	}
}

func (h *Hasher) buffer() []byte {
	select {
	case b := <-h.w.free:
		return b
	default:
	}
	if h.allocd < numBufs {
		h.allocd++
		return make([]byte, 0, bufSize)
	}
	return <-h.w.free
}

func (h *Hasher) hashNow(p []byte) {
	for _, x := range h.ws {
		x.Write(p)
	}
}

// Write copies p for hashing and returns without waiting for the hash,
// unless all buffers are in flight: the caller may reuse p at once.
func (h *Hasher) Write(p []byte) (int, error) {
	if h.inline {
		h.hashNow(p)
		return len(p), nil
	}
	n := len(p)
	for len(p) > 0 {
		if h.cur == nil {
			h.cur = h.buffer()
		}
		k := copy(h.cur[len(h.cur):cap(h.cur)], p)
		h.cur, p = h.cur[:len(h.cur)+k], p[k:]
		if len(h.cur) == cap(h.cur) {
			h.w.work <- job{buf: h.cur}
			h.cur = nil
		}
	}
	return n, nil
}

// WriteShared hashes p without copying it: the caller lends p and must
// not change it until release is called (from the hashing goroutine)
// once p is hashed. It keeps the order of everything written before.
func (h *Hasher) WriteShared(p []byte, release func()) {
	if h.inline {
		h.hashNow(p)
		release()
		return
	}
	h.handOver()
	h.w.work <- job{buf: p, release: release}
}

func (h *Hasher) handOver() {
	if h.cur != nil {
		h.w.work <- job{buf: h.cur}
		h.cur = nil
	}
}

// Flush waits until everything written is hashed: the hashes may be read
// (a Sum) until the next write. Writing may go on afterwards.
func (h *Hasher) Flush() {
	if h.inline {
		return
	}
	h.handOver()
	h.w.work <- job{flush: true}
	<-h.w.reply
}

// Close stops the goroutine after it has hashed everything written;
// later writes are hashed on the caller's goroutine. Close is idempotent
// and needs no Flush before it.
func (h *Hasher) Close() {
	if h.inline {
		return
	}
	h.stop.Stop()
	h.handOver()
	close(h.w.work)
	<-h.w.done
	h.inline = true
}
