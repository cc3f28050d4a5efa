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
// The MDC packet is held back on the plaintext, in this reader's own
// buffer (an iobuf.Stage), as GnuPG and go-crypto do: each round decrypts
// whatever the body offers, segment after segment, until the buffer is
// full, and releases all but the last 22 plaintext bytes, which wait there
// until the body ends and they can be checked as the MDC. Nothing asks the
// body to reserve ciphertext, so a partial-length boundary costs nothing.
//
// Copies per byte: one, the decryption from the body's buffer into this
// reader's plaintext buffer, which the consumer reads in place. The SHA-1
// reads each round in place too: with a second core on its own goroutine,
// while the next round is decrypted into the stage's other buffer. Per
// round of a buffer (256 KiB) the 22 held bytes move to the front of the
// next buffer.
//
// Plaintext is released before the MDC is checked (a stream has no other
// way); EOF, and only EOF, means the MDC verified. The caller decides what
// to do with released plaintext if the check then fails.
type MDCReader struct {
	src    iobuf.Reader
	stream cfb.Stream
	sha    mdcHash
	st     *iobuf.Stage
	shared func([]byte, func()) // the hasher's WriteShared, when it hashes on its own goroutine
	done   bool                 // the MDC verified
	err    error
	rounds int // fills, for the tests that count them
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
		return nil, ErrAuthentication
	}
	m := &MDCReader{src: src, stream: stream, sha: newMDCHash()}
	if a := m.sha; a.Async() {
		// The hash reads each round in place, on its own goroutine, while
		// the next round is decrypted into the stage's other buffer.
		m.st, m.shared = iobuf.NewLendingStage(iobuf.DefaultSize, mdcTrailer), a.WriteShared
	} else {
		m.st = iobuf.NewStage(iobuf.DefaultSize, mdcTrailer)
	}
	m.sha.Write(prefix[:bs+2])
	return m, nil
}

// fill decrypts until the buffer is full (with at least n bytes ready)
// or the body ends.
func (m *MDCReader) fill(n int) {
	m.rounds++
	var rel []byte // released this round, to hash
	defer func() { m.hash(rel) }()
	for {
		dst := m.st.Space(n)
		if len(dst) == 0 {
			return
		}
		ct, err := m.src.Peek(1)
		if k := min(len(ct), len(dst)); k > 0 {
			m.stream.XORKeyStream(dst[:k], ct[:k])
			m.src.Consume(k)
			if r := m.st.Produce(k); len(r) > 0 {
				switch {
				case len(rel) == 0:
					rel = r
				case cap(rel) > len(rel) && &rel[:len(rel)+1][len(rel)] == &r[0]:
					rel = rel[:len(rel)+len(r)]
				default:
					m.hash(rel) // not contiguous: the stage moved
					rel = r
				}
			}
			if k < len(ct) {
				continue // the buffer is full; err is for later
			}
		}
		if err == nil {
			continue
		}
		if !errors.Is(err, io.EOF) {
			rel = nil // nothing more is hashed
			m.err = err
			m.sha.Close()
			return
		}
		m.hash(rel)
		rel = nil
		m.check(m.st.End())
		return
	}
}

// hash hands released plaintext to the MDC's SHA-1: lent in place to its
// goroutine, or hashed here.
func (m *MDCReader) hash(p []byte) {
	if len(p) == 0 {
		return
	}
	if m.shared != nil {
		m.shared(p, m.st.Lend(p))
		return
	}
	m.sha.Write(p)
}

// check verifies the MDC packet, the held-back end of the plaintext.
func (m *MDCReader) check(trailer []byte) {
	defer m.sha.Close()
	if len(trailer) < mdcTrailer {
		m.err = &packet.TruncatedError{Packet: "SEIPD", Offset: -1, Want: "the MDC packet"}
		return
	}
	m.sha.Write(trailer[:2])
	sum := m.sha.Sum20()
	ok := subtle.ConstantTimeByteEq(trailer[0], 0xd3) & subtle.ConstantTimeByteEq(trailer[1], 0x14) & subtle.ConstantTimeCompare(sum[:], trailer[2:])
	if ok != 1 {
		m.err = ErrAuthentication
		return
	}
	m.done = true
}

// Peek implements iobuf.Reader.
func (m *MDCReader) Peek(n int) ([]byte, error) {
	if n > iobuf.MaxPeek {
		return nil, iobuf.ErrPeekTooLarge
	}
	for len(m.st.Ready()) < n && !m.st.Ended() && m.err == nil {
		m.fill(n)
	}
	ready := m.st.Ready()
	if len(ready) >= n && (len(ready) > 0 || (!m.st.Ended() && m.err == nil)) {
		return ready, nil
	}
	if m.err != nil {
		return ready, m.err
	}
	return ready, io.EOF
}

// Consume implements iobuf.Reader.
func (m *MDCReader) Consume(n int) { m.st.Consume(n) }

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
	a := w.sha
	if !a.Async() || w.err != nil {
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
