package chunk

import (
	"errors"
)

// RunSink takes a packet body in runs: package packet's RunWriter frames
// each run as partial body lengths, and Close the last as a definite one.
// frame[off:] is the run; frame[:off] is room for its length octets.
type RunSink interface {
	WriteRun(frame []byte, off int) error
	Close(frame []byte, off int) error
}

// headroom is the room kept in front of the buffer for a run's tag and
// length octets.
const headroom = 8

// Sealer seals the chunks of one packet in place, in one buffer that the
// plaintext is read into, and hands the sealed bytes on in runs: read(2)
// writes the plaintext where it is encrypted, and the ciphertext goes to
// write(2) from the same bytes, so the buffer stays in the core's cache.
//
// Copies per byte: the kernel's read into the buffer, the encryption in
// place, the kernel's write from it; beside them a few bytes per run (the
// block cut by the end of a run is completed before the run goes out, and
// its rest moved to the front of the buffer with the next chunk's first
// bytes).
//
// The caller fills the buffer: Buffer returns where the next plaintext
// goes, Commit seals what was written there. A region Buffer returned is
// not sealed before it is committed, so the caller may still change its
// bytes (a literal packet's length octets, known once the region is
// full).
type Sealer struct {
	cc  *crypter
	p   Pieces
	cs  int
	out RunSink

	mem     []byte // headroom, then buf
	buf     []byte
	enc     int // buf[:enc] is sealed (or the packet's fixed fields)
	filled  int // buf[enc:filled] is plaintext of the current chunk, not yet sealed
	flushAt int // a run goes out when the buffer holds this much
	emitted bool

	inChunk      int // plaintext bytes of the current chunk so far
	begun        bool
	index, total uint64
	err          error
}

// SealRun is the size of the runs a Sealer hands on once the stream is
// going: 256 KiB, in cache with room to spare (2 MiB of L2 per core
// here), and large enough that the per-run costs (a writev(2), the block
// carried over) vanish. Measured on 512 MiB AES-256 OCB from a file to
// /dev/null: 128 KiB, 256 KiB and 1 MiB runs within noise of each other.
const SealRun = 256 << 10

// ErrNoPieces is returned by NewSealer for an engine that cannot seal a
// chunk in pieces: the caller uses NewWriter.
var ErrNoPieces = errors.New("chunk: the AEAD engine does not seal in pieces")

// NewSealer returns a Sealer for s over out; prefix, the packet's fixed
// fields, leads the first run.
func NewSealer(out RunSink, s *Suite, prefix []byte) (*Sealer, error) {
	cc, err := newCrypter(s)
	if err != nil {
		return nil, err
	}
	if cc.pieces == nil {
		return nil, ErrNoPieces
	}
	w := &Sealer{cc: cc, p: cc.pieces, cs: s.ChunkSize, out: out, flushAt: SealRun}
	// Room past a run for the block that completes it and for tags, and
	// for a region Reserve lends.
	w.mem = make([]byte, headroom+SealRun+MaxReserve+4*TagSize)
	w.buf = w.mem[headroom:]
	w.enc = copy(w.buf, prefix)
	w.filled = w.enc
	return w, nil
}

// Buffer returns where the next plaintext goes: at least one byte, up
// to the end of the current chunk or of the run. It may first hand the
// sealed run on.
func (w *Sealer) Buffer() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.filled >= w.flushAt {
		if err := w.flush(); err != nil {
			return nil, err
		}
	}
	// Fill up to the run's end and then to the end of the block that
	// straddles it, so the run goes out sealed to its last byte.
	target := w.flushAt - w.filled
	if r := (w.inChunk + target) % 16; r != 0 {
		target += 16 - r
	}
	room := min(target, w.cs-w.inChunk)
	return w.buf[w.filled : w.filled+room], nil
}

// MaxReserve is the most Reserve lends at once.
const MaxReserve = 64<<10 + 16

// Reserve returns at least n bytes (n at most MaxReserve) where the next
// plaintext goes, for a caller that must see the whole of a region before
// it commits it (a literal packet's partial segment, whose length octet
// leads it). The region may run past the end of the current chunk: Commit
// then moves the bytes past it along to make room for the chunk's tag (a
// copy of at most the region, once per chunk). When the buffer lacks the
// room, everything sealed goes out first, in a run of whatever length it
// has.
func (w *Sealer) Reserve(n int) ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if n > MaxReserve {
		panic("chunk: Reserve beyond MaxReserve")
	}
	if w.reserveRoom() < n {
		w.sealTo(16)
		if err := w.emit(w.enc); err != nil {
			return nil, err
		}
	}
	return w.buf[w.filled : w.filled+w.reserveRoom()], nil
}

// reserveRoom is how much plaintext fits after buf[filled] with the tags
// of the chunks it would end, and the two tags Close may write.
func (w *Sealer) reserveRoom() int {
	avail := len(w.buf) - w.filled - 2*TagSize
	room := avail
	for range 3 {
		room = avail - TagSize*((w.inChunk+room)/w.cs)
	}
	return max(room, 0)
}

