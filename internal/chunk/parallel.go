package chunk

import (
	"errors"
	"io"
	"sync/atomic"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// The AEAD chunks of a packet are independent once their index is known,
// so they are opened and sealed on a pool of workers, each with its own
// AEAD instance. The calling goroutine keeps the order: it reads (or
// gathers) chunks into a ring of slots, hands each slot to the pool, and
// takes the slots back in ring order. Memory is the ring: slotsPerWorker
// slots of up to slotBytes (at least one chunk) per worker.

const (
	slotsPerWorker = 2
	slotBytes      = 256 << 10
)

func slotChunks(cs int) int { return max(1, slotBytes/cs) }

// openSlot holds whole chunks of ciphertext, each followed by its tag,
// end to end; a worker opens each in place.
type openSlot struct {
	buf   []byte
	lens  []int // each chunk's length with its tag
	n     int   // chunks in use
	first uint64

	hasFinal   bool // the final tag follows this slot's chunks
	final      [TagSize]byte
	finalIndex uint64
	finalTotal uint64

	err  error
	done chan struct{}
}

func (s *openSlot) work(cc *crypter, cs int) {
	s.err = nil
	for i := 0; i < s.n; i++ {
		ct := s.buf[i*(cs+TagSize):][:s.lens[i]]
		if _, err := cc.open(ct[:0], ct, s.first+uint64(i)); err != nil {
			s.err = err
			return
		}
	}
	if s.hasFinal {
		s.err = cc.checkFinal(s.final[:], s.finalIndex, s.finalTotal)
	}
}

type parallelOpener struct {
	src   iobuf.Reader
	cs    int
	batch int
	slots []*openSlot
	head  int // the oldest slot handed to the pool
	busy  int // slots handed to the pool and not yet released
	jobs  chan *openSlot
	stop  atomic.Bool

	cur      *openSlot // the slot whose plaintext is being handed out
	curChunk int

	index, total uint64 // of the chunks read so far
	ended        bool   // the final tag has been read
	readErr      error  // reported after the slots before it
	err          error
	closed       bool
}

func newParallelOpener(src iobuf.Reader, s *Suite, threads int) (*parallelOpener, error) {
	p := &parallelOpener{src: src, cs: s.ChunkSize, batch: slotChunks(s.ChunkSize)}
	p.slots = make([]*openSlot, slotsPerWorker*threads)
	for i := range p.slots {
		// Buffers come on first use: a short message touches one slot.
		p.slots[i] = &openSlot{lens: make([]int, p.batch), done: make(chan struct{}, 1)}
	}
	jobs, cs, stop := make(chan *openSlot, len(p.slots)), p.cs, &p.stop
	p.jobs = jobs
	for range threads {
		cc, err := newCrypter(s)
		if err != nil {
			p.Close()
			return nil, err
		}
		go func() {
			for slot := range jobs {
				if !stop.Load() {
					slot.work(cc, cs)
				}
				slot.done <- struct{}{}
			}
		}()
	}
	return p, nil
}

func (p *parallelOpener) Close() {
	if !p.closed {
		p.closed = true
		p.stop.Store(true)
		close(p.jobs)
	}
}

func (p *parallelOpener) Next() ([]byte, error) {
	for {
		if p.cur != nil {
			for p.curChunk < p.cur.n {
				i := p.curChunk
				p.curChunk++
				if l := p.cur.lens[i] - TagSize; l > 0 {
					return p.cur.buf[i*(p.cs+TagSize):][:l], nil
				}
			}
			p.cur = nil
			p.head = (p.head + 1) % len(p.slots)
			p.busy--
		}
		if p.err != nil {
			return nil, p.err
		}
		p.dispatch()
		if p.busy == 0 {
			p.err = p.readErr
			if p.err == nil {
				p.err = io.EOF // p.ended: the final tag was in the last slot and verified
			}
			return nil, p.err
		}
		s := p.slots[p.head]
		<-s.done
		if s.err != nil {
			p.err = s.err
			return nil, p.err
		}
		p.cur, p.curChunk = s, 0
	}
}

// dispatch fills the free slots from the body and hands them to the pool.
func (p *parallelOpener) dispatch() {
	for p.busy < len(p.slots) && !p.ended && p.readErr == nil && !p.closed {
		s := p.slots[(p.head+p.busy)%len(p.slots)]
		err := p.fill(s)
		if err != nil {
			p.readErr = err
		}
		if s.n == 0 && !s.hasFinal {
			break
		}
		p.busy++
		p.jobs <- s
	}
}

// fill copies the next chunks of the body into s. A chunk is the last one
// when at most a tag follows it.
func (p *parallelOpener) fill(s *openSlot) error {
	s.n, s.hasFinal, s.first = 0, false, p.index
	full := p.cs + TagSize
	if s.buf == nil {
		s.buf = make([]byte, p.batch*full)
	}
	for s.n < p.batch {
		dst := s.buf[s.n*full:][:full]
		m, err := io.ReadFull(p.src, dst)
		switch {
		case err == nil:
			more, perr := p.src.Peek(TagSize + 1)
			if perr == nil {
				p.add(s, full)
				continue
			}
			if !errors.Is(perr, io.EOF) {
				return perr
			}
			// The body ends within a tag's length: the final tag is
			// the last 16 bytes of dst || more.
			r := TagSize - len(more)
			p.add(s, full-r)
			copy(s.final[:], dst[full-r:])
			copy(s.final[r:], more)
			p.src.Consume(len(more))
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			if m < TagSize {
				return &packet.TruncatedError{Packet: "AEAD", Offset: -1, Want: "the final authentication tag"}
			}
			if m > TagSize {
				p.add(s, m-TagSize) // shorter than a tag: fails in the worker
			}
			copy(s.final[:], dst[m-TagSize:m])
		default:
			return err
		}
		s.hasFinal, s.finalIndex, s.finalTotal = true, p.index, p.total
		p.ended = true
		return nil
	}
	return nil
}

func (p *parallelOpener) add(s *openSlot, ctLen int) {
	s.lens[s.n] = ctLen
	s.n++
	p.index++
	p.total += uint64(max(0, ctLen-TagSize))
}

// sealSlot gathers plaintext for up to batch chunks, each at the start of
// a chunk-plus-tag stride, so a worker seals each in place and the slot
// then holds the packet's bytes end to end.
type sealSlot struct {
	buf   []byte
	n     int // plaintext bytes gathered
	first uint64
	done  chan struct{}
}

func (s *sealSlot) chunks(cs int) int { return (s.n + cs - 1) / cs }

func (s *sealSlot) work(cc *crypter, cs int) {
	for i, left := 0, s.n; left > 0; i++ {
		l := min(cs, left)
		pt := s.buf[i*(cs+TagSize):][:l]
		cc.seal(pt[:0], pt, s.first+uint64(i))
		left -= l
	}
}

type parallelSealer struct {
	dst   io.WriteCloser
	cc    *crypter // for the final tag
	cs    int
	batch int
	slots []*sealSlot
	head  int
	busy  int
	cur   *sealSlot
	jobs  chan *sealSlot

	index, total uint64
	err          error
}

func newParallelSealer(dst io.WriteCloser, s *Suite, threads int) (*parallelSealer, error) {
	w := &parallelSealer{dst: dst, cs: s.ChunkSize, batch: slotChunks(s.ChunkSize)}
	var err error
	if w.cc, err = newCrypter(s); err != nil {
		return nil, err
	}
	w.slots = make([]*sealSlot, slotsPerWorker*threads)
	for i := range w.slots {
		w.slots[i] = &sealSlot{done: make(chan struct{}, 1)} // buffers on first use
	}
	jobs, cs := make(chan *sealSlot, len(w.slots)), w.cs
	w.jobs = jobs
	for range threads {
		cc, err := newCrypter(s)
		if err != nil {
			close(jobs)
			return nil, err
		}
		go func() {
			for slot := range jobs {
				slot.work(cc, cs)
				slot.done <- struct{}{}
			}
		}()
	}
	return w, nil
}

// Write implements io.Writer. Copies per byte: the gather into a slot,
// then dst's own; the sealing is in place.
func (w *parallelSealer) Write(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		if w.err != nil {
			return total, w.err
		}
		if w.cur == nil {
			if w.busy == len(w.slots) {
				if err := w.writeHead(); err != nil {
					return total, err
				}
			}
			w.cur = w.slots[(w.head+w.busy)%len(w.slots)]
			w.cur.n = 0
			if w.cur.buf == nil {
				w.cur.buf = make([]byte, w.batch*(w.cs+TagSize))
			}
		}
		s := w.cur
		i, off := s.n/w.cs, s.n%w.cs
		start := i * (w.cs + TagSize)
		m := copy(s.buf[start+off:start+w.cs], p)
		s.n += m
		total += m
		p = p[m:]
		if s.n == w.batch*w.cs {
			w.submit()
		}
	}
	return total, nil
}

