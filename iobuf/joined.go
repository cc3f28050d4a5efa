package iobuf

// RunSource is a stream that a stage holds in runs, one at a time: a
// packet body's segments, the buffers a read-ahead goroutine filled, the
// plaintext of a chunk that verified. Joined turns it into a Reader.
type RunSource interface {
	// Run returns the unconsumed bytes of the current run, first moving
	// to the next run when this one is used up. With want 0 it moves only
	// to a run already at hand, else returns nothing and no error; with
	// want > 0 it waits for at least one byte, and may have the stage
	// below it gather up to want of the run contiguously when that costs
	// no copy here. At the end of the stream it returns no bytes and the
	// error that ended it (io.EOF at a clean end).
	Run(want int) ([]byte, error)
	// Advance consumes n bytes of the current run.
	Advance(n int)
}

// Joined is the Reader over a RunSource: a Peek inside the current run
// returns the run itself, in place; a Peek of more than the run has (a
// header or a tag across a boundary) joins the bytes it needs in a side
// buffer. The runs it covers whole move into the side buffer; the run it
// ends in lends a copy of its first bytes, left unconsumed there, so once
// the consumer is past the joined bytes that run is read in place again.
//
// Copies per byte: none inside a run; a Peek of n bytes across runs
// copies at most n.
type Joined struct {
	src RunSource
	// join[:old] are bytes of finished runs, already consumed from src;
	// join[old:] copies the current run's first bytes, not consumed.
	join   []byte
	old    int
	joined bool // the last Peek returned the side buffer
}

// NewJoined returns the Reader over src.
func NewJoined(src RunSource) *Joined { return &Joined{src: src} }

// Peek implements Reader.
func (j *Joined) Peek(n int) ([]byte, error) {
	if n > MaxPeek {
		return nil, ErrPeekTooLarge
	}
	j.joined = true
	if j.old > 0 {
		if j.old >= n {
			return j.join[:j.old], nil
		}
		return j.joinPeek(n)
	}
	run, err := j.src.Run(n)
	j.joined = len(run) < n
	switch {
	case len(run) == 0 && err != nil:
		return nil, err
	case len(run) >= n:
		return run, nil
	}
	return j.joinPeek(n)
}

func (j *Joined) joinPeek(n int) ([]byte, error) {
	j.join = j.join[:j.old]
	for {
		need := n - len(j.join)
		run, err := j.src.Run(need)
		if len(run) >= need {
			j.join = append(j.join, run[:need]...)
			return j.join, nil
		}
		if len(run) == 0 {
			return j.join, err
		}
		j.join = append(j.join, run...)
		j.src.Advance(len(run))
		j.old = len(j.join)
	}
}

// Consume implements Reader.
func (j *Joined) Consume(n int) {
	if n < 0 {
		panic("iobuf: Consume beyond the peeked data")
	}
	if j.old > 0 {
		if n <= j.old {
			j.join = append(j.join[:0], j.join[n:j.old]...)
			j.old -= n
			return
		}
		n -= j.old
		j.join, j.old = j.join[:0], 0
	}
	j.src.Advance(n)
}

// Lend implements Lender when the source does: the bytes of the last
// Peek are its run's, unless they were joined.
func (j *Joined) Lend() func() {
	l, ok := j.src.(Lender)
	if !ok || j.joined {
		return nil
	}
	return l.Lend()
}

// Pending reports whether joined bytes are waiting in the side buffer
// (a stage with a faster path for reads inside a run checks it first).
func (j *Joined) Pending() bool { return j.old > 0 }

// Read implements io.Reader.
func (j *Joined) Read(p []byte) (int, error) { return ReadVia(j, p) }
