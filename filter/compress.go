package filter

import (
	"bytes"
	"compress/bzip2"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/adler32"
	"io"
	"runtime"

	dsbzip2 "github.com/dsnet/compress/bzip2"

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
		ahead := iobuf.NewAheadSize(body, aheadBufs, aheadSize)
		d = &stream{out: inflate.NewReader(ahead, format), ahead: ahead}
	case packet.CompressBZIP2:
		ahead := iobuf.NewAheadSize(body, aheadBufs, aheadSize)
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
	out     iobuf.Reader // the decompressor's output
	ahead   *iobuf.Ahead // the compressed body, read on its own goroutine
	drained bool
	endErr  error // what ended the body after the compressed data
	// dropped counts what the end of the stream read and dropped: the
	// body after the compressed data (exact for ZIP and ZLIB, which
	// inflate leaves right after the stream; BZIP2's reader reads ahead).
	dropped int64
}

// Peek implements iobuf.Reader. At the end of the stream it reads the
// body to its end, so the goroutine has stopped and whatever failed after
// the compressed data is reported.
func (s *stream) Peek(n int) ([]byte, error) {
	b, err := s.out.Peek(n)
	if err == io.EOF {
		if !s.drained {
			s.drained = true
			s.dropped, s.endErr = s.ahead.Drain()
		}
		if s.endErr != nil {
			err = s.endErr
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

// NewCompressor returns a writer that compresses into w (the Compressed
// Data packet's body writer, after its algorithm octet). Close finishes the
// compressed stream but does not close w.
//
// The compressor is Go's compress/flate, whose levels match zlib's (and so
// gpg's) closely. klauspost/compress's levels 1 to 6 wrote base64 text as
// stored blocks, no smaller than the input (200,022 bytes of 200,000; gpg
// -z 6 writes 152,116, compress/flate 151,318), and its level 6 was 5%
// larger than zlib's on other text. compress/flate is slower than zlib on
// one core, so the input is compressed in 512 KiB blocks on every core, as
// pigz does: each block starts from the 32 KiB before it as its dictionary
// and ends in a sync flush, and the outputs, written in order, make one
// DEFLATE stream that costs about 5 bytes per block in ratio.
//
// BZIP2 (level 1 to 9, the block size in units of 100 kB, as bzip2's and
// gpg's; anything else is gpg's default, 6) is one serial stream from
// dsnet/compress: gpg reads one bzip2 stream per packet, so the blocks
// cannot be made on several cores as pbzip2 makes them. It is slow, as
// gpg's is; it is written only when asked for.
func NewCompressor(w io.Writer, algo packet.CompressionAlgo, level int) (io.WriteCloser, error) {
	if algo == packet.CompressBZIP2 {
		if level < 1 || level > 9 {
			level = 6
		}
		return dsbzip2.NewWriter(w, &dsbzip2.WriterConfig{Level: level})
	}
	if algo != packet.CompressZIP && algo != packet.CompressZLIB {
		return nil, fmt.Errorf("cannot write %v compression (pgpstream writes ZIP, ZLIB and BZIP2)", algo)
	}
	if level < flate.HuffmanOnly || level > flate.BestCompression {
		return nil, fmt.Errorf("compression level %d out of range", level)
	}
	c := &compressor{dst: w, level: level, zlib: algo == packet.CompressZLIB, maxJobs: runtime.GOMAXPROCS(0)}
	if c.zlib {
		c.sum = adler32.New()
	}
	c.block = make([]byte, 0, window+compressBlock)
	return c, nil
}

const (
	// compressBlock: 512 KiB keeps the blocks in flight, their outputs
	// and their compressors (~0.9 MB each in compress/flate) to a few MB
	// of heap; 1 MiB blocks took peak RSS from 16 to 35 MB. Priming each
	// block with its dictionary costs 32 KiB of hashing per block.
	compressBlock = 512 << 10
	window        = 32 << 10
)

type compressor struct {
	dst     io.Writer
	level   int
	zlib    bool
	sum     hash.Hash32
	started bool // the zlib header is written

	block   []byte // dictionary (the window before it), then the block's input
	dictLen int
	jobs    []*compressJob // in flight, oldest first
	spare   [][]byte       // block buffers done with, for reuse
	maxJobs int
	err     error
	closed  bool
}

type compressJob struct {
	done  chan struct{}
	block []byte
	out   bytes.Buffer
	err   error
}

func (c *compressor) Write(p []byte) (int, error) {
	if c.closed {
		return 0, errors.New("compressed data: write after close")
	}
	n := 0
	for len(p) > 0 && c.err == nil {
		m := min(len(p), cap(c.block)-len(c.block))
		c.block = append(c.block, p[:m]...)
		p = p[m:]
		n += m
		if len(c.block) == cap(c.block) {
			c.submit(false)
		}
	}
	return n, c.err
}

// submit starts compressing the current block and starts the next one,
// with this one's last 32 KiB as its dictionary. It waits for the oldest
// job first when every core has one.
func (c *compressor) submit(final bool) {
	for len(c.jobs) >= c.maxJobs && c.err == nil {
		c.writeOldest()
	}
	if c.err != nil {
		return
	}
	if c.sum != nil {
		c.sum.Write(c.block[c.dictLen:])
	}
	j := &compressJob{done: make(chan struct{}), block: c.block}
	c.jobs = append(c.jobs, j)
	go j.run(c.block, c.dictLen, c.level, final)
	if !final {
		var next []byte
		if n := len(c.spare); n > 0 {
			next, c.spare = c.spare[n-1][:0], c.spare[:n-1]
		} else {
			next = make([]byte, 0, window+compressBlock)
		}
		next = append(next, c.block[max(len(c.block)-window, 0):]...)
		c.block, c.dictLen = next, len(next)
	}
}

func (j *compressJob) run(block []byte, dictLen, level int, final bool) {
	defer close(j.done)
	j.out.Grow((len(block)-dictLen)/2 + 64)
	fw, err := flate.NewWriterDict(&j.out, level, block[:dictLen])
	if err != nil {
		j.err = err
		return
	}
	fw.Write(block[dictLen:])
	if final {
		j.err = fw.Close()
	} else {
		j.err = fw.Flush()
	}
}

// writeOldest waits for the oldest job and writes its output.
func (c *compressor) writeOldest() {
	j := c.jobs[0]
	c.jobs = c.jobs[1:]
	<-j.done
	if c.err == nil && j.err != nil {
		c.err = j.err
	}
	if c.err == nil && c.zlib && !c.started {
		c.started = true
		c.err = c.writeAll(zlibHeader(c.level))
	}
	if c.err == nil {
		c.err = c.writeAll(j.out.Bytes())
	}
	c.spare = append(c.spare, j.block)
}

func (c *compressor) writeAll(p []byte) error {
	n, err := c.dst.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	return err
}

// zlibHeader is RFC 1950's CMF and FLG: deflate with a 32 KiB window, the
// level class zlib writes for level, no dictionary.
func zlibHeader(level int) []byte {
	var lv byte
	switch {
	case level == flate.DefaultCompression || level == 6:
		lv = 2
	case level >= 7:
		lv = 3
	case level >= 2:
		lv = 1
	}
	h := []byte{0x78, lv << 6}
	h[1] += byte(31 - (uint(h[0])<<8|uint(h[1]))%31)
	return h
}

// Close compresses what is left, writes every block in order and, for
// ZLIB, the Adler-32 of the input.
func (c *compressor) Close() error {
	if c.closed {
		return c.err
	}
	c.closed = true
	c.submit(true)
	for len(c.jobs) > 0 {
		c.writeOldest() // waits even after an error: no job outlives Close
	}
	if c.err == nil && c.zlib {
		c.err = c.writeAll(binary.BigEndian.AppendUint32(nil, c.sum.Sum32()))
	}
	return c.err
}
