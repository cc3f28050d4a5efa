package packet

import (
	"io"
	"math/bits"

	"github.com/pgpstream/pgpstream/iobuf"
)

// RunWriter writes one packet whose body comes in runs of any length,
// framed as partial body lengths (RFC 9580 §4.2.1.4): a run of n bytes
// goes out as the partial segments of n's binary digits, largest first,
// each length octet written between the data it frames by one vectored
// write (writev(2) to a file), so the runs are never copied to make room
// for their headers. Close ends the packet with a definite-length
// segment.
//
// The stage above keeps its buffer and hands out whatever it has sealed
// when it is full: a file gives runs of one power of two, one segment
// each; a pipe, whatever a read brought, a few segments.
type RunWriter struct {
	v     iobuf.VectorWriter
	tag   Tag
	first bool
	hdrs  [64]byte
	iov   [][]byte
	err   error
}

// NewRunWriter returns a writer of one packet with the given tag.
func NewRunWriter(w io.Writer, tag Tag) *RunWriter {
	return &RunWriter{v: iobuf.Vectors(w), tag: tag, first: true, iov: make([][]byte, 0, 2*32+1)}
}

// minFirstPartial is RFC 9580's floor for the first partial length.
const minFirstPartial = 512

// WriteRun writes frame[off:] as partial segments; frame[:off] is room
// the writer may use for length octets (a run of one power of two then
// goes out with its octet in one plain write). The first run must be at
// least 512 bytes (the format's floor for a first partial length); frame
// is not kept.
func (w *RunWriter) WriteRun(frame []byte, off int) error {
	if w.err != nil {
		return w.err
	}
	b := frame[off:]
	if len(b) == 0 {
		return nil
	}
	if w.first && len(b) < minFirstPartial {
		panic("packet: a first partial segment under 512 bytes")
	}
	h := w.hdrs[:0]
	if w.first {
		h = append(h, 0xc0|byte(w.tag))
		w.first = false
	}
	if n := len(b); n&(n-1) == 0 && off >= len(h)+1 {
		// One segment: its octets in the room in front.
		h = AppendPartialLength(h, n)
		start := off - len(h)
		copy(frame[start:], h)
		_, err := w.v.WriteVectors([][]byte{frame[start:]})
		w.err = err
		return err
	}
	w.iov = w.iov[:0]
	start := 0 // of this segment's header in hdrs
	for n := len(b); n > 0; {
		k := bits.Len(uint(n)) - 1 // the largest power of two left
		h = AppendPartialLength(h, 1<<k)
		w.iov = append(w.iov, h[start:len(h)], b[:1<<k])
		start = len(h)
		b = b[1<<k:]
		n -= 1 << k
	}
	_, err := w.v.WriteVectors(w.iov)
	clear(w.iov)
	w.err = err
	return err
}

// Close writes frame[off:] as the packet's final, definite-length
// segment (the whole packet, with a definite length, when no run came
// before), its octets in frame[:off] when they fit.
func (w *RunWriter) Close(frame []byte, off int) error {
	if w.err != nil {
		return w.err
	}
	last := frame[off:]
	h := w.hdrs[:0]
	if w.first {
		h = append(h, 0xc0|byte(w.tag))
		w.first = false
	}
	h = AppendLength(h, int64(len(last)))
	var err error
	if off >= len(h) {
		start := off - len(h)
		copy(frame[start:], h)
		_, err = w.v.WriteVectors([][]byte{frame[start:]})
	} else {
		_, err = w.v.WriteVectors([][]byte{h, last})
	}
	if err == nil {
		err = io.ErrClosedPipe
	}
	w.err = err
	if err == io.ErrClosedPipe {
		return nil
	}
	return err
}
