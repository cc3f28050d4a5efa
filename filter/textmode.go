package filter

import (
	"bytes"
	"io"
)

// textWriter turns the CR LF line endings of text-mode literal data ('t',
// 'u': RFC 9580 §5.9 stores text with CR LF) into the local LF, as GnuPG
// does on output. It scans with bytes.IndexByte and writes the runs
// between CRs whole; a CR at the end of one Write waits to see whether the
// next begins with LF.
type textWriter struct {
	dst     io.Writer
	pending bool // the last byte written to us was a CR not yet passed on
}

func (t *textWriter) Write(p []byte) (int, error) {
	n := len(p)
	if t.pending && len(p) > 0 {
		t.pending = false
		if p[0] != '\n' {
			if _, err := t.dst.Write([]byte{'\r'}); err != nil {
				return 0, err
			}
		}
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\r')
		if i < 0 {
			if _, err := t.dst.Write(p); err != nil {
				return 0, err
			}
			break
		}
		if i == len(p)-1 {
			if _, err := t.dst.Write(p[:i]); err != nil {
				return 0, err
			}
			t.pending = true
			break
		}
		keep := i
		if p[i+1] != '\n' {
			keep = i + 1 // a lone CR stays
		}
		if _, err := t.dst.Write(p[:keep]); err != nil {
			return 0, err
		}
		p = p[i+1:]
	}
	return n, nil
}

// flush passes on a CR that ended the data.
func (t *textWriter) flush() error {
	if t.pending {
		t.pending = false
		_, err := t.dst.Write([]byte{'\r'})
		return err
	}
	return nil
}