func (w *parallelSealer) submit() {
	s := w.cur
	w.cur = nil
	s.first = w.index
	w.index += uint64(s.chunks(w.cs))
	w.total += uint64(s.n)
	w.busy++
	w.jobs <- s
}

// writeHead waits for the oldest slot and writes it out.
func (w *parallelSealer) writeHead() error {
	s := w.slots[w.head]
	<-s.done
	w.head = (w.head + 1) % len(w.slots)
	w.busy--
	if _, err := w.dst.Write(s.buf[:s.n+s.chunks(w.cs)*TagSize]); err != nil {
		w.err = err
		return err
	}
	return nil
}

// Close seals what is gathered, writes every slot in order, the final tag,
// and closes dst.
func (w *parallelSealer) Close() error {
	defer w.shutdown()
	if w.err != nil {
		return w.err
	}
	if w.cur != nil && w.cur.n > 0 {
		w.submit()
	}
	for w.busy > 0 {
		if err := w.writeHead(); err != nil {
			return err
		}
	}
	return closeAEAD(w.dst, w.cc, w.index, w.total, &w.err)
}

func (w *parallelSealer) shutdown() {
	if w.jobs != nil {
		for w.busy > 0 { // let the workers finish with the slots first
			<-w.slots[w.head].done
			w.head = (w.head + 1) % len(w.slots)
			w.busy--
		}
		close(w.jobs)
		w.jobs = nil
	}
}
