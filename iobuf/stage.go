package iobuf

import "sync"

// Stage is the output buffer of a stage that transforms its input (a
// decryption) and may have to keep its last Keep output bytes from the
// consumer until the input ends: SEIPD v1 plaintext ends in the 22-byte MDC
// packet, and which 22 bytes those are is known only at the end of the
// ciphertext. Like GnuPG's and go-crypto's MDC readers, the stage decrypts
// everything its source offers and holds the trailer back here, on the
// plaintext, instead of asking the stage below to reserve ciphertext (a
// reserving Peek through a partial-length body yields one usable byte per
// round after every segment boundary).
//
// The buffer is buf[r:a] ready for the consumer, buf[a:w] held back (never
// more than Keep bytes), buf[w:] free. The stage produces into Space,
// reports what it produced with Produce, and calls End when its input ends;
// the consumer reads Ready and Consumes. The only copy the helper makes is
// moving what is left (the held bytes, plus any unread ones) to the front
// of the buffer when it runs out of room: Keep bytes per buffer, when the
// consumer reads whole rounds. A lending stage (NewLendingStage) moves them
// to the front of its other buffer instead, so bytes it lent out stay put.
type Stage struct {
	buf     []byte
	r, a, w int
	keep    int
	ended   bool

	// A lending stage has two buffers: what is left moves to the front of
	// the other one, after the loans on it are back.
	lending bool
	bufs    [2][]byte
	loans   [2]sync.WaitGroup
	cur     int
}

// NewStage returns a Stage of size bytes (DefaultSize if size <= 0) that
// holds keep bytes back.
func NewStage(size, keep int) *Stage {
	if size <= 0 {
		size = DefaultSize
	}
	if keep < 0 || keep >= size {
		panic("iobuf: a stage must hold back less than its buffer")
	}
	return &Stage{buf: make([]byte, size), keep: keep}
}

// NewLendingStage is NewStage for a stage that lends released bytes to
// another goroutine to read in place (the MDC's SHA-1, hashing on a second
// core without copying): it keeps two buffers of size bytes and never
// writes over a buffer while a loan on it is out. The stage fills one
// buffer while the other is read.
func NewLendingStage(size, keep int) *Stage {
	s := NewStage(size, keep)
	s.lending = true
	s.bufs[0] = s.buf
	s.bufs[1] = make([]byte, len(s.buf))
	return s
}

// Lend marks p, released bytes of the current buffer, as read elsewhere
// until the returned function is called; Space waits for that before it
// writes over them. Only a lending stage lends.
func (s *Stage) Lend(p []byte) (release func()) {
	if !s.lending || len(p) == 0 || cap(p) > cap(s.buf) || &p[0] != &s.buf[:cap(s.buf)][cap(s.buf)-cap(p)] {
		panic("iobuf: Lend of bytes not in a lending stage's current buffer")
	}
	wg := &s.loans[s.cur]
	wg.Add(1)
	return wg.Done
}

// front moves buf[from:w] to the front of a buffer: this one, or for a
// lending stage the other one once its loans are back.
func (s *Stage) front(from int) {
	dst := s.buf
	if s.lending {
		o := 1 - s.cur
		s.loans[o].Wait()
		if len(s.bufs[o]) < len(s.buf) {
			s.bufs[o] = make([]byte, len(s.buf))
		}
		dst, s.cur = s.bufs[o], o
	}
	k := copy(dst, s.buf[from:s.w])
	s.buf = dst
	s.r -= from
	s.a -= from
	s.w = k
}

// Ready returns the bytes released to the consumer.
func (s *Stage) Ready() []byte { return s.buf[s.r:s.a] }

// Consume advances past n ready bytes.
func (s *Stage) Consume(n int) {
	if n < 0 || n > s.a-s.r {
		panic("iobuf: Consume beyond the ready bytes")
	}
	s.r += n
}

// Ended reports whether End was called.
func (s *Stage) Ended() bool { return s.ended }

// Space returns the free end of the buffer to produce into, first making
// room for at least n ready bytes (n <= MaxPeek): when the consumer has
// read everything ready, the held bytes move to the front; when the buffer
// cannot otherwise reach n ready bytes, the unread ones move too, and it
// grows if n and the held bytes exceed it. It returns an empty slice when
// the buffer is full with n bytes ready: the stage has filled a round.
func (s *Stage) Space(n int) []byte {
	if s.ended {
		return nil
	}
	if s.r == s.a && s.a > 0 {
		s.front(s.a)
	} else if len(s.buf)-s.r < n+s.keep && s.r > 0 {
		s.front(s.r)
	}
	if len(s.buf) < n+s.keep {
		nb := make([]byte, max(n+s.keep, 2*len(s.buf)))
		if s.lending {
			s.loans[0].Wait()
			s.loans[1].Wait()
			s.bufs[s.cur], s.bufs[1-s.cur] = nb, make([]byte, len(nb))
		}
		copy(nb, s.buf[:s.w])
		s.buf = nb
	}
	return s.buf[s.w:]
}

// Produce marks the first n bytes of the last Space as produced and
// returns the bytes this released to the consumer (for a stage that hashes
// what it releases): everything but the last Keep bytes produced so far.
func (s *Stage) Produce(n int) []byte {
	if n < 0 || n > len(s.buf)-s.w {
		panic("iobuf: Produce beyond the space")
	}
	s.w += n
	if na := s.w - s.keep; na > s.a {
		rel := s.buf[s.a:na]
		s.a = na
		return rel
	}
	return nil
}

// End marks the end of the input and returns the held-back bytes, the
// trailer: Keep bytes, or fewer if the stage produced fewer in all. It is
// valid until the next call to Space; nothing is produced after End.
func (s *Stage) End() []byte {
	t := s.buf[s.a:s.w]
	s.w = s.a
	s.ended = true
	return t
}
