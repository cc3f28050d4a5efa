package packet

import (
	"io"

	"github.com/pgpstream/pgpstream/iobuf"
)

// PartialWriter writes one packet whose length is not known in advance,
// as a chain of partial body lengths (RFC 9580 §4.2.1.4) ending in a
// definite-length segment. It implements iobuf.Writer: the stage above can
// fill the chunk buffer directly.
//
// Each full chunk goes out in one Write, header octet and data together
// (the buffer keeps room in front for the header), so a message of unknown
// length costs no copy here beyond what the stage above writes into it.
type PartialWriter struct {
	dst   io.Writer
	tag   Tag
	buf   []byte // headroom + chunk
	n     int    // bytes of chunk data in buf[headroom:]
	first bool   // the tag octet has not been written yet
	err   error
}

const headroom = 6 // tag octet + 5 length octets

// NewPartialWriter returns a writer for a packet of the given tag whose body
// is framed in chunks of chunkSize bytes, a power of two from 512 to 1 GiB.
func NewPartialWriter(dst io.Writer, tag Tag, chunkSize int) *PartialWriter {
	if chunkSize < 512 || chunkSize > 1<<30 || chunkSize&(chunkSize-1) != 0 {
		panic("packet: partial chunk size must be a power of two from 512 to 1 GiB")
	}
	return &PartialWriter{dst: dst, tag: tag, buf: make([]byte, headroom+chunkSize), first: true}
}

// Buffer implements iobuf.Writer.
func (w *PartialWriter) Buffer() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if headroom+w.n == len(w.buf) {
		if err := w.emit(true); err != nil {
			return nil, err
		}
	}
	return w.buf[headroom+w.n:], nil
}

// Commit implements iobuf.Writer.
func (w *PartialWriter) Commit(n int) error {
	if n < 0 || headroom+w.n+n > len(w.buf) {
		panic("packet: Commit beyond the lent buffer")
	}
	w.n += n
	return w.err
}

// Write implements io.Writer.
func (w *PartialWriter) Write(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		buf, err := w.Buffer()
		if err != nil {
			return total, err
		}
		m := copy(buf, p)
		w.n += m
		total += m
		p = p[m:]
	}
	return total, nil
}

// emit writes the buffered chunk: as a partial segment when more follows,
// else as the final definite-length segment.
func (w *PartialWriter) emit(partial bool) error {
	var hdr [headroom]byte
	h := hdr[:0]
	if w.first {
		h = append(h, 0xc0|byte(w.tag))
		w.first = false
	}
	if partial {
		h = AppendPartialLength(h, w.n)
	} else {
		h = AppendLength(h, int64(w.n))
	}
	start := headroom - len(h)
	copy(w.buf[start:], h)
	_, err := w.dst.Write(w.buf[start : headroom+w.n])
	w.n = 0
	if err != nil {
		w.err = err
	}
	return err
}

// Close writes the final segment (possibly empty). It does not close dst.
func (w *PartialWriter) Close() error {
	if w.err != nil {
		return w.err
	}
	err := w.emit(false)
	if err == nil {
		w.err = io.ErrClosedPipe
	}
	return err
}

// ReadFrom reads straight into the chunk buffer: the input's one copy
// (from the kernel) is the only one this stage costs.
func (w *PartialWriter) ReadFrom(r io.Reader) (int64, error) { return iobuf.ReadInto(w, r) }
