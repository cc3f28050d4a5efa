package filter

import (
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// The chunked AEAD packets: RFC 9580's SEIPD v2 (tag 18, version 2) and
// LibrePGP's AEAD Encrypted Data (tag 20, version 1). Both cut the
// plaintext into chunks of 2^(c+6) bytes, seal each chunk with its index
// in the nonce, and end with a final tag over no plaintext whose
// associated data adds the total plaintext length, so that dropping whole
// chunks from the end is detected. They differ in three places:
//
//	                 SEIPD v2 (RFC 9580 §5.13.2)          tag 20 (LibrePGP §5.16)
//	key, IV          HKDF-SHA256(session key, salt,        the session key; the IV
//	                 info = 5 header octets)               from the packet
//	nonce            IV (N-8 octets) || index              IV xor index (last 8 octets)
//	chunk AD         5 header octets                       5 header octets || index
//	final AD         5 header octets || length             5 header octets || index || length
//
// The header octets are the packet tag in new format (0xD2, 0xD4), the
// version, cipher, mode and chunk size octets. Writing the SEIPD v2 IV as
// N-8 octets followed by eight zeros makes the two nonces one formula.

// aeadSuite is what every chunk of one packet depends on.
type aeadSuite struct {
	cipher    packet.CipherAlgo
	mode      packet.AEADAlgo
	key       []byte  // message key
	iv        []byte  // the nonce of chunk 0
	head      [5]byte // tag, version, cipher, mode, chunk size octets
	indexAD   bool    // tag 20: the chunk index is part of the AD
	chunkSize int
}

func checkChunkByte(pkt string, off int64, c byte) error {
	if c > packet.MaxChunkByte {
		return &packet.StructuralError{Packet: pkt, Offset: off, Msg: "chunk size octet above 16 (4 MiB chunks)"}
	}
	return nil
}

// newSEIPDv2Suite derives the message key and IV of a SEIPD v2 packet.
func newSEIPDv2Suite(c packet.CipherAlgo, mode packet.AEADAlgo, chunkByte byte, salt []byte, sessionKey []byte) (*aeadSuite, error) {
	n := mode.NonceSize()
	if n == 0 {
		return nil, &packet.UnsupportedError{Packet: "SEIPD", Offset: -1, What: mode.String()}
	}
	if c.BlockSize() != 16 {
		return nil, &packet.UnsupportedError{Packet: "SEIPD", Offset: -1, What: "cipher " + c.String() + " with AEAD"}
	}
	s := &aeadSuite{cipher: c, mode: mode, chunkSize: packet.ChunkSize(chunkByte)}
	s.head = [5]byte{0xc0 | byte(packet.TagSEIPD), 2, byte(c), byte(mode), chunkByte}
	okm, err := hkdf.Key(sha256.New, sessionKey, salt, string(s.head[:]), c.KeySize()+n-8)
	if err != nil {
		return nil, err
	}
	s.key = okm[:c.KeySize()]
	s.iv = make([]byte, n)
	copy(s.iv, okm[c.KeySize():])
	return s, nil
}

// newAEADDataSuite sets up a tag 20 packet.
func newAEADDataSuite(a packet.AEADData, sessionKey []byte) *aeadSuite {
	s := &aeadSuite{cipher: a.Cipher, mode: a.AEAD, key: sessionKey, iv: a.IV, indexAD: true, chunkSize: packet.ChunkSize(a.ChunkByte)}
	s.head = [5]byte{0xc0 | byte(packet.TagAEAD), a.Version, byte(a.Cipher), byte(a.AEAD), a.ChunkByte}
	return s
}

// chunkCrypter seals and opens the chunks of one packet. It owns its AEAD
// instance and scratch space, so each worker of a pool has its own.
type chunkCrypter struct {
	s     *aeadSuite
	aead  cipher.AEAD
	nonce [16]byte
	ad    [5 + 8 + 8]byte
}

func newChunkCrypter(s *aeadSuite) (*chunkCrypter, error) {
	a, err := newAEAD(s.cipher, s.mode, s.key)
	if err != nil {
		return nil, err
	}
	if a.NonceSize() != len(s.iv) || a.Overhead() != aeadTagSize {
		panic("filter: AEAD engine disagrees with the mode's nonce or tag size")
	}
	return &chunkCrypter{s: s, aead: a}, nil
}

func (c *chunkCrypter) nonceFor(index uint64) []byte {
	n := c.nonce[:len(c.s.iv)]
	copy(n, c.s.iv)
	tail := n[len(n)-8:]
	binary.BigEndian.PutUint64(tail, binary.BigEndian.Uint64(tail)^index)
	return n
}

func (c *chunkCrypter) adFor(index uint64) []byte {
	ad := append(c.ad[:0], c.s.head[:]...)
	if c.s.indexAD {
		ad = binary.BigEndian.AppendUint64(ad, index)
	}
	return ad
}

// open authenticates and decrypts one chunk (ciphertext || tag) to the
// start of dst, an empty slice that is ct[:0] or does not overlap ct. Any
// failure is ErrAuthentication.
//
// dst must have a tag's room beyond the plaintext: go-crypto's EAX asks for
// the ciphertext's length and would otherwise decrypt into a new slice.
func (c *chunkCrypter) open(dst, ct []byte, index uint64) ([]byte, error) {
	pt, err := c.aead.Open(dst, c.nonceFor(index), ct, c.adFor(index))
	if err != nil {
		return nil, ErrAuthentication
	}
	if len(pt) > 0 && &pt[0] != &dst[:1][0] {
		panic("filter: AEAD engine did not open in place")
	}
	return pt, nil
}

func (c *chunkCrypter) seal(dst, pt []byte, index uint64) []byte {
	return c.aead.Seal(dst, c.nonceFor(index), pt, c.adFor(index))
}

// final is the tag after the last chunk: index is the number of chunks,
// total the number of plaintext octets.
func (c *chunkCrypter) final(dst []byte, index, total uint64) []byte {
	return c.aead.Seal(dst, c.nonceFor(index), nil, binary.BigEndian.AppendUint64(c.adFor(index), total))
}

func (c *chunkCrypter) checkFinal(tag []byte, index, total uint64) error {
	var scratch [0]byte
	if _, err := c.aead.Open(scratch[:0], c.nonceFor(index), tag, binary.BigEndian.AppendUint64(c.adFor(index), total)); err != nil {
		return ErrAuthentication
	}
	return nil
}

// plainSource yields runs of authenticated plaintext in order.
type plainSource interface {
	// next returns the next run; it stays valid until the following call.
	// io.EOF comes only after the final tag has been verified.
	next() ([]byte, error)
	close()
}

// AEADReader is an iobuf.Reader of the plaintext of a chunked AEAD packet
// body. It releases a chunk only after its tag has verified, and reports
// io.EOF only after the final tag has verified too: a stream cut at a
// chunk boundary, or with chunks dropped, reordered or repeated, ends in
// ErrAuthentication instead. Errors are sticky.
//
// Copies per byte, sequential path: one, the decryption from the body's
// buffer into this reader's plaintext buffer, when a chunk lies whole in
// the body's buffer; a chunk cut by a partial-length boundary is gathered
// into the plaintext buffer first and decrypted there in place. The
// consumer reads the plaintext in place. Parallel path: one memcpy of the
// ciphertext into a worker's slot, where it is decrypted in place.
type AEADReader struct {
	src plainSource

	seg      []byte // the current run from src
	off      int    // how much of seg has been consumed
	carry    []byte // a Peek that straddled two runs, gathered here
	carryBuf []byte
	err      error
}

// Peek implements iobuf.Reader.
func (r *AEADReader) Peek(n int) ([]byte, error) {
	if n > iobuf.MaxPeek {
		return nil, iobuf.ErrPeekTooLarge
	}
	if n <= 0 {
		switch {
		case len(r.carry) > 0:
			return r.carry, nil
		case r.off < len(r.seg):
			return r.seg[r.off:], nil
		}
		return nil, r.err
	}
	for {
		switch {
		case len(r.carry) > 0:
			if len(r.carry) >= n {
				return r.carry, nil
			}
			if r.off < len(r.seg) {
				k := min(n-len(r.carry), len(r.seg)-r.off)
				r.carry = append(r.carry, r.seg[r.off:r.off+k]...)
				r.off += k
				continue
			}
		case len(r.seg)-r.off >= n:
			return r.seg[r.off:], nil
		case r.off < len(r.seg):
			// The request straddles two runs (a packet header across a
			// chunk boundary): gather it, copying at most n bytes.
			r.carry = append(r.carryBuf[:0], r.seg[r.off:]...)
			r.carryBuf = r.carry[:0]
			r.off = len(r.seg)
			continue
		}
		if r.err != nil {
			return r.carry, r.err
		}
		seg, err := r.src.next()
		if err != nil {
			r.err = err
			return r.carry, err
		}
		r.seg, r.off = seg, 0
	}
}

// Consume implements iobuf.Reader.
func (r *AEADReader) Consume(n int) {
	if len(r.carry) > 0 {
		if n < 0 || n > len(r.carry) {
			panic("filter: Consume beyond the peeked plaintext")
		}
		r.carry = r.carry[n:]
		return
	}
	if n < 0 || n > len(r.seg)-r.off {
		panic("filter: Consume beyond the peeked plaintext")
	}
	r.off += n
}

// Read implements io.Reader.
func (r *AEADReader) Read(p []byte) (int, error) { return iobuf.ReadVia(r, p) }

// WriteTo implements io.WriterTo: each verified run goes straight to w.
func (r *AEADReader) WriteTo(w io.Writer) (int64, error) { return iobuf.WriteTo(r, w) }

// Close stops the workers of the parallel path; reading after Close fails.
func (r *AEADReader) Close() error {
	r.src.close()
	if r.err == nil {
		r.err = io.ErrClosedPipe
	}
	return nil
}

// minParallelChunk is the smallest chunk the worker pool takes; smaller
// chunks are decoded in batches on one core. With 64 KiB chunks (batched
// four to a slot) the pool's CPU time per byte matched the sequential
// path's within noise (OCB, 128 MiB: 0.43 s vs 0.46 s user); smaller
// chunks mean more nonces, tags and hand-offs per byte for the same work,
// and the messages that use them are the short ones. BenchmarkAEAD
// compares the paths.
const minParallelChunk = 64 << 10

// seqRun is how much plaintext the sequential path decodes per run when
// chunks are small: enough that the consumer's per-run cost vanishes.
const seqRun = 64 << 10

func newAEADReader(body iobuf.Reader, s *aeadSuite, threads int) (*AEADReader, error) {
	threads = resolveThreads(threads)
	if threads > 1 && s.chunkSize >= minParallelChunk {
		p, err := newParallelOpener(body, s, threads)
		if err != nil {
			return nil, err
		}
		return &AEADReader{src: p}, nil
	}
	cc, err := newChunkCrypter(s)
	if err != nil {
		return nil, err
	}
	return &AEADReader{src: &seqOpener{src: body, cc: cc, cs: s.chunkSize, buf: make([]byte, max(s.chunkSize, seqRun), max(s.chunkSize, seqRun)+aeadTagSize)}}, nil
}

// seqOpener decodes chunks on the calling goroutine into its own buffer,
// a run of whole chunks at a time. A chunk that lies whole in what the body
// shows (a definite-length body, a large partial segment) is opened
// straight from the body's buffer; one that a partial-length boundary, or
// the end of the buffer below, cuts is gathered from the body's runs into
// this buffer and opened there in place, so no Peek ever spans segments.
// The final tag is the body's last 16 bytes: a chunk is opened as soon as
// a tag's worth of bytes is known to follow it.
//
// Copies per byte: one, the decryption, for chunks opened in place in the
// body's buffer; two, the gathering copy and the in-place decryption, for
// chunks cut by a boundary.
type seqOpener struct {
	src          iobuf.Reader
	cc           *chunkCrypter
	cs           int
	buf          []byte // a run of plaintext; cap leaves a tag's room
	index, total uint64
	done         bool
	err          error
	rounds       int // body Peeks, for the tests that count them
}

func (o *seqOpener) close() {}

func (o *seqOpener) next() ([]byte, error) {
	n := 0
	for n+o.cs <= len(o.buf) && !o.done && o.err == nil {
		k, err := o.step(o.buf[n:cap(o.buf)], len(o.buf)-n)
		n += k
		if err != nil {
			o.err = err
		}
	}
	if n > 0 {
		return o.buf[:n], nil // a pending error is returned next time
	}
	if o.err != nil {
		return nil, o.err
	}
	if o.done {
		return nil, io.EOF
	}
	return nil, io.ErrNoProgress
}

// step decodes chunks into dst, which has room for room bytes of
// plaintext (at least one chunk) and a tag beyond them, and returns how
// much plaintext it wrote.
func (o *seqOpener) step(dst []byte, room int) (int, error) {
	full := o.cs + aeadTagSize
	o.rounds++
	view, err := o.src.Peek(1)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	if len(view) >= full+aeadTagSize {
		// Whole chunks in the body's buffer, each followed by at least
		// a tag's worth: none of them holds the final tag.
		n, pos := 0, 0
		for len(view)-pos >= full+aeadTagSize && room-n >= o.cs {
			if _, err := o.cc.open(dst[n:n], view[pos:pos+full], o.index); err != nil {
				o.src.Consume(pos)
				return n, err
			}
			o.index++
			o.total += uint64(o.cs)
			n += o.cs
			pos += full
		}
		o.src.Consume(pos)
		return n, nil
	}
	// Gather one chunk and its tag into dst, then look for a tag's worth
	// after it.
	ct := dst[:full]
	m, err := io.ReadFull(o.src, ct)
	var tail []byte
	if err == nil {
		if tail, err = o.src.Peek(aeadTagSize); err == nil {
			if _, err := o.cc.open(ct[:0], ct, o.index); err != nil {
				return 0, err
			}
			o.index++
			o.total += uint64(o.cs)
			return o.cs, nil
		}
		if !errors.Is(err, io.EOF) {
			return 0, err
		}
	} else if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, err
	}
	// The body ends here: the last chunk (possibly none, when the
	// previous chunk was the last) and the final tag, which is the last
	// 16 bytes of ct[:m] || tail.
	if m+len(tail) < aeadTagSize {
		return 0, &packet.TruncatedError{Packet: "AEAD", Offset: -1, Want: "the final authentication tag"}
	}
	var final [aeadTagSize]byte
	last := m + len(tail) - aeadTagSize // bytes of the last chunk, with its tag
	copy(final[:], ct[last:m])
	copy(final[m-last:], tail)
	o.src.Consume(len(tail))
	n := 0
	if last > 0 {
		pt, err := o.cc.open(ct[:0], ct[:last], o.index)
		if err != nil {
			return 0, err
		}
		n = len(pt)
		o.index++
		o.total += uint64(n)
	}
	if err := o.cc.checkFinal(final[:], o.index, o.total); err != nil {
		return 0, err
	}
	o.done = true
	return n, nil
}

