package filter

import (
	"errors"
	"io"

	"github.com/pgpstream/pgpstream/packet"
)

// ownedWriter is an encode stage that can take a filled buffer without
// copying it, calling release once it no longer reads it.
type ownedWriter interface {
	WriteOwned(p []byte, release func()) error
}

// aheadBuffers is how many literal chunks may be in flight: one being
// read, one being encrypted, one being hashed, one spare.
const aheadBuffers = 4

// chunkHeadroom leaves room before each chunk for the literal packet's
// tag octet and length octets, so a chunk goes out in one piece.
const chunkHeadroom = 6

// writeLiteralAhead writes the literal packet (its header bytes first)
// into sink, framed exactly as packet.PartialWriter frames it, but reads
// the input on a goroutine of its own into a ring of chunk buffers and
// lends each filled chunk, length octets in place, to sink.
//
// It exists for SEIPD v1 encryption, whose CFB is serial: with the input
// read on one goroutine and the MDC hashed on another, straight from the
// buffers, the encrypting goroutine does nothing but encrypt.
// Copies per byte: the kernel's read into the chunk buffer, the encryption
// into the SEIPD chunk, the kernel's write; none besides.
func writeLiteralAhead(in io.Reader, sink ownedWriter, header []byte, chunk int) (int64, error) {
	free := make(chan []byte, aheadBuffers)
	for range aheadBuffers {
		free <- make([]byte, chunkHeadroom+chunk)
	}
	type filled struct {
		buf  []byte
		n    int // chunk bytes, header included in the first
		last bool
		err  error
	}
	full := make(chan filled, aheadBuffers)
	quit := make(chan struct{})
	defer close(quit)
	send := func(f filled) bool {
		select {
		case full <- f:
			return true
		case <-quit:
			return false
		}
	}
	go func() {
		prefix := header
		for {
			var b []byte
			select {
			case b = <-free:
			case <-quit:
				return
			}
			n := copy(b[chunkHeadroom:], prefix)
			prefix = nil
			m, err := io.ReadFull(in, b[chunkHeadroom+n:])
			n += m
			switch {
			case err == nil:
				if send(filled{buf: b, n: n}) {
					continue
				}
			case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
				send(filled{buf: b, n: n, last: true})
			default:
				send(filled{err: err})
			}
			return
		}
	}()
	var read int64
	first := true
	for f := range full {
		if f.err != nil {
			return read, readError{f.err}
		}
		var hdr [chunkHeadroom]byte
		h := hdr[:0]
		read += int64(f.n)
		if first {
			h = append(h, 0xc0|byte(packet.TagLiteral))
			read -= int64(len(header))
			first = false
		}
		if f.last {
			h = packet.AppendLength(h, int64(f.n))
		} else {
			h = packet.AppendPartialLength(h, f.n)
		}
		start := chunkHeadroom - len(h)
		copy(f.buf[start:], h)
		b := f.buf
		if err := sink.WriteOwned(b[start:chunkHeadroom+f.n], func() { free <- b }); err != nil {
			return read, err
		}
		if f.last {
			return read, nil
		}
	}
	return read, nil
}
