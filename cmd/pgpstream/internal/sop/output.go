package sop

import "io"

// holdLimit is how much plaintext is held back from standard output
// until the message has authenticated: a SEIPD v1 message, whose MDC
// comes last, that fails writes nothing at all if its plaintext is no
// larger, as pgpstream's --decrypt does. Beyond it the plaintext flows
// and a failure is the exit code alone.
const holdLimit = 8 << 20

// heldOutput is standard output behind that hold-back.
type heldOutput struct {
	w        io.Writer
	buf      []byte
	released bool
	err      error // w's write error
	refused  error // set: every write fails with it
}

func newHeldOutput(w io.Writer) *heldOutput { return &heldOutput{w: w} }

func (h *heldOutput) Write(p []byte) (int, error) {
	switch {
	case h.refused != nil:
		return 0, h.refused
	case h.err != nil:
		return 0, h.err
	case !h.released && len(h.buf)+len(p) <= holdLimit:
		h.buf = append(h.buf, p...)
		return len(p), nil
	case !h.released:
		h.released = true
		if err := h.write(h.buf); err != nil {
			return 0, err
		}
		h.buf = nil
	}
	if err := h.write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (h *heldOutput) write(p []byte) error {
	if _, err := h.w.Write(p); err != nil {
		h.err = err
		return err
	}
	return nil
}

// refuse makes every later write fail with err, and drops what is held.
func (h *heldOutput) refuse(err error) {
	h.refused = err
	h.buf = nil
}

// commit writes what is held: the message authenticated.
func (h *heldOutput) commit() error {
	if h.refused != nil {
		return h.refused
	}
	if !h.released {
		h.released = true
		return h.write(h.buf)
	}
	return h.err
}
