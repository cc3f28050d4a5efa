package iobuf

import (
	"io"
	"os"
)

// VectorWriter writes several buffers as one stream in one call: for a
// file, writev(2), so a packet's length octets go out between the runs
// of data they frame without first being copied next to them.
type VectorWriter interface {
	WriteVectors(bufs [][]byte) (int64, error)
}

// Vectors returns w as a VectorWriter: w itself when it is one, writev(2)
// for an *os.File, else the buffers gathered into one Write (a copy, so
// a writer that is not a file never sees a write of a length octet
// alone).
func Vectors(w io.Writer) VectorWriter {
	switch v := w.(type) {
	case VectorWriter:
		return v
	case *os.File:
		if fw := fileVectors(v); fw != nil {
			return fw
		}
	}
	return &gather{w: w}
}

// gather is the fallback: the buffers joined, one Write.
type gather struct {
	w       io.Writer
	scratch []byte
}

func (g *gather) WriteVectors(bufs [][]byte) (int64, error) {
	if len(bufs) == 1 {
		n, err := g.w.Write(bufs[0])
		if err == nil && n < len(bufs[0]) {
			err = io.ErrShortWrite
		}
		return int64(n), err
	}
	g.scratch = g.scratch[:0]
	for _, b := range bufs {
		g.scratch = append(g.scratch, b...)
	}
	n, err := g.w.Write(g.scratch)
	if err == nil && n < len(g.scratch) {
		err = io.ErrShortWrite
	}
	return int64(n), err
}
