// Package mdc computes the Modification Detection Code of OpenPGP's version 1
// Symmetrically Encrypted Integrity Protected Data packet (RFC 9580
// §5.13.1): SHA-1 over the random prefix, the plaintext and the bytes
// 0xD3 0x14. The hash runs on its own goroutine, so on a machine with a
// second core it overlaps the CFB decryption instead of adding to it.
package mdc

import (
	"crypto/sha1"
	"errors"
	"hash"
	"runtime"
)

const (
	// bufSize and numBufs bound the memory at 1 MiB per Hasher. A buffer
	// is handed over only when full, so each handoff (two channel
	// operations) is amortised over 256 KiB, about 100 µs of SHA-1.
	// Four buffers let the writer run ahead of the hasher by up to 768 KiB
	// before it blocks.
	bufSize = 256 << 10
	numBufs = 4
)

var errClosed = errors.New("mdc: write after Close")

// Hasher hashes the bytes given to Write on a separate goroutine so hashing
// overlaps decryption. Write copies p into one of a small fixed set of
// buffers and returns; Sum waits for the pending work. Like hash.Hash it is
// for one goroutine at a time.
type Hasher struct {
	w      *worker
	cur    []byte // buffer being filled; nil when none is held
	allocd int    // buffers made so far, at most numBufs
	closed bool
	sum    [sha1.Size]byte
	stop   runtime.Cleanup
}

// worker is what the hashing goroutine sees. It does not point back to the
// Hasher, so a Hasher dropped without Close still becomes unreachable and
// its cleanup stops the goroutine.
type worker struct {
	h     hash.Hash
	work  chan job
	free  chan []byte
	reply chan [sha1.Size]byte
	done  chan struct{}
}

// job hashes buf, if any, then answers on reply if sum is set. A buffer
// lent by WriteShared comes with release, called once it is hashed;
// otherwise buf is one of the Hasher's own and goes back to free.
type job struct {
	buf     []byte
	sum     bool
	release func()
}

// NewAsync returns a Hasher with its goroutine started. Buffers are made on
// demand, so a short message costs one buffer, not four.
func NewAsync() *Hasher {
	w := &worker{
		h:     sha1.New(),
		work:  make(chan job, numBufs+1),
		free:  make(chan []byte, numBufs),
		reply: make(chan [sha1.Size]byte, 1),
		done:  make(chan struct{}),
	}
	go w.run()
	h := &Hasher{w: w}
	h.stop = runtime.AddCleanup(h, func(w *worker) { close(w.work) }, w)
	return h
}

func (w *worker) run() {
	defer close(w.done)
	for j := range w.work {
		if j.release != nil {
			w.h.Write(j.buf)
			j.release()
		} else if j.buf != nil {
			w.h.Write(j.buf)
			w.free <- j.buf[:0]
		}
		if j.sum {
			var d [sha1.Size]byte
			w.h.Sum(d[:0])
			w.reply <- d
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

// Write copies p for hashing and returns without waiting for the hash,
// unless all buffers are in flight. That copy is the one per byte this path
// adds: the caller may reuse p at once, and the goroutine hashes the buffer
// in place.
func (h *Hasher) Write(p []byte) (int, error) {
	if h.closed {
		return 0, errClosed
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
// not change it until release is called, from the hashing goroutine, once
// p is hashed. It keeps the order of everything written before.
func (h *Hasher) WriteShared(p []byte, release func()) {
	if h.closed {
		panic("mdc: WriteShared after Close")
	}
	if h.cur != nil {
		h.w.work <- job{buf: h.cur}
		h.cur = nil
	}
	h.w.work <- job{buf: p, release: release}
}

// Sum waits for all pending work and returns the SHA-1 digest of everything
// written so far. Writing may continue afterwards.
func (h *Hasher) Sum() [sha1.Size]byte {
	if h.closed {
		return h.sum
	}
	h.w.work <- job{buf: h.cur, sum: true}
	h.cur = nil
	return <-h.w.reply
}

// Close stops the goroutine after it has hashed everything written; Sum
// still answers afterwards. Close is idempotent and needs no Sum before it.
func (h *Hasher) Close() {
	if h.closed {
		return
	}
	h.stop.Stop()
	if h.cur != nil {
		h.w.work <- job{buf: h.cur}
		h.cur = nil
	}
	close(h.w.work)
	<-h.w.done
	h.w.h.Sum(h.sum[:0])
	h.closed = true
}
