// Package chunk is the engine of OpenPGP's chunked AEAD encryption: it
// seals plaintext into chunks and opens them again, on the calling
// goroutine or on a pool of workers. It reads no packet framing: it is
// given the chunk stream (a packet body after its fixed fields) and the
// five header octets every chunk's associated data carries. The stages
// that read and write the packets around it live in package filter.
//
// Each chunk is sealed with its index in the nonce; after the last one a
// final tag over no plaintext, whose associated data adds the total
// plaintext length, ends the stream, so dropping whole chunks from the end
// is detected. The final tag is the last TagSize bytes of the stream: a
// chunk is opened as soon as a tag's worth of bytes is known to follow it,
// and the stream ends only after the final tag verified.
package chunk

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

// TagSize is the tag length of every OpenPGP AEAD mode (RFC 9580 §9.6).
const TagSize = 16

// ErrAuthentication is every integrity failure of a chunk stream: a bad
// chunk tag, a bad final tag, chunks dropped, reordered or repeated. The
// stage above reports it as its own authentication error.
var ErrAuthentication = errors.New("chunk: authentication failed")

// Suite is what every chunk of one packet depends on.
type Suite struct {
	Cipher    packet.CipherAlgo
	Mode      packet.AEADAlgo
	Key       []byte  // message key
	IV        []byte  // the nonce of chunk 0
	Head      [5]byte // tag, version, cipher, mode, chunk size octets
	IndexAD   bool    // tag 20: the chunk index is part of the AD
	ChunkSize int
	Engine    Engine // makes each worker's AEAD instance
}

// Engine makes an AEAD instance for a cipher, mode and key. Instances are
// not assumed safe for concurrent use: each worker makes its own.
type Engine func(c packet.CipherAlgo, mode packet.AEADAlgo, key []byte) (cipher.AEAD, error)

// NewSEIPDv2 derives the message key and IV of a SEIPD v2 packet.
func NewSEIPDv2(e Engine, c packet.CipherAlgo, mode packet.AEADAlgo, chunkByte byte, salt []byte, sessionKey []byte) (*Suite, error) {
	n := mode.NonceSize()
	if n == 0 {
		return nil, &packet.UnsupportedError{Packet: "SEIPD", Offset: -1, What: mode.String()}
	}
	if c.BlockSize() != 16 {
		return nil, &packet.UnsupportedError{Packet: "SEIPD", Offset: -1, What: "cipher " + c.String() + " with AEAD"}
	}
	s := &Suite{Cipher: c, Mode: mode, ChunkSize: packet.ChunkSize(chunkByte), Engine: e}
	s.Head = [5]byte{0xc0 | byte(packet.TagSEIPD), 2, byte(c), byte(mode), chunkByte}
	okm, err := hkdf.Key(sha256.New, sessionKey, salt, string(s.Head[:]), c.KeySize()+n-8)
	if err != nil {
		return nil, err
	}
	s.Key = okm[:c.KeySize()]
	s.IV = make([]byte, n)
	copy(s.IV, okm[c.KeySize():])
	return s, nil
}

// NewAEADData sets up a tag 20 packet.
func NewAEADData(e Engine, a packet.AEADData, sessionKey []byte) *Suite {
	s := &Suite{Cipher: a.Cipher, Mode: a.AEAD, Key: sessionKey, IV: a.IV, IndexAD: true, ChunkSize: packet.ChunkSize(a.ChunkByte), Engine: e}
	s.Head = [5]byte{0xc0 | byte(packet.TagAEAD), a.Version, byte(a.Cipher), byte(a.AEAD), a.ChunkByte}
	return s
}

// crypter seals and opens the chunks of one packet. It owns its AEAD
// instance and scratch space, so each worker of a pool has its own.
type crypter struct {
	s      *Suite
	aead   cipher.AEAD
	pieces Pieces // the same instance, when it takes a chunk in pieces
	nonce  [16]byte
	ad     [5 + 8 + 8]byte
}

func newCrypter(s *Suite) (*crypter, error) {
	a, err := s.Engine(s.Cipher, s.Mode, s.Key)
	if err != nil {
		return nil, err
	}
	if a.NonceSize() != len(s.IV) || a.Overhead() != TagSize {
		panic("chunk: AEAD engine disagrees with the mode's nonce or tag size")
	}
	p, _ := a.(Pieces)
	return &crypter{s: s, aead: a, pieces: p}, nil
}

func (c *crypter) nonceFor(index uint64) []byte {
	n := c.nonce[:len(c.s.IV)]
	copy(n, c.s.IV)
	tail := n[len(n)-8:]
	binary.BigEndian.PutUint64(tail, binary.BigEndian.Uint64(tail)^index)
	return n
}

