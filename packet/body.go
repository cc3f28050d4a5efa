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
// writer framed the body. A Peek that needs more bytes than the segment
// has left (a header or length octets split by a boundary) is joined by
// iobuf.Joined, the segments being its runs.
//
// Copies per byte: none while a Peek fits inside the current segment (the
// slice handed out is the reader below's buffer); a Peek of n bytes across
// a boundary copies the n bytes it needs.
type Body struct {
	*iobuf.Joined
	segs   *segments
	offset int64 // bytes of body consumed
}

// segments is a body's framing as an iobuf.RunSource: the run is what the
// reader below holds of the current segment.
type segments struct {
	src       iobuf.Reader
	tag       Tag
	remaining int64 // bytes left in the current segment, below
	partial   bool  // more segments follow the current one
	indeterm  bool  // old-format indeterminate length: the body ends with the input
	hdrOff    int64 // the packet header's offset, for errors
	err       error // sticky
}

// NewBody returns the body of the packet whose header h was just read from src.
func NewBody(src iobuf.Reader, h Header) *Body {
	s := &segments{src: src, tag: h.Tag, hdrOff: h.Offset}
	switch h.Kind {
	case Definite:
		s.remaining = h.Length
	case Partial:
		s.remaining, s.partial = h.Length, true
	case Indeterminate:
		s.remaining, s.indeterm = math.MaxInt64, true
	}
	return &Body{Joined: iobuf.NewJoined(s), segs: s}
}

// Offset is the number of body bytes consumed.
func (b *Body) Offset() int64 { return b.offset }

// Tag is the packet's tag.
func (b *Body) Tag() Tag { return b.segs.tag }

// Consume implements iobuf.Reader.
func (b *Body) Consume(n int) {
	b.offset += int64(n)
	b.Joined.Consume(n)
}

// nextSegment reads the length octets of the next partial segment.
func (s *segments) nextSegment() error {
	// Ask for the octets this length has, no more: a Peek of five could
	// wait for data beyond a one-octet length that is already here.
	buf, err := s.src.Peek(1)
	_, _, _, need := parseNewLength(buf)
	if need > len(buf) {
		buf, err = s.src.Peek(need)
	}
	l, size, kind, need := parseNewLength(buf)
	if need > 0 {
		if err == nil || errors.Is(err, io.EOF) {
			err = &TruncatedError{s.tag.String(), s.hdrOff, "a partial body length"}
		}
		return err
	}
	s.src.Consume(size)
	s.remaining, s.partial = l, kind == Partial
	return nil
}

// Run implements iobuf.RunSource.
func (s *segments) Run(want int) ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	for s.remaining == 0 {
		if !s.partial {
			return nil, io.EOF
		}
		if want == 0 {
			// Read nothing: parse the next length only if it is buffered.
			if buf, _ := s.src.Peek(0); len(buf) == 0 {
				return nil, nil
			} else if _, _, _, need := parseNewLength(buf); need > 0 {
				return nil, nil
			}
		}
		if err := s.nextSegment(); err != nil {
			s.err = err
			return nil, err
		}
	}
	buf, err := s.src.Peek(int(min(int64(want), s.remaining)))
	if int64(len(buf)) > s.remaining {
		buf = buf[:s.remaining]
	}
	if len(buf) > 0 || (want == 0 && err == nil) {
		return buf, nil
	}
	// The reader below ran dry inside the body.
	if errors.Is(err, io.EOF) {
		if s.indeterm {
			return nil, io.EOF // the end of the input is the end of the body
		}
		err = &TruncatedError{s.tag.String(), s.hdrOff, "the rest of the packet body"}
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	s.err = err
	return nil, err
}

// Lend implements iobuf.Lender when the reader below does: a segment's
// run is the reader's own bytes.
func (s *segments) Lend() func() {
	if l, ok := s.src.(iobuf.Lender); ok {
		return l.Lend()
	}
	return nil
}

// Advance implements iobuf.RunSource.
func (s *segments) Advance(n int) {
	if int64(n) > s.remaining {
		panic("packet: Consume beyond the peeked body")
	}
	s.src.Consume(n)
	s.remaining -= int64(n)
}

// Read implements io.Reader. Inside a segment it is the reader below's
// Read, so a large read of an unbuffered stretch goes straight from the
// source into p.
func (b *Body) Read(p []byte) (int, error) {
	s := b.segs
	if len(p) > 0 && !b.Pending() && s.remaining > 0 && s.err == nil {
		m, _ := s.src.Read(p[:min(int64(len(p)), s.remaining)])
		if m > 0 {
			s.remaining -= int64(m)
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
			return nil, &StructuralError{b.segs.tag.String(), b.segs.hdrOff, "body longer than the " + strconv.Itoa(limit) + " bytes such a packet can have"}
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
