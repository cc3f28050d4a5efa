package filter

import (
	"compress/bzip2"
	"compress/flate"
	"compress/zlib"
	"errors"
	"fmt"
	"io"

	"github.com/pgpstream/pgpstream/internal/inflate"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// ErrTooMuchOutput is returned when decompressed data exceeds the limit
// the caller set: a small packet that inflates without bound is a denial
// of service, not a message.
var ErrTooMuchOutput = errors.New("decompressed data exceeds the output limit")

// Decompressor is the decompressed stream of a Compressed Data packet,
// read in place by the parser of the packets inside. Close stops the
// goroutine that reads the compressed body; it must be called, and the
// body must not be touched before it returns.
type Decompressor interface {
	iobuf.Reader
	io.Closer
}

// NewDecompressor returns the decompressed stream of a Compressed Data
// body (after its algorithm octet). limit bounds the output, 0 for none.
//
// ZIP, ZLIB and BZIP2 run the stages below (the packet framing and the
// decryption, which pull the input) on a goroutine of their own that
// hands the compressed bytes over in two buffers, so that decryption and
// decompression overlap. At the end of the compressed stream the rest of
// the body is read and dropped, as after any packet, and an error there
// (a failed integrity check, a truncation) is the stream's error.
//
// Copies per byte: one of each compressed byte, from the stage below
// into a hand-over buffer; one of each decompressed byte, inflating into
// the window the stage above reads in place.
func NewDecompressor(body iobuf.Reader, algo packet.CompressionAlgo, limit int64) (Decompressor, error) {
	var d Decompressor
	switch algo {
	case packet.CompressNone:
		d = plainBody{body}
	case packet.CompressZIP, packet.CompressZLIB:
		format := inflate.Raw
		if algo == packet.CompressZLIB {
			format = inflate.Zlib
		}
		ahead := newReadAhead(body)
		d = &stream{out: inflate.NewReader(ahead, format), ahead: ahead}
	case packet.CompressBZIP2:
		ahead := newReadAhead(body)
		d = &stream{out: iobuf.NewReader(bzip2.NewReader(ahead), iobuf.DefaultSize), ahead: ahead}
	default:
		return nil, &packet.UnsupportedError{Packet: "compressed data", Offset: -1, What: algo.String()}
	}
	if limit > 0 {
		d = &limitReader{Decompressor: d, left: limit}
	}
	return d, nil
}

type plainBody struct{ iobuf.Reader }

func (plainBody) Close() error { return nil }

// stream is a decompressed stream over a read-ahead body.
type stream struct {
	out   iobuf.Reader // the decompressor's output
	ahead *readAhead
}

// Peek implements iobuf.Reader. At the end of the stream it reads the
// body to its end, so the goroutine has stopped and whatever failed after
// the compressed data is reported.
func (s *stream) Peek(n int) ([]byte, error) {
	b, err := s.out.Peek(n)
	if err == io.EOF {
		if derr := s.ahead.drain(); derr != nil {
			err = derr
		}
	} else if errors.Is(err, inflate.ErrCorrupt) {
		err = fmt.Errorf("compressed data: %w", err)
	}
	return b, err
}

func (s *stream) Consume(n int)                      { s.out.Consume(n) }
func (s *stream) Read(p []byte) (int, error)         { return iobuf.ReadVia(s, p) }
func (s *stream) WriteTo(w io.Writer) (int64, error) { return iobuf.WriteTo(s, w) }
func (s *stream) Close() error                       { return s.ahead.Close() }

// limitReader fails the read that would go past the limit.
type limitReader struct {
	Decompressor
	left int64
}

func (l *limitReader) Peek(n int) ([]byte, error) {
	b, err := l.Decompressor.Peek(n)
	if int64(len(b)) > l.left {
		b = b[:l.left]
		if len(b) < max(n, 1) {
			err = ErrTooMuchOutput
		} else {
			err = nil
		}
	}
	return b, err
}

func (l *limitReader) Consume(n int) {
	l.Decompressor.Consume(n)
	l.left -= int64(n)
}

func (l *limitReader) Read(p []byte) (int, error) { return iobuf.ReadVia(l, p) }

// aheadBufs and aheadSize: two buffers, one filled by the goroutine while
// the decompressor reads the other. 64 KiB of compressed text is about
// 256 KiB of output, one window's worth for the stage above.
const (
	aheadBufs = 2
	aheadSize = 64 << 10
)

type aheadChunk struct {
	buf []byte
	err error // after buf: what ended the input
}

// readAhead is an iobuf.Reader over a goroutine that reads src into
// buffers handed over a channel. Only the goroutine touches src until
// Close or drain returns.
type readAhead struct {
	full chan aheadChunk
	free chan []byte
	stop chan struct{}
	done chan struct{}

	cur    []byte // unread: cur[pos:]
	pos    int
	held   []byte // the hand-over buffer cur is in, to give back
	err    error  // sticky, once cur is used up
	closed bool
}

func newReadAhead(src iobuf.Reader) *readAhead {
	a := &readAhead{
		full: make(chan aheadChunk, aheadBufs),
		free: make(chan []byte, aheadBufs),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	for range aheadBufs {
		a.free <- make([]byte, aheadSize)
	}
	go a.run(src)
	return a
}

// run fills the free buffers from src until src ends or fails, or Close.
func (a *readAhead) run(src iobuf.Reader) {
	defer close(a.done)
	for {
		var buf []byte
		select {
		case buf = <-a.free:
		case <-a.stop:
			return
		}
		n := 0
		var err error
		for n < len(buf) {
			b, perr := src.Peek(1)
			m := copy(buf[n:], b)
			src.Consume(m)
			n += m
			if perr != nil && m == len(b) {
				err = perr
				break
			}
			if len(b) == 0 {
				err = io.ErrNoProgress
				break
			}
		}
		select {
		case a.full <- aheadChunk{buf[:n], err}:
		case <-a.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// Peek implements iobuf.Reader.
func (a *readAhead) Peek(n int) ([]byte, error) {
	for len(a.cur)-a.pos < max(n, 1) && a.err == nil && !a.closed {
		c := <-a.full
		if a.pos == len(a.cur) {
			a.release()
			a.cur, a.pos, a.held = c.buf, 0, c.buf
		} else {
			// A peek across two buffers: rare, and only a few bytes.
			s := append(append([]byte(nil), a.cur[a.pos:]...), c.buf...)
			a.release()
			a.free <- c.buf[:cap(c.buf)]
			a.cur, a.pos = s, 0
		}
		a.err = c.err
	}
	if len(a.cur)-a.pos >= max(n, 1) {
		return a.cur[a.pos:], nil
	}
	err := a.err
	if err == nil {
		err = errors.New("compressed data: read after close")
	}
	return a.cur[a.pos:], err
}

func (a *readAhead) release() {
	if a.held != nil {
		a.free <- a.held[:cap(a.held)]
		a.held = nil
	}
}

// Consume implements iobuf.Reader.
func (a *readAhead) Consume(n int) {
	if n < 0 || n > len(a.cur)-a.pos {
		panic("filter: Consume beyond the peeked data")
	}
	a.pos += n
}

func (a *readAhead) Read(p []byte) (int, error) { return iobuf.ReadVia(a, p) }

// drain reads the input to its end and returns what ended it, nil for a
// clean end; afterwards the goroutine has stopped.
func (a *readAhead) drain() error {
	for {
		a.pos = len(a.cur)
		if _, err := a.Peek(1); err != nil {
			<-a.done
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// Close stops the goroutine and waits for it, so the caller may use the
// body again. Safe to call twice.
func (a *readAhead) Close() error {
	if !a.closed {
		a.closed = true
		close(a.stop)
		<-a.done
	}
	return nil
}

// NewCompressor returns a writer that compresses into w (the Compressed
// Data packet's body writer, after its algorithm octet). Close finishes the
// compressed stream but does not close w.
//
// The compressor is Go's compress/flate, whose levels match zlib's (and so
// gpg's) closely. klauspost/compress's levels 1 to 6 wrote base64 text as
// stored blocks, no smaller than the input (200,022 bytes of 200,000; gpg
// -z 6 writes 152,116, compress/flate 151,318), and its level 6 was 5%
// larger than zlib's on other text.
func NewCompressor(w io.Writer, algo packet.CompressionAlgo, level int) (io.WriteCloser, error) {
	switch algo {
	case packet.CompressZIP:
		return flate.NewWriter(w, level)
	case packet.CompressZLIB:
		return zlib.NewWriterLevel(w, level)
	}
	return nil, fmt.Errorf("cannot write %v compression (pgpstream writes ZIP and ZLIB)", algo)
}
