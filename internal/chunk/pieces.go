package chunk

import (
	"errors"
	"io"
	"sync"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// Pieces is an AEAD engine that seals and opens one chunk in pieces as
// its bytes arrive (package ocb's OCB does): a chunk cut into many
// partial-length segments, or read from a file a buffer at a time, is
// then opened straight from the reader's buffer into the plaintext
// buffer, with no gathering copy. The state is the instance's, one chunk
// at a time.
type Pieces interface {
	// PieceReset starts a chunk.
	PieceReset(nonce, ad []byte)
	// PieceSeal and PieceOpen take the chunk's next whole blocks (a
	// multiple of 16 bytes), dst as long as src, equal or apart.
	PieceSeal(dst, src []byte)
	PieceOpen(dst, src []byte)
	// PieceSealEnd takes the chunk's last bytes, any length, and writes
	// its 16-byte tag; PieceOpenEnd checks the tag.
	PieceSealEnd(dst, src, tag []byte)
	PieceOpenEnd(dst, src, tag []byte) error
}

// pieceAlign is the run of ciphertext handed to the engine at once: the
// engines' widest loops take sixteen blocks at a time from a
// sixteen-block boundary of the chunk, so a segment's last bytes short of
// such a run wait in a side buffer for the next segment's first bytes
// (a copy of at most 255 bytes per segment), and every run goes through
// the wide loop.
const pieceAlign = 256

// pieceOpener opens chunks on the calling goroutine, piece by piece,
// from whatever run the body shows (a partial-length segment, a read's
// worth of a definite-length body) straight into its plaintext buffer.
//
// Copies per byte: one, the decryption from the body's buffer into the
// plaintext buffer, whatever the segments' sizes; beside it a few bytes
// per segment: a run cut by a segment boundary is completed in a
// 256-byte side buffer, and the last 32 bytes seen are held back in
// another, since the stream's last 32 bytes are the last chunk's tag and
// the final tag, not ciphertext, and the body's end is known only when it
// comes.
type pieceOpener struct {
	src iobuf.Reader
	cc  *crypter
	p   Pieces
	cs  int
	buf []byte // plaintext: verified chunks, then the chunk being opened

	// Two plaintext buffers: the run handed out may be lent (to a writer
	// on another goroutine) while the next is opened into the other.
	bufs  [2][]byte
	cur   int
	loans [2]sync.WaitGroup

	// lag holds the last bytes taken from src that may yet turn out to
	// be the two tags at the end: a byte is fed to the chunk only once
	// 2*TagSize bytes are known to follow it.
	lag  [2 * TagSize]byte
	nlag int

	// The chunk being opened: its plaintext starts at buf[base], fed of
	// its ciphertext bytes have been taken, the last npart of them
	// (a block cut short) wait in part, and ntag bytes of its tag in tag.
	base, fed    int
	part         [pieceAlign]byte
	npart        int
	tag          [TagSize]byte
	ntag         int
	begun        bool
	index, total uint64
	done         bool
	err          error
}

func newPieceOpener(src iobuf.Reader, cc *crypter, cs int) *pieceOpener {
	n := max(cs, seqRun)
	o := &pieceOpener{src: src, cc: cc, p: cc.pieces, cs: cs, buf: make([]byte, n, n+TagSize)}
	o.bufs[0] = o.buf
	return o
}

// Lend keeps the run Next returned as it is until release is called:
// the next run is opened into the other buffer, which is made on the
// first loan (a message read in place costs one).
func (o *pieceOpener) Lend() (release func()) {
	if o.bufs[1] == nil {
		o.bufs[1] = make([]byte, len(o.buf), cap(o.buf))
	}
	wg := &o.loans[o.cur]
	wg.Add(1)
	return wg.Done
}

// nextBuffer moves to the buffer not lent, waiting for its loans.
func (o *pieceOpener) nextBuffer() {
	if o.bufs[1] == nil {
		// Never lent: keep the one buffer.
		o.loans[0].Wait()
		return
	}
	o.cur ^= 1
	o.loans[o.cur].Wait()
	o.buf = o.bufs[o.cur]
}

func (o *pieceOpener) Close() {}

// Next opens chunks until the buffer has no room for another one or the
// stream ends, and returns their plaintext.
func (o *pieceOpener) Next() ([]byte, error) {
	o.nextBuffer()
	o.base = 0
	for o.err == nil && !o.done && o.base+o.cs <= len(o.buf) {
		o.err = o.step()
	}
	if o.base > 0 {
		return o.buf[:o.base], nil // an error is returned next time
	}
	if o.err != nil {
		return nil, o.err
	}
	if o.done {
		return nil, io.EOF
	}
	return nil, io.ErrNoProgress
}

// step takes one run from the body: it feeds what is known to be chunk
// bytes, up to the end of the current chunk, and keeps the last 32 bytes
// back.
func (o *pieceOpener) step() error {
	view, err := o.src.Peek(1)
	if len(view) == 0 {
		if errors.Is(err, io.EOF) {
			return o.end()
		}
		if err == nil {
			err = io.ErrNoProgress
		}
		return err
	}
	sure := o.nlag + len(view) - len(o.lag) // bytes known not to be the stream's last 32
	if sure <= 0 {
		o.nlag += copy(o.lag[o.nlag:], view)
		o.src.Consume(len(view))
		return nil
	}
	k := min(sure, o.cs-o.fed+TagSize-o.ntag) // up to the end of this chunk
	fromLag := min(k, o.nlag)
	if fromLag > 0 {
		if err := o.feed(o.lag[:fromLag]); err != nil {
			return err
		}
		o.nlag = copy(o.lag[:], o.lag[fromLag:o.nlag])
	}
	fromView := k - fromLag
	if fromView > 0 {
		if err := o.feed(view[:fromView]); err != nil {
			return err
		}
	}
	taken := fromView
	if k == sure {
		// The rest of view is the new tail: at most the lag's room.
		taken += copy(o.lag[o.nlag:], view[fromView:])
		o.nlag = len(o.lag)
	}
	o.src.Consume(taken)
	return nil
}

// feed takes bytes of the current chunk: ciphertext, then the tag; b
// ends at or before the end of the chunk's tag.
func (o *pieceOpener) feed(b []byte) error {
	for len(b) > 0 {
		if o.fed < o.cs {
			m := min(len(b), o.cs-o.fed)
			o.open(b[:m])
			b = b[m:]
			continue
		}
		t := copy(o.tag[o.ntag:], b)
		o.ntag += t
		b = b[t:]
		if o.ntag == TagSize {
			if err := o.finish(o.tag[:]); err != nil {
				return err
			}
		}
	}
	return nil
}

// open decrypts ciphertext of the current chunk to its place in buf.
func (o *pieceOpener) open(ct []byte) {
	if !o.begun {
		o.p.PieceReset(o.cc.nonceFor(o.index), o.cc.adFor(o.index))
		o.begun = true
	}
	at := o.base + o.fed // where the plaintext of ct[0] goes
	o.fed += len(ct)
	if o.npart > 0 {
		t := copy(o.part[o.npart:], ct)
		o.npart += t
		ct = ct[t:]
		if o.npart < len(o.part) {
			return
		}
		start := at - (o.npart - t)
		o.p.PieceOpen(o.buf[start:start+pieceAlign], o.part[:])
		o.npart = 0
		at += t
	}
	whole := len(ct) &^ (pieceAlign - 1)
	if whole > 0 {
		o.p.PieceOpen(o.buf[at:at+whole], ct[:whole])
	}
	o.npart = copy(o.part[:], ct[whole:])
}

// finish checks the current chunk's tag: the chunk's plaintext joins the
// verified run, or is wiped.
func (o *pieceOpener) finish(tag []byte) error {
	if !o.begun {
		o.p.PieceReset(o.cc.nonceFor(o.index), o.cc.adFor(o.index))
	}
	end := o.base + o.fed
	if err := o.p.PieceOpenEnd(o.buf[end-o.npart:end], o.part[:o.npart], tag); err != nil {
		clear(o.buf[o.base:end])
		return ErrAuthentication
	}
	o.index++
	o.total += uint64(o.fed)
	o.base = end
	o.fed, o.npart, o.ntag, o.begun = 0, 0, 0, false
	return nil
}

// end is the body's end: the lag holds its last bytes, the last chunk's
// tag and the final tag, or the final tag alone when the last chunk was
// full and is done. The last chunk is released only with the final tag:
// a stream whose length does not verify releases nothing more.
func (o *pieceOpener) end() error {
	last := o.base
	switch {
	case o.nlag == TagSize && o.fed == 0 && o.ntag == 0:
	case o.nlag == 2*TagSize && o.ntag == 0:
		if err := o.finish(o.lag[:TagSize]); err != nil {
			return err
		}
	case o.nlag < TagSize && o.fed == 0:
		return &packet.TruncatedError{Packet: "AEAD", Offset: -1, Want: "the final authentication tag"}
	default:
		return ErrAuthentication // a chunk cut short of its tag
	}
	if err := o.cc.checkFinal(o.lag[o.nlag-TagSize:o.nlag], o.index, o.total); err != nil {
		clear(o.buf[last:o.base])
		o.base = last
		return err
	}
	o.done = true
	return nil
}
