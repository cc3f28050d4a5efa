package packet

import (
	"errors"
	"io"
	"math"
	"strconv"

	"github.com/pgpstream/pgpstream/iobuf"
)

// Body is an iobuf.Reader over one packet's body. It hides the framing:
// definite lengths, the chain of partial body lengths (RFC 9580 §4.2.1.4)
// and the old format's indeterminate length.
//
// Copies per byte: none while a Peek fits inside the current segment (the
// slice handed out is the reader below's buffer). A Peek that crosses a
// partial-length boundary copies the few bytes on each side into a small
// stitch buffer; once the consumer has moved past the old segment, the
// borrowed bytes of the new one are given back to the reader below
// (Unconsume), so the bulk of the stream is never copied here.
type Body struct {
	src       iobuf.Reader
	tag       Tag
	remaining int64 // bytes left in the current segment
	partial   bool  // more segments follow the current one
	indeterm  bool  // old-format indeterminate length: the body ends with the input
	offset    int64 // bytes of body consumed
	hdrOff    int64 // the packet header's offset, for errors
	err       error // sticky

	stitch    []byte // bytes joined across a segment boundary, unconsumed
	stitchOld int    // how many of them came from segments before the current one
	stitchBuf []byte
}

// NewBody returns the body of the packet whose header h was just read from src.
func NewBody(src iobuf.Reader, h Header) *Body {
	b := &Body{src: src, tag: h.Tag, hdrOff: h.Offset}
	switch h.Kind {
	case Definite:
		b.remaining = h.Length
	case Partial:
		b.remaining, b.partial = h.Length, true
	case Indeterminate:
		b.remaining, b.indeterm = math.MaxInt64, true
	}
	return b
}

// Offset is the number of body bytes consumed.
func (b *Body) Offset() int64 { return b.offset }

// Tag is the packet's tag.
func (b *Body) Tag() Tag { return b.tag }

// nextSegment reads the length octets of the next partial segment.
func (b *Body) nextSegment() error {
	buf, err := b.src.Peek(5)
	l, size, kind, need := parseNewLength(buf)
	if need > 0 {
		if err == nil || errors.Is(err, io.EOF) {
			err = &TruncatedError{b.tag.String(), b.hdrOff, "a partial body length"}
		}
		return err
	}
	b.src.Consume(size)
	b.remaining, b.partial = l, kind == Partial
	return nil
}

func (b *Body) truncated() error {
	return &TruncatedError{b.tag.String(), b.hdrOff, "the rest of the packet body"}
}

// Peek implements iobuf.Reader.
func (b *Body) Peek(n int) ([]byte, error) {
	for {
		if len(b.stitch) > 0 {
			if len(b.stitch) >= n {
				return b.stitch, nil
			}
			if b.stitchOld == 0 {
				// Everything left in the stitch is from the current
				// segment and was the last thing consumed below: give it
				// back and read the segment in place again.
				if u, ok := b.src.(iobuf.Unconsumer); ok && u.Unconsume(len(b.stitch)) {
					b.remaining += int64(len(b.stitch))
					b.stitch = b.stitch[:0]
					continue
				}
			}
			if err := b.fillStitch(n); err != nil {
				return b.stitch, err
			}
			if len(b.stitch) < n {
				return b.stitch, io.EOF
			}
			return b.stitch, nil
		}
		if b.err != nil {
			return nil, b.err
		}
		if b.remaining == 0 {
			if !b.partial {
				return nil, io.EOF
			}
			if err := b.nextSegment(); err != nil {
				b.err = err
				return nil, err
			}
			continue
		}
		want := n
		if int64(want) > b.remaining {
			want = int(b.remaining)
		}
		buf, err := b.src.Peek(max(want, 1))
		if int64(len(buf)) > b.remaining {
			buf = buf[:b.remaining]
		}
		if len(buf) >= n && len(buf) > 0 {
			return buf, nil
		}
		if int64(len(buf)) == b.remaining && b.partial {
			// The request crosses into the next segment.
			b.stitch = append(b.stitchBuf[:0], buf...)
			b.src.Consume(len(buf))
			b.remaining = 0
			b.stitchOld = len(b.stitch)
			if err := b.fillStitch(n); err != nil {
				return b.stitch, err
			}
			if len(b.stitch) < n {
				return b.stitch, io.EOF
			}
			return b.stitch, nil
		}
		if int64(len(buf)) == b.remaining {
			return buf, io.EOF // the body ends within the request
		}
		// The reader below ran dry inside the body.
		if errors.Is(err, io.EOF) {
			if b.indeterm {
				// The end of the input is the end of the body.
				return buf, io.EOF
			}
			err = b.truncated()
		}
		if err == nil {
			err = io.ErrNoProgress
		}
		b.err = err
		return buf, err
	}
}

// fillStitch appends bytes from the following segments until the stitch
// holds n bytes or the body ends.
func (b *Body) fillStitch(n int) error {
	for len(b.stitch) < n {
		if b.err != nil {
			return b.err
		}
		if b.remaining == 0 {
			if !b.partial {
				return nil
			}
			if err := b.nextSegment(); err != nil {
				b.err = err
				return err
			}
			b.stitchOld = len(b.stitch)
			continue
		}
		want := n - len(b.stitch)
		if int64(want) > b.remaining {
			want = int(b.remaining)
		}
		buf, err := b.src.Peek(want)
		if len(buf) > want {
			buf = buf[:want]
		}
		b.stitch = append(b.stitch, buf...)
		b.stitchBuf = b.stitch[:0]
		b.src.Consume(len(buf))
		b.remaining -= int64(len(buf))
		if len(buf) < want {
			if err == nil || errors.Is(err, io.EOF) {
				err = b.truncated()
			}
			b.err = err
			return err
		}
	}
	return nil
}

// Consume implements iobuf.Reader.
func (b *Body) Consume(n int) {
	b.offset += int64(n)
	if len(b.stitch) > 0 {
		if n > len(b.stitch) {
			panic("packet: Consume beyond the peeked body")
		}
		b.stitch = b.stitch[n:]
		b.stitchOld = max(0, b.stitchOld-n)
		return
	}
	if int64(n) > b.remaining {
		panic("packet: Consume beyond the peeked body")
	}
	b.src.Consume(n)
	b.remaining -= int64(n)
}

// Read implements io.Reader.
func (b *Body) Read(p []byte) (int, error) { return iobuf.ReadVia(b, p) }

// WriteTo implements io.WriterTo without an intermediate buffer.
func (b *Body) WriteTo(w io.Writer) (int64, error) { return iobuf.WriteTo(b, w) }

// Discard consumes the rest of the body, for packets that are skipped.
func (b *Body) Discard() error {
	for {
		buf, err := b.Peek(1)
		b.Consume(len(buf))
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// ReadAll reads a whole body of at most limit bytes, for the small packets
// (session keys, signatures, markers) whose fields are parsed in memory.
func (b *Body) ReadAll(limit int) ([]byte, error) {
	var out []byte
	for {
		buf, err := b.Peek(1)
		if len(out)+len(buf) > limit {
			return nil, &StructuralError{b.tag.String(), b.hdrOff, "body longer than the " + strconv.Itoa(limit) + " bytes such a packet can have"}
		}
		out = append(out, buf...)
		b.Consume(len(buf))
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
