// Package iobuf is the buffered stream that pgpstream's filters stack on.
//
// # The reader contract
//
// Every stage of the decode chain (the file, a packet body, a decryption, a
// decompression) is a Reader, read by looking before consuming:
//
//   - Peek(n), n > 0, returns at least n bytes, fewer only when the stream
//     ends or fails first (then with io.EOF or the error). Beyond n it
//     returns everything the stage holds contiguously: a consumer that asks
//     for one byte gets a buffer's worth, never a dribble. A stage that
//     transforms (decrypts, inflates) fills its buffer before it hands out
//     a round, so every round downstream moves a buffer's worth; a stage that
//     frames (a packet body) hands out what the stage below holds, up to the
//     end of the current segment.
//   - Peek(0) returns what is buffered without reading from the source: maybe
//     nothing, with a nil error while the stream goes on; when nothing is
//     buffered and the stream has ended, the error that ended it.
//   - Consume(n) advances past n bytes of the last Peek. Nothing steps back.
//   - The slice from Peek is valid until the next Peek, Consume or Read.
//     A second Peek without a Consume between returns the same bytes first.
//
// Headers and length octets are parsed from peeked slices; bulk data is
// handed on as slices of a stage's buffer, so a stage that transforms data
// writes its output exactly once, and a stage that only frames copies
// nothing (a small Peek across a partial-length boundary is the exception:
// its few bytes are joined in a side buffer).
//
// A stage whose last bytes may be a trailer rather than data (SEIPD v1's
// 22-byte MDC packet, known only when the ciphertext ends) holds them back
// in its own output buffer with a Stage, the helper every transforming
// stage is built on; it never asks the stage below to reserve them.
//
// WriteTo drains a Reader into an io.Writer and gathers small rounds (a
// body in 8 KiB partial segments) so the writer sees buffer-sized writes.
//
// A Writer is the mirror image: Buffer() hands the stage above free space in
// this stage's buffer, so an encrypting stage writes ciphertext straight into
// the buffer that will go to the next stage or the file.
package iobuf

import (
	"errors"
	"io"
)

// Reader is the interface every stage of the decode chain speaks; the
// package documentation states its contract.
type Reader interface {
	// Peek returns at least n bytes unless the stream ends or fails first,
	// in which case it returns what is left and the error that ended it
	// (io.EOF at a clean end); beyond n, all the stage holds contiguously.
	// Peek(0) reads nothing: it shows what is buffered.
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
	if n <= 0 {
		if b.w == b.r && b.err != nil {
			return nil, b.err
		}
		return b.buf[b.r:b.w], nil
	}
	if b.w-b.r >= n {
		return b.buf[b.r:b.w], nil
	}
	if b.r == b.w {
		b.r, b.w = 0, 0
	}
	if n > len(b.buf) {
		nb := make([]byte, max(n, 2*len(b.buf)))
		b.w = copy(nb, b.buf[b.r:b.w])
		b.r = 0
		b.buf = nb
	}
	for empty := 0; b.w-b.r < n && b.err == nil; {
		if b.r > 0 && len(b.buf)-b.r < n {
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
	if b.w-b.r >= n {
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

// gatherMin is the smallest round WriteTo passes to the writer as it is;
// smaller rounds (the segments of a body framed in 8 KiB partial lengths)
// are gathered into a buffer of DefaultSize first, so the writer, and the
// write(2) behind it, sees buffer-sized writes: gpg's pipes otherwise cost
// one system call per 8 KiB.
const gatherMin = DefaultSize / 2

// Discard consumes the rest of r, for data that is skipped (a packet
// nobody reads, a stream drained so its trailer is checked).
func Discard(r Reader) error {
	for {
		buf, err := r.Peek(1)
		r.Consume(len(buf))
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// WriteTo drains r into w. A round of at least gatherMin bytes goes
// straight from r's buffer to w; smaller ones are gathered first (one
// copy), so every write but the last is at least gatherMin bytes. When w
// writes on a goroutine of its own (an OwnedWriter) and r can lend its
// buffer (a Lender), a large round is lent to w instead of written
// in place, and WriteTo returns once w has written everything.
func WriteTo(r Reader, w io.Writer) (int64, error) {
	ow, _ := w.(OwnedWriter)
	lr, _ := r.(Lender)
	if ow == nil || lr == nil {
		ow, lr = nil, nil
	}
	total, err := writeTo(r, w, ow, lr)
	if ow != nil {
		if werr := ow.Wait(); err == nil {
			err = werr
		}
	}
	return total, err
}

func writeTo(r Reader, w io.Writer, ow OwnedWriter, lr Lender) (int64, error) {
	var total int64
	var g []byte // gathered rounds, not yet written
	flush := func() error {
		if len(g) == 0 {
			return nil
		}
		n, err := w.Write(g)
		if err == nil && n < len(g) {
			err = io.ErrShortWrite
		}
		g = g[:0]
		return err
	}
	for {
		buf, err := r.Peek(1)
		for len(buf) > 0 {
			if len(g) == 0 && lr != nil {
				// Lent, whatever its size: the writer joins small
				// runs into one writev(2) itself.
				if release := lr.Lend(); release != nil {
					werr := ow.WriteOwned(buf, release)
					r.Consume(len(buf))
					total += int64(len(buf))
					if werr != nil {
						return total, werr
					}
					break
				}
			}
			if len(g) == 0 && len(buf) >= gatherMin {
				n, werr := w.Write(buf)
				r.Consume(n)
				total += int64(n)
				if werr != nil {
					return total, werr
				}
				if n < len(buf) {
					return total, io.ErrShortWrite
				}
				break
			}
			if g == nil {
				g = make([]byte, 0, DefaultSize)
			}
			k := min(len(buf), cap(g)-len(g))
			g = append(g, buf[:k]...)
			r.Consume(k)
			buf = buf[k:]
			if len(g) == cap(g) {
				if werr := flush(); werr != nil {
					return total, werr
				}
				total += int64(cap(g))
			}
		}
		if err != nil {
			n := int64(len(g))
			if werr := flush(); werr != nil {
				return total, werr
			}
			total += n
			if err == io.EOF {
				return total, nil
			}
			return total, err
		}
	}
}

// WriteTo implements io.WriterTo.
func (b *Buffered) WriteTo(w io.Writer) (int64, error) { return WriteTo(b, w) }
