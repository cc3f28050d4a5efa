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
// Peek hands out what the reader below holds, up to the end of the current
// segment: a consumer asking for one byte gets the rest of the segment (or
// of the buffer below), so bulk moves in segment-sized rounds however the
// writer framed the body. Only a Peek that needs more bytes than the
// segment has left (a header or length octets split by a boundary) joins
// segments, in a small side buffer.
//
// Copies per byte: none while a Peek fits inside the current segment (the
// slice handed out is the reader below's buffer). A Peek of n bytes across
// a boundary copies the n bytes it needs: the end of the old segment,
// consumed below and kept in the side buffer until consumed here, and the
// first bytes of the new one, copied but left unconsumed below, so once the
// consumer is past the old bytes the new segment is read in place again.
type Body struct {
	src       iobuf.Reader
	tag       Tag
	remaining int64 // bytes left in the current segment, below
	partial   bool  // more segments follow the current one
	indeterm  bool  // old-format indeterminate length: the body ends with the input
	offset    int64 // bytes of body consumed
	hdrOff    int64 // the packet header's offset, for errors
	err       error // sticky

	// join is the side buffer of a Peek across a boundary: join[:old] are
	// bytes of finished segments, already consumed below; join[old:] is a
	// copy of the current segment's first bytes, not consumed below.
	join []byte
	old  int
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
	// Ask for the octets this length has, no more: a Peek of five could
	// wait for data beyond a one-octet length that is already here.
	buf, err := b.src.Peek(1)
	_, _, _, need := parseNewLength(buf)
	if need > len(buf) {
		buf, err = b.src.Peek(need)
	}
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
	if n > iobuf.MaxPeek {
		return nil, iobuf.ErrPeekTooLarge
	}
	if b.old > 0 {
		if b.old >= n {
			return b.join[:b.old], nil
		}
		return b.joinPeek(n)
	}
	if b.err != nil {
		return nil, b.err
	}
	for b.remaining == 0 {
		if !b.partial {
			return nil, io.EOF
		}
		if n == 0 {
			// Read nothing: parse the next length only if it is buffered.
			if buf, _ := b.src.Peek(0); len(buf) == 0 {
				return nil, nil
			} else if _, _, _, need := parseNewLength(buf); need > 0 {
				return nil, nil
			}
		}
		if err := b.nextSegment(); err != nil {
			b.err = err
			return nil, err
		}
	}
	buf, err := b.src.Peek(int(min(int64(n), b.remaining)))
	if int64(len(buf)) > b.remaining {
		buf = buf[:b.remaining]
	}
	if len(buf) >= n && (len(buf) > 0 || err == nil) {
		return buf, nil
	}
	if int64(len(buf)) == b.remaining {
		if b.partial {
			return b.joinPeek(n) // the request crosses into the next segment
		}
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

// joinPeek serves a Peek of n bytes that the current segment cannot: the
// rest of each segment that the request covers whole moves into the side
// buffer (consumed below), and the segment where the request ends lends a
// copy of its first bytes.
func (b *Body) joinPeek(n int) ([]byte, error) {
	b.join = b.join[:b.old]
	for {
		if b.err != nil {
			return b.join, b.err
		}
		if b.remaining == 0 {
			if !b.partial {
				return b.join, io.EOF // the body ends within the request
			}
			if err := b.nextSegment(); err != nil {
				b.err = err
				return b.join, err
			}
			continue
		}
		need := n - len(b.join)
		take := int(min(int64(need), b.remaining))
		buf, err := b.src.Peek(take)
		if len(buf) < take {
			if errors.Is(err, io.EOF) && b.indeterm {
				b.join = append(b.join, buf...)
				return b.join, io.EOF
			}
			if err == nil || errors.Is(err, io.EOF) {
				err = b.truncated()
			}
			b.err = err
			return b.join, err
		}
		b.join = append(b.join, buf[:take]...)
		if take == need {
			return b.join, nil // join[old:] stays unconsumed below
		}
		b.src.Consume(take)
		b.remaining -= int64(take)
		b.old = len(b.join)
	}
}

// Consume implements iobuf.Reader.
func (b *Body) Consume(n int) {
	if n < 0 {
		panic("packet: Consume beyond the peeked body")
	}
	b.offset += int64(n)
	if b.old > 0 {
		if n <= b.old {
			// Still inside the joined bytes of finished segments.
			b.join = append(b.join[:0], b.join[n:b.old]...)
			b.old -= n
			return
		}
		n -= b.old
		b.join, b.old = b.join[:0], 0
	}
	if int64(n) > b.remaining {
		panic("packet: Consume beyond the peeked body")
	}
	b.src.Consume(n)
	b.remaining -= int64(n)
}

// Read implements io.Reader. Inside a segment it is the reader below's
// Read, so a large read of an unbuffered stretch goes straight from the
// source into p.
func (b *Body) Read(p []byte) (int, error) {
	if len(p) > 0 && b.old == 0 && b.remaining > 0 && b.err == nil {
		m, _ := b.src.Read(p[:min(int64(len(p)), b.remaining)])
		if m > 0 {
			b.remaining -= int64(m)
			b.offset += int64(m)
			return m, nil
		}
	}
	return iobuf.ReadVia(b, p)
}

// WriteTo implements io.WriterTo without an intermediate buffer.
func (b *Body) WriteTo(w io.Writer) (int64, error) { return iobuf.WriteTo(b, w) }

// Discard consumes the rest of the body, for packets that are skipped.
func (b *Body) Discard() error { return iobuf.Discard(b) }

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
