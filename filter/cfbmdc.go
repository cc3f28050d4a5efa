package filter

import (
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"io"
	"sync/atomic"

	"github.com/pgpstream/pgpstream/internal/cfb"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// mdcTrailer is the MDC packet at the end of SEIPD v1 plaintext: tag 19
// (0xD3), length 20 (0x14) and the SHA-1 digest (RFC 9580 §5.13.1).
const mdcTrailer = 22

// MDCReader decrypts a SEIPD v1 body (CFB with a zero IV, the random
// prefix and the trailing MDC packet) and verifies the MDC. It is an
// iobuf.Reader of the plaintext between prefix and MDC.
//
// Copies per byte: one, the decryption from the body's buffer into this
// reader's plaintext buffer; the consumer reads that buffer in place.
// The last 22 bytes of ciphertext are held back by peeking, never copied
// aside, until the body ends and they can be checked as the MDC.
//
// Plaintext is released before the MDC is checked (a stream has no other
// way); EOF, and only EOF, means the MDC verified. The caller decides what
// to do with released plaintext if the check then fails.
type MDCReader struct {
	src    iobuf.Reader
	stream cfb.Stream
	sha    mdcHash
	buf    []byte
	r, w   int
	done   bool
	err    error
}

// NewMDCReader starts decrypting src, a SEIPD v1 body after its version
// octet. It reads and checks the prefix: if its repeated two octets differ
// the key is wrong (or the data damaged) and ErrAuthentication is returned
// at once rather than after decrypting the whole message.
func NewMDCReader(src iobuf.Reader, c packet.CipherAlgo, key []byte) (*MDCReader, error) {
	stream, err := newCFB(c, key, false)
	if err != nil {
		return nil, err
	}
	bs := c.BlockSize()
	m := &MDCReader{src: src, stream: stream, sha: newMDCHash(), buf: make([]byte, iobuf.DefaultSize)}
	pre, err := src.Peek(bs + 2 + mdcTrailer)
	if len(pre) < bs+2+mdcTrailer {
		if err == nil || errors.Is(err, io.EOF) {
			return nil, &packet.TruncatedError{Packet: "SEIPD", Offset: -1, Want: "the encrypted prefix and the MDC"}
		}
		return nil, err
	}
	var prefix [16 + 2]byte
	stream.XORKeyStream(prefix[:bs+2], pre[:bs+2])
	src.Consume(bs + 2)
	if prefix[bs-2] != prefix[bs] || prefix[bs-1] != prefix[bs+1] {
		m.sha.Close()
		return nil, ErrAuthentication
	}
	m.sha.Write(prefix[:bs+2])
	return m, nil
}

// fill decrypts the next run of ciphertext into the free end of buf.
func (m *MDCReader) fill() {
	if m.r == m.w {
		m.r, m.w = 0, 0
	}
	ct, err := m.src.Peek(mdcTrailer + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		m.err = err
		m.sha.Close()
		return
	}
	if err == nil {
		n := min(len(ct)-mdcTrailer, len(m.buf)-m.w)
		m.stream.XORKeyStream(m.buf[m.w:m.w+n], ct[:n])
		m.sha.Write(m.buf[m.w : m.w+n])
		m.src.Consume(n)
		m.w += n
		return
	}
	// The body has ended: all but the trailer is data.
	if len(ct) < mdcTrailer {
		m.err = &packet.TruncatedError{Packet: "SEIPD", Offset: -1, Want: "the MDC packet"}
		m.sha.Close()
		return
	}
	n := len(ct) - mdcTrailer
	if n > len(m.buf)-m.w {
		n = len(m.buf) - m.w
		m.stream.XORKeyStream(m.buf[m.w:m.w+n], ct[:n])
		m.sha.Write(m.buf[m.w : m.w+n])
		m.src.Consume(n)
		m.w += n
		return
	}
	m.stream.XORKeyStream(m.buf[m.w:m.w+n], ct[:n])
	m.sha.Write(m.buf[m.w : m.w+n])
	m.w += n
	var trailer [mdcTrailer]byte
	m.stream.XORKeyStream(trailer[:], ct[n:])
	m.src.Consume(len(ct))
	m.sha.Write(trailer[:2])
	sum := m.sha.Sum20()
	m.sha.Close()
	ok := subtle.ConstantTimeByteEq(trailer[0], 0xd3) & subtle.ConstantTimeByteEq(trailer[1], 0x14) & subtle.ConstantTimeCompare(sum[:], trailer[2:])
	if ok != 1 {
		m.err = ErrAuthentication
		return
	}
	m.done = true
}

// Peek implements iobuf.Reader.
func (m *MDCReader) Peek(n int) ([]byte, error) {
	if n > len(m.buf) {
		if n > iobuf.MaxPeek {
			return nil, iobuf.ErrPeekTooLarge
		}
		nb := make([]byte, n)
		m.w = copy(nb, m.buf[m.r:m.w])
		m.r, m.buf = 0, nb
	}
	for m.w-m.r < max(n, 1) && !m.done && m.err == nil {
		if m.r > 0 && len(m.buf)-m.r < n {
			m.w = copy(m.buf, m.buf[m.r:m.w])
			m.r = 0
		}
		m.fill()
	}
	if m.w-m.r >= max(n, 1) {
		return m.buf[m.r:m.w], nil
	}
	if m.err != nil {
		return m.buf[m.r:m.w], m.err
	}
	return m.buf[m.r:m.w], io.EOF
}

// Consume implements iobuf.Reader.
func (m *MDCReader) Consume(n int) {
	if n < 0 || n > m.w-m.r {
		panic("filter: Consume beyond the peeked plaintext")
	}
	m.r += n
}

// Unconsume implements iobuf.Unconsumer.
func (m *MDCReader) Unconsume(n int) bool {
	if n > m.r {
		return false
	}
	m.r -= n
	return true
}

// Read implements io.Reader.
func (m *MDCReader) Read(p []byte) (int, error) { return iobuf.ReadVia(m, p) }

// MDCWriter encrypts a SEIPD v1 body into dst, the packet's partial-length
// writer: version octet, random prefix, data, and the MDC packet on Close.
//
// Copies per byte: one, the encryption from the caller's slice into dst's
// chunk buffer.
type MDCWriter struct {
	dst    iobuf.Writer
	stream cfb.Stream
	sha    mdcHash
	err    error
}

// NewMDCWriter writes the version octet and the encrypted prefix.
func NewMDCWriter(dst iobuf.Writer, c packet.CipherAlgo, key []byte) (*MDCWriter, error) {
	stream, err := newCFB(c, key, true)
	if err != nil {
		return nil, err
	}
	w := &MDCWriter{dst: dst, stream: stream, sha: newMDCHash()}
	bs := c.BlockSize()
	prefix := make([]byte, bs+2)
	if _, err := rand.Read(prefix[:bs]); err != nil {
		return nil, err
	}
	prefix[bs], prefix[bs+1] = prefix[bs-2], prefix[bs-1]
	if _, err := dst.Write([]byte{1}); err != nil {
		return nil, err
	}
	if _, err := w.Write(prefix); err != nil {
		return nil, err
	}
	return w, nil
}

// Write implements io.Writer.
func (w *MDCWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.sha.Write(p)
	return w.encrypt(p)
}

// WriteOwned is Write for a buffer the caller lends until release: with
// the MDC hashed on its own goroutine, that goroutine reads p in place
// instead of from a copy, so the serial CFB encryption here is the only
// pass over p on this goroutine.
func (w *MDCWriter) WriteOwned(p []byte, release func()) error {
	a, ok := w.sha.(asyncSHA1)
	if !ok || w.err != nil {
		_, err := w.Write(p)
		release()
		return err
	}
	var refs atomic.Int32
	refs.Store(2)
	done := func() {
		if refs.Add(-1) == 0 {
			release()
		}
	}
	a.WriteShared(p, done)
	_, err := w.encrypt(p)
	done()
	return err
}

// encrypt runs CFB from p into dst's chunk buffer.
func (w *MDCWriter) encrypt(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		buf, err := w.dst.Buffer()
		if err != nil {
			w.err = err
			return total, err
		}
		n := min(len(buf), len(p))
		w.stream.XORKeyStream(buf[:n], p[:n])
		if err := w.dst.Commit(n); err != nil {
			w.err = err
			return total, err
		}
		total += n
		p = p[n:]
	}
	return total, nil
}

// Close appends the MDC packet and closes dst.
func (w *MDCWriter) Close() error {
	if w.err != nil {
		return w.err
	}
	trailer := []byte{0xd3, 0x14}
	w.sha.Write(trailer)
	sum := w.sha.Sum20()
	w.sha.Close()
	trailer = append(trailer, sum[:]...)
	w.stream.XORKeyStream(trailer, trailer)
	if _, err := w.dst.Write(trailer); err != nil {
		return err
	}
	w.err = io.ErrClosedPipe
	return w.dst.Close()
}