// aeadWriter seals chunks on the calling goroutine and writes them to dst,
// the packet's partial-length writer, which it closes after the final tag.
//
// Copies per byte: one when a Write brings whole chunks (sealed straight
// from the caller's slice into the chunk buffer), two otherwise (gathered
// into the chunk buffer, sealed in place); then dst's own.
type aeadWriter struct {
	dst          io.WriteCloser
	cc           *chunkCrypter
	cs           int
	buf          []byte // cs plaintext bytes + the tag
	n            int
	index, total uint64
	err          error
}

func (w *aeadWriter) flush() error {
	ct := w.cc.seal(w.buf[:0], w.buf[:w.n], w.index)
	return w.emit(ct)
}

func (w *aeadWriter) emit(ct []byte) error {
	w.index++
	w.total += uint64(len(ct) - aeadTagSize)
	w.n = 0
	if _, err := w.dst.Write(ct); err != nil {
		w.err = err
		return err
	}
	return nil
}

// Write implements io.Writer.
func (w *aeadWriter) Write(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		if w.err != nil {
			return total, w.err
		}
		if w.n == 0 && len(p) >= w.cs {
			if err := w.emit(w.cc.seal(w.buf[:0], p[:w.cs], w.index)); err != nil {
				return total, err
			}
			total += w.cs
			p = p[w.cs:]
			continue
		}
		m := copy(w.buf[w.n:w.cs], p)
		w.n += m
		total += m
		p = p[m:]
		if w.n == w.cs {
			if err := w.flush(); err != nil {
				return total, err
			}
		}
	}
	return total, nil
}

// Close seals the last chunk, writes the final tag and closes dst.
func (w *aeadWriter) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.n > 0 {
		if err := w.flush(); err != nil {
			return err
		}
	}
	return closeAEAD(w.dst, w.cc, w.index, w.total, &w.err)
}

func closeAEAD(dst io.WriteCloser, cc *chunkCrypter, index, total uint64, errp *error) error {
	var tag [aeadTagSize]byte
	if _, err := dst.Write(cc.final(tag[:0], index, total)); err != nil {
		*errp = err
		return err
	}
	*errp = io.ErrClosedPipe
	return dst.Close()
}

// newChunkWriter returns the chunk sealer for s over dst.
func newChunkWriter(dst io.WriteCloser, s *aeadSuite, threads int) (io.WriteCloser, error) {
	threads = resolveThreads(threads)
	if threads > 1 && s.chunkSize >= minParallelChunk {
		return newParallelSealer(dst, s, threads)
	}
	cc, err := newChunkCrypter(s)
	if err != nil {
		return nil, err
	}
	return &aeadWriter{dst: dst, cc: cc, cs: s.chunkSize, buf: make([]byte, s.chunkSize+aeadTagSize)}, nil
}
