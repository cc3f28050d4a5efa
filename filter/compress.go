package filter

import (
	"compress/bzip2"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zlib"

	"github.com/pgpstream/pgpstream/packet"
)

// ErrTooMuchOutput is returned when decompressed data exceeds the limit
// the caller set: a small packet that inflates without bound is a denial
// of service, not a message.
var ErrTooMuchOutput = errors.New("decompressed data exceeds the output limit")

// NewDecompressor returns the decompressed stream of a Compressed Data
// body (after its algorithm octet). limit bounds the output, 0 for none.
func NewDecompressor(body io.Reader, algo packet.CompressionAlgo, limit int64) (io.ReadCloser, error) {
	var r io.ReadCloser
	switch algo {
	case packet.CompressNone:
		r = io.NopCloser(body)
	case packet.CompressZIP:
		r = flate.NewReader(body)
	case packet.CompressZLIB:
		zr, err := zlib.NewReader(body)
		if err != nil {
			return nil, fmt.Errorf("compressed data: ZLIB header: %w", err)
		}
		r = zr
	case packet.CompressBZIP2:
		r = io.NopCloser(bzip2.NewReader(body))
	default:
		return nil, &packet.UnsupportedError{Packet: "compressed data", Offset: -1, What: algo.String()}
	}
	if limit > 0 {
		r = &limitReader{r: r, left: limit}
	}
	return r, nil
}

type limitReader struct {
	r    io.ReadCloser
	left int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, ErrTooMuchOutput
	}
	return n, err
}

func (l *limitReader) Close() error { return l.r.Close() }

// NewCompressor returns a writer that compresses into w (the Compressed
// Data packet's body writer, after its algorithm octet). Close finishes the
// compressed stream but does not close w.
func NewCompressor(w io.Writer, algo packet.CompressionAlgo, level int) (io.WriteCloser, error) {
	switch algo {
	case packet.CompressZIP:
		return flate.NewWriter(w, level)
	case packet.CompressZLIB:
		return zlib.NewWriterLevel(w, level)
	}
	return nil, fmt.Errorf("cannot write %v compression (pgpstream writes ZIP and ZLIB)", algo)
}