// Commit seals the first n bytes of the last Buffer or Reserve, and ends
// each chunk they fill.
func (w *Sealer) Commit(n int) error {
	if w.err != nil {
		return w.err
	}
	if n < 0 || w.filled+n+TagSize*((w.inChunk+n)/w.cs) > len(w.buf)-2*TagSize {
		panic("chunk: Commit beyond the lent buffer")
	}
	for n > 0 {
		k := min(n, w.cs-w.inChunk)
		if n > k {
			// The region runs past the chunk's end: its tag goes
			// between, so the rest moves along.
			copy(w.buf[w.filled+k+TagSize:], w.buf[w.filled+k:w.filled+n])
		}
		w.begin()
		w.filled += k
		w.inChunk += k
		n -= k
		if w.inChunk == w.cs {
			w.endChunk()
			continue
		}
		// Seal up to the last sixteen-block step of the chunk; the rest
		// waits for the next bytes or the end of the run.
		w.sealTo(pieceAlign)
	}
	return nil
}

// Write seals p into the buffer, out of place: the encryption is the
// copy, so a caller whose plaintext sits in a buffer of its own (read
// ahead on another core) costs no copy more than reading in place does.
// Only the bytes short of a block at either end of p are copied in as
// plaintext and sealed there.
func (w *Sealer) Write(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		buf, err := w.Buffer()
		if err != nil {
			return total, err
		}
		k := min(len(p), len(buf))
		w.begin()
		if r := w.inChunk % 16; r != 0 || w.filled > w.enc {
			// Complete the block the plaintext waiting in the buffer
			// ends in, and seal it there.
			t := min(k, (16-r)%16)
			copy(buf, p[:t])
			w.filled += t
			w.inChunk += t
			p, buf, k, total = p[t:], buf[t:], k-t, total+t
			if w.inChunk == w.cs {
				w.endChunk()
				continue
			}
			if w.inChunk%16 != 0 {
				continue // p ran out
			}
			w.sealTo(16)
		}
		whole := k &^ 15
		if whole > 0 {
			w.p.PieceSeal(buf[:whole], p[:whole])
			w.filled += whole
			w.enc += whole
			w.inChunk += whole
		}
		copy(buf[whole:k], p[whole:k]) // waits for the block's rest
		w.filled += k - whole
		w.inChunk += k - whole
		p, total = p[k:], total+k
		if w.inChunk == w.cs {
			w.endChunk()
		}
	}
	return total, nil
}

func (w *Sealer) begin() {
	if !w.begun {
		w.p.PieceReset(w.cc.nonceFor(w.index), w.cc.adFor(w.index))
		w.begun = true
	}
}

// sealTo seals the pending plaintext up to the last multiple of step
// bytes of the chunk.
func (w *Sealer) sealTo(step int) {
	start := w.inChunk - (w.filled - w.enc) // the chunk offset of buf[enc]
	k := w.inChunk&^(step-1) - start
	if k > 0 {
		w.p.PieceSeal(w.buf[w.enc:w.enc+k], w.buf[w.enc:w.enc+k])
		w.enc += k
	}
}

// endChunk seals the rest of the current chunk and writes its tag after
// it.
func (w *Sealer) endChunk() {
	w.begin()
	w.p.PieceSealEnd(w.buf[w.enc:w.filled], w.buf[w.enc:w.filled], w.buf[w.filled:w.filled+TagSize])
	w.filled += TagSize
	w.enc = w.filled
	w.index++
	w.total += uint64(w.inChunk)
	w.inChunk, w.begun = 0, false
}

// flush hands on the sealed bytes: a run of exactly flushAt bytes when
// the buffer is that full, else all that is sealed. What follows them
// moves to the front.
func (w *Sealer) flush() error {
	w.sealTo(16)
	return w.emit(min(w.enc, w.flushAt))
}

// emit hands on buf[:n], sealed, and moves what follows to the front.
func (w *Sealer) emit(n int) error {
	if !w.emitted && n < minFirstRun {
		return nil // RFC 9580's first partial length is at least 512 bytes
	}
	if err := w.out.WriteRun(w.mem[:headroom+n], headroom); err != nil {
		w.err = err
		return err
	}
	w.emitted = true
	rest := copy(w.buf, w.buf[n:w.filled])
	w.enc -= n
	w.filled = rest
	return nil
}

// minFirstRun is RFC 9580's floor for the first partial length.
const minFirstRun = 512

// Flush hands on what is sealed now (a reader waits for it, or the
// stream pauses): a run of any length, at least 512 bytes for the first.
func (w *Sealer) Flush() error {
	if w.err != nil {
		return w.err
	}
	return w.flush()
}

// Close seals the last chunk, writes the final tag and hands the rest on
// as the packet's last segment.
func (w *Sealer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.filled >= w.flushAt || len(w.buf)-w.filled < 2*TagSize {
		if err := w.flush(); err != nil {
			return err
		}
	}
	if w.inChunk > 0 {
		w.endChunk()
	}
	w.cc.final(w.buf[w.filled:w.filled], w.index, w.total)
	w.filled += TagSize
	err := w.out.Close(w.mem[:headroom+w.filled], headroom)
	w.err = errClosed
	return err
}

var errClosed = errors.New("chunk: write after Close")
