package filter

import (
	"io"
	"runtime"
)

// asyncHashes feeds the signature hashes on a goroutine of their own, so on
// a machine with a second core the hashing (SHA-512 or SHA-256 over the
// whole literal, the slowest primitive on a signed message) overlaps the
// decryption and the output's write(2)s instead of adding to them; it is
// what the MDC's SHA-1 does in internal/mdc.
//
// Write copies p into one of a few fixed buffers and returns: one copy per
// byte, a memmove beside a hash about thirty times slower. The buffers
// p comes from are the decrypting stage's, lent only until Write returns,
// so hashing them in place would need the stage to lend them across the
// framing layer. A buffer goes to the goroutine when full, so each hand-off
// (two channel operations) is amortised over asyncHashBuf bytes.
type asyncHashes struct {
	work   chan []byte
	free   chan []byte
	done   chan struct{}
	cur    []byte
	allocd int
	ws     []io.Writer // the hashes; only the goroutine touches them until wait
	inline bool        // single core, or after wait: hash on the caller's goroutine
}

const (
	asyncHashBuf  = 256 << 10
	asyncHashBufs = 4
)

func newAsyncHashes(ws []io.Writer) *asyncHashes {
	a := &asyncHashes{ws: ws}
	if runtime.GOMAXPROCS(0) < 2 {
		a.inline = true
		return a
	}
	a.work = make(chan []byte, asyncHashBufs)
	a.free = make(chan []byte, asyncHashBufs)
	a.done = make(chan struct{})
	go func(work <-chan []byte, free chan<- []byte, ws []io.Writer) {
		defer close(a.done)
		for b := range work {
			for _, w := range ws {
				w.Write(b)
			}
			free <- b[:0]
		}
	}(a.work, a.free, ws)
	return a
}

func (a *asyncHashes) Write(p []byte) (int, error) {
	if a.inline {
		for _, w := range a.ws {
			w.Write(p)
		}
		return len(p), nil
	}
	n := len(p)
	for len(p) > 0 {
		if a.cur == nil {
			a.cur = a.buffer()
		}
		k := copy(a.cur[len(a.cur):cap(a.cur)], p)
		a.cur, p = a.cur[:len(a.cur)+k], p[k:]
		if len(a.cur) == cap(a.cur) {
			a.work <- a.cur
			a.cur = nil
		}
	}
	return n, nil
}

func (a *asyncHashes) buffer() []byte {
	select {
	case b := <-a.free:
		return b
	default:
	}
	if a.allocd < asyncHashBufs {
		a.allocd++
		return make([]byte, 0, asyncHashBuf)
	}
	return <-a.free
}

// wait hands over what is left, stops the goroutine once it has hashed
// everything, and leaves the hashes to the caller: a signature is checked
// only after wait. Later writes, if any, are hashed inline. Idempotent.
func (a *asyncHashes) wait() {
	if a.inline {
		return
	}
	if len(a.cur) > 0 {
		a.work <- a.cur
	}
	a.cur = nil
	close(a.work)
	<-a.done
	a.inline = true
}