func (c *crypter) adFor(index uint64) []byte {
	ad := append(c.ad[:0], c.s.Head[:]...)
	if c.s.IndexAD {
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
func (c *crypter) open(dst, ct []byte, index uint64) ([]byte, error) {
	pt, err := c.aead.Open(dst, c.nonceFor(index), ct, c.adFor(index))
	if err != nil {
		return nil, ErrAuthentication
	}
	if len(pt) > 0 && &pt[0] != &dst[:1][0] {
		panic("chunk: AEAD engine did not open in place")
	}
	return pt, nil
}

func (c *crypter) seal(dst, pt []byte, index uint64) []byte {
	return c.aead.Seal(dst, c.nonceFor(index), pt, c.adFor(index))
}

// final is the tag after the last chunk: index is the number of chunks,
// total the number of plaintext octets.
func (c *crypter) final(dst []byte, index, total uint64) []byte {
	return c.aead.Seal(dst, c.nonceFor(index), nil, binary.BigEndian.AppendUint64(c.adFor(index), total))
}

func (c *crypter) checkFinal(tag []byte, index, total uint64) error {
	var scratch [0]byte
	if _, err := c.aead.Open(scratch[:0], c.nonceFor(index), tag, binary.BigEndian.AppendUint64(c.adFor(index), total)); err != nil {
		return ErrAuthentication
	}
	return nil
}

// Opener yields the authenticated plaintext of a chunk stream in runs.
type Opener interface {
	// Next returns the next run of plaintext, valid until the following
	// call. io.EOF comes only after the final tag has verified; any
	// integrity failure is ErrAuthentication. Errors are sticky.
	Next() ([]byte, error)
	// Close stops the workers, if any.
	Close()
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

// NewOpener returns the Opener for s over src, the chunks and final tag
// (the packet body after its fixed fields): a pool of threads workers for
// chunks of at least 64 KiB when threads > 1, else the calling goroutine.
//
// An engine that opens a chunk in pieces (OCB) is always run on the
// calling goroutine: it decrypts straight from the reader's buffer at
// about 10 GiB/s, faster than read(2) delivers a file, and the reader
// (iobuf.Ahead) already has the other core. Measured on 512 MiB of
// AES-256 OCB in 4 MiB chunks, on 2 cores: the pool took 1.3-1.7 times
// as long, its gathering copy into the slots costing more than the
// second core saves.
func NewOpener(src iobuf.Reader, s *Suite, threads int) (Opener, error) {
	cc, err := newCrypter(s)
	if err != nil {
		return nil, err
	}
	if cc.pieces != nil {
		return newPieceOpener(src, cc, s.ChunkSize), nil
	}
	if threads > 1 && s.ChunkSize >= minParallelChunk {
		return newParallelOpener(src, s, threads)
	}
	return &seqOpener{src: src, cc: cc, cs: s.ChunkSize, buf: make([]byte, max(s.ChunkSize, seqRun), max(s.ChunkSize, seqRun)+TagSize)}, nil
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
	cc           *crypter
	cs           int
	buf          []byte // a run of plaintext; cap leaves a tag's room
	index, total uint64
	done         bool
	err          error
}

func (o *seqOpener) Close() {}

func (o *seqOpener) Next() ([]byte, error) {
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
	full := o.cs + TagSize
	view, err := o.src.Peek(1)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	if len(view) >= full+TagSize {
		// Whole chunks in the body's buffer, each followed by at least
		// a tag's worth: none of them holds the final tag.
		n, pos := 0, 0
		for len(view)-pos >= full+TagSize && room-n >= o.cs {
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
		if tail, err = o.src.Peek(TagSize); err == nil {
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
	if m+len(tail) < TagSize {
		return 0, &packet.TruncatedError{Packet: "AEAD", Offset: -1, Want: "the final authentication tag"}
	}
	var final [TagSize]byte
	last := m + len(tail) - TagSize // bytes of the last chunk, with its tag
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

// writer seals chunks on the calling goroutine and writes them to dst,
// the packet's partial-length writer, which it closes after the final tag.
//
// Copies per byte: one when a Write brings whole chunks (sealed straight
// from the caller's slice into the chunk buffer), two otherwise (gathered
// into the chunk buffer, sealed in place); then dst's own.
type writer struct {
	dst          io.WriteCloser
	cc           *crypter
	cs           int
	buf          []byte // cs plaintext bytes + the tag
	n            int
	index, total uint64
	err          error
}

func (w *writer) flush() error {
	ct := w.cc.seal(w.buf[:0], w.buf[:w.n], w.index)
	return w.emit(ct)
}

func (w *writer) emit(ct []byte) error {
	w.index++
	w.total += uint64(len(ct) - TagSize)
	w.n = 0
	if _, err := w.dst.Write(ct); err != nil {
		w.err = err
		return err
	}
	return nil
}

// Write implements io.Writer.
func (w *writer) Write(p []byte) (int, error) {
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
func (w *writer) Close() error {
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

func closeAEAD(dst io.WriteCloser, cc *crypter, index, total uint64, errp *error) error {
	var tag [TagSize]byte
	if _, err := dst.Write(cc.final(tag[:0], index, total)); err != nil {
		*errp = err
		return err
	}
	*errp = io.ErrClosedPipe
	return dst.Close()
}

// NewWriter returns the chunk sealer for s over dst, the packet's
// partial-length writer, which Close closes after the final tag: a pool of
// threads workers for chunks of at least 64 KiB when threads > 1.
func NewWriter(dst io.WriteCloser, s *Suite, threads int) (io.WriteCloser, error) {
	if threads > 1 && s.ChunkSize >= minParallelChunk {
		return newParallelSealer(dst, s, threads)
	}
	cc, err := newCrypter(s)
	if err != nil {
		return nil, err
	}
	return &writer{dst: dst, cc: cc, cs: s.ChunkSize, buf: make([]byte, s.ChunkSize+TagSize)}, nil
}
