package filter

import (
	"bufio"
	"bytes"
	"io"
)

// NewTextReader returns r as gpg 2.2's text_filter (g10/textfilter.c)
// gives it, what --textmode puts in front of the data that -s, -b, -e and
// -c write: every line
// ending becomes CR LF, with the CRs and LFs before it dropped ("a\r\r\n"
// is "a\r\n"); a last line with no LF keeps none, and loses its trailing
// CRs. Trailing spaces stay (gpg strips them only with --rfc2440-text).
// The literal data is then this canonical text, and a text signature
// (type 0x01) over it hashes the same bytes.
//
// It reads lines with ReadSlice and copies each run once into its own
// buffer; a line longer than the buffer is passed on in pieces, its
// trailing CRs held back until the next piece shows whether a line
// ending follows them. (The other direction, text-mode literal data
// back to LF on output, is textWriter in textmode.go; a cleartext
// signature's canonical text, in clearsign.go, is a third rule: it drops
// trailing spaces too.)
func NewTextReader(r io.Reader) io.Reader {
	return &textReader{r: bufio.NewReaderSize(r, 64<<10)}
}

type textReader struct {
	r    *bufio.Reader
	buf  []byte
	out  []byte // what is ready: a suffix of buf
	cr   int    // CRs held back at the end of a piece with no LF
	err  error
	done bool
}

var crs = bytes.Repeat([]byte{'\r'}, 64)

func (t *textReader) appendCRs(n int) {
	for n > 0 {
		k := min(n, len(crs))
		t.buf = append(t.buf, crs[:k]...)
		n -= k
	}
}

func (t *textReader) Read(p []byte) (int, error) {
	for len(t.out) == 0 {
		if t.done {
			return 0, t.err
		}
		line, err := t.r.ReadSlice('\n')
		t.buf = t.buf[:0]
		if n := len(line); n > 0 && line[n-1] == '\n' {
			body := bytes.TrimRight(line, "\r\n")
			if len(body) > 0 {
				t.appendCRs(t.cr)
			}
			t.cr = 0
			t.buf = append(append(t.buf, body...), '\r', '\n')
		} else {
			body := bytes.TrimRight(line, "\r")
			if len(body) > 0 {
				t.appendCRs(t.cr)
				t.cr = 0
				t.buf = append(t.buf, body...)
			}
			t.cr += len(line) - len(body)
		}
		t.out = t.buf
		switch {
		case err == bufio.ErrBufferFull:
		case err == io.EOF:
			t.done, t.err = true, io.EOF
		case err != nil:
			t.done, t.err = true, err
		}
	}
	n := copy(p, t.out)
	t.out = t.out[n:]
	return n, nil
}
