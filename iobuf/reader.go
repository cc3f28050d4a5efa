// Package iobuf is the buffered stream that pgpstream's filters stack on.
//
// A Reader is read by looking before consuming: Peek(n) returns at least n
// buffered bytes (fewer only at the end of the stream) without advancing, and
// Consume(n) advances. Headers and length octets are parsed from peeked
// slices; bulk data is handed on as slices of the buffer, so a filter that
// transforms data (decryption, decompression) writes its output exactly once,
// and a filter that only frames data (packet bodies) copies nothing.
//
// A Writer is the mirror image: Buffer() hands the stage above free space in
// this stage's buffer, so an encrypting stage writes ciphertext straight into
// the buffer that will go to the next stage or the file.
package iobuf

import (
	"errors"
	"io"
)

// Reader is the interface every stage of the decode chain speaks.
type Reader interface {
	// Peek returns the buffered bytes, at least n of them unless the stream
	// ends first, in which case it returns what is left and the error that
	// ended it (io.EOF at a clean end). The slice is valid until the next
	// call to Peek, Consume or Read, and may be longer than n.
	Peek(n int) ([]byte, error)
	// Consume advances past n bytes; n must not exceed what Peek returned.
	Consume(n int)
	io.Reader
}

// DefaultSize is the buffer size of a stage. 256 KiB measured faster than
// GnuPG's 64 KiB on pipes and files here: fewer system calls and fewer
// passes through each filter's loop, while the data still fits in L2.
const DefaultSize = 256 << 10

// MaxPeek bounds how far a consumer may look ahead. Nothing in OpenPGP needs
// more than a packet header or an AEAD chunk trailer; the bound stops a
// broken caller from growing a buffer without end.
const MaxPeek = 8 << 20

// ErrPeekTooLarge is returned by Peek for n > MaxPeek.
var ErrPeekTooLarge = errors.New("iobuf: peek larger than the buffer bound")

// Buffered is a Reader over an io.Reader.
type Buffered struct {
	src    io.Reader
	buf    []byte
	r, w   int   // buf[r:w] is unread
	err    error // sticky error from src, returned once buf is drained
	offset int64 // bytes consumed so far, for error messages
}

// NewReader returns a Buffered reader with a buffer of size bytes (DefaultSize if size <= 0).
func NewReader(src io.Reader, size int) *Buffered {
	if size <= 0 {
		size = DefaultSize
	}
	return &Buffered{src: src, buf: make([]byte, size)}
}

// Offset is the number of bytes consumed so far.
func (b *Buffered) Offset() int64 { return b.offset }

// Peek implements Reader.
func (b *Buffered) Peek(n int) ([]byte, error) {
	if n > MaxPeek {
		return nil, ErrPeekTooLarge
	}
	if b.w-b.r >= n && b.w > b.r {
		return b.buf[b.r:b.w], nil
	}
	if b.r == b.w {
		// Rewind lazily, here rather than in Consume, so that Unconsume
		// can step back over bytes consumed since the last Peek.
		b.r, b.w = 0, 0
	}
	if n > len(b.buf) {
		nb := make([]byte, max(n, 2*len(b.buf)))
		b.w = copy(nb, b.buf[b.r:b.w])
		b.r = 0
		b.buf = nb
	}
	for empty := 0; b.w-b.r < max(n, 1) && b.err == nil; {
		if b.r > 0 && len(b.buf)-b.r < max(n, 1) {
			// Slide the unread bytes down; they are fewer than n, so
			// this copies a header's worth, not the stream.
			b.w = copy(b.buf, b.buf[b.r:b.w])
			b.r = 0
		}
		if b.w == len(b.buf) && b.r == 0 {
			break
		}
		m, err := b.src.Read(b.buf[b.w:])
		if m < 0 || m > len(b.buf)-b.w {
			panic("iobuf: source returned an invalid count")
		}
		b.w += m
		if err != nil {
			b.err = err
		}
		if m == 0 {
			if empty++; empty == 100 {
				b.err = io.ErrNoProgress
			}
		}
	}
	if b.w-b.r >= n && b.w > b.r {
		return b.buf[b.r:b.w], nil
	}
	err := b.err
	if err == nil {
		err = io.ErrNoProgress
	}
	return b.buf[b.r:b.w], err
}

// Consume implements Reader.
func (b *Buffered) Consume(n int) {
	if n < 0 || n > b.w-b.r {
		panic("iobuf: Consume beyond the peeked data")
	}
	b.r += n
	b.offset += int64(n)
}

// Unconsumer is implemented by Readers that can step back over bytes just consumed.
type Unconsumer interface {
	Unconsume(n int) bool
}

// Unconsume steps back over the last n consumed bytes. It is allowed only
// when no Peek has happened since they were consumed (so they are still in
// the buffer, just before the read position); the partial-body reader uses
// it to return bytes it borrowed while stitching two segments together.
func (b *Buffered) Unconsume(n int) bool {
	if n > b.r {
		return false
	}
	b.r -= n
	b.offset -= int64(n)
	return true
}

// Read implements io.Reader. A read at least as large as the buffer goes
// straight to the source when nothing is buffered, skipping a copy.
func (b *Buffered) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if b.r == b.w {
		if b.err != nil {
			return 0, b.err
		}
		if len(p) >= len(b.buf) {
			n, err := b.src.Read(p)
			b.offset += int64(n)
			if err != nil {
				b.err = err
			}
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
	}
	return ReadVia(b, p)
}

// ReadVia implements io.Reader for any Reader with one copy: peek, copy, consume.
func ReadVia(r Reader, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	buf, err := r.Peek(1)
	n := copy(p, buf)
	r.Consume(n)
	if n > 0 {
		return n, nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return 0, err
}

// WriteTo drains r into w without an intermediate buffer: each peeked slice
// goes straight to w.
func WriteTo(r Reader, w io.Writer) (int64, error) {
	var total int64
	for {
		buf, err := r.Peek(1)
		if len(buf) > 0 {
			n, werr := w.Write(buf)
			r.Consume(n)
			total += int64(n)
			if werr != nil {
				return total, werr
			}
			if n < len(buf) {
				return total, io.ErrShortWrite
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// WriteTo implements io.WriterTo.
func (b *Buffered) WriteTo(w io.Writer) (int64, error) { return WriteTo(b, w) }
