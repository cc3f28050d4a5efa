package iobuf

import "io"

// Writer is the interface of an encode stage that lends its buffer to the
// stage above: Buffer returns free space, the caller fills a prefix of it
// and Commits that many bytes. An encrypting stage thus produces its output
// directly where the next stage (or the file) will take it from.
type Writer interface {
	io.WriteCloser
	// Buffer returns free space in the stage's buffer, at least one byte,
	// flushing first if the buffer is full.
	Buffer() ([]byte, error)
	// Commit marks the first n bytes of the last Buffer as written.
	Commit(n int) error
}

// BufWriter is a Writer over an io.Writer: a plain buffered writer whose
// buffer can be lent out. Close flushes; it does not close the destination.
type BufWriter struct {
	dst io.Writer
	buf []byte
	n   int
	err error
}

// NewWriter returns a BufWriter with a buffer of size bytes (DefaultSize if size <= 0).
func NewWriter(dst io.Writer, size int) *BufWriter {
	if size <= 0 {
		size = DefaultSize
	}
	return &BufWriter{dst: dst, buf: make([]byte, size)}
}

// Buffer implements Writer.
func (w *BufWriter) Buffer() ([]byte, error) {
	if w.n == len(w.buf) {
		if err := w.Flush(); err != nil {
			return nil, err
		}
	}
	return w.buf[w.n:], w.err
}

// Commit implements Writer.
func (w *BufWriter) Commit(n int) error {
	if n < 0 || w.n+n > len(w.buf) {
		panic("iobuf: Commit beyond the lent buffer")
	}
	w.n += n
	if w.n == len(w.buf) {
		return w.Flush()
	}
	return w.err
}

// Write implements io.Writer. Writes of a buffer's size or more skip the
// buffer when it is empty.
func (w *BufWriter) Write(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		if w.err != nil {
			return total, w.err
		}
		if w.n == 0 && len(p) >= len(w.buf) {
			m, err := w.dst.Write(p)
			total += m
			if err != nil {
				w.err = err
				return total, err
			}
			return total, nil
		}
		m := copy(w.buf[w.n:], p)
		w.n += m
		total += m
		p = p[m:]
		if w.n == len(w.buf) {
			if err := w.Flush(); err != nil {
				return total, err
			}
		}
	}
	return total, nil
}

// ReadFrom reads straight into the buffer, so io.Copy into a BufWriter makes
// one copy per byte (the kernel's) instead of two.
func (w *BufWriter) ReadFrom(r io.Reader) (int64, error) { return ReadInto(w, r) }

// ReadInto reads r to its end straight into w's lent buffer: the input's
// one copy (from the kernel) is the only one the stage costs.
func ReadInto(w Writer, r io.Reader) (int64, error) {
	var total int64
	for {
		buf, err := w.Buffer()
		if err != nil {
			return total, err
		}
		m, rerr := r.Read(buf)
		total += int64(m)
		if err := w.Commit(m); err != nil {
			return total, err
		}
		if rerr == io.EOF {
			return total, nil
		}
		if rerr != nil {
			return total, rerr
		}
	}
}

// Flush writes the buffered bytes to the destination.
func (w *BufWriter) Flush() error {
	if w.err != nil {
		return w.err
	}
	if w.n == 0 {
		return nil
	}
	m, err := w.dst.Write(w.buf[:w.n])
	if err == nil && m < w.n {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = err
		return err
	}
	w.n = 0
	return nil
}

// Close flushes.
func (w *BufWriter) Close() error { return w.Flush() }
