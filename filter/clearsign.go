package filter

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// The Cleartext Signature Framework (RFC 9580 §7): the text stays
// readable, dash-escaped, between a "BEGIN PGP SIGNED MESSAGE" line with
// its Hash header and an armored signature block. The signature is a text
// signature (type 0x01) over the canonical text: each line with its
// trailing spaces and tabs removed, lines joined by CR LF, and no line
// ending after the last line, since the one before the signature block
// belongs to the framework (§7.2).
//
// GnuPG's --not-dash-escaped form (not in the RFC) leaves the text as it
// is, for patches whose lines start with "-": its header block carries a
// NotDashEscaped header beside Hash, no line is escaped, and the
// signature, still a text signature, covers the text's bytes exactly,
// line endings and trailing whitespace included, with a LF added when the
// text does not end in one (gpg's copy_clearsig_text). Only the signature
// block's BEGIN line ends such a text.

const (
	clearBegin = "-----BEGIN PGP SIGNED MESSAGE-----"
	sigBegin   = "-----BEGIN PGP SIGNATURE-----"
	// notDashEscaped is the header gpg 2.2 writes, word for word; a
	// reader looks only at its name, as gpg does.
	notDashEscaped     = "NotDashEscaped: You need gpg to verify this message"
	notDashEscapedName = "NotDashEscaped:"
	// MaxClearSignedText bounds the text of a cleartext signed message
	// that is read: the hash to run is named only after the text, so it
	// is kept in memory until the signatures are read.
	MaxClearSignedText = 256 << 20
)

// ErrClearSigned is wrapped by errors in the cleartext framework itself.
var ErrClearSigned = errors.New("malformed cleartext signed message")

// IsClearSigned reports whether data starting with prefix is a cleartext
// signed message.
func IsClearSigned(prefix []byte) bool {
	prefix = bytes.TrimLeft(prefix, " \t\r\n")
	return bytes.HasPrefix(prefix, []byte(clearBegin))
}

// canonicalText feeds the canonical form of text lines to w: trailing
// whitespace is held back until the line proves to go on, and each line
// after the first is preceded by CR LF.
type canonicalText struct {
	w       io.Writer
	lines   int
	pending []byte // trailing spaces and tabs of the line so far
}

// line starts a new line.
func (c *canonicalText) line() {
	if c.lines > 0 {
		c.w.Write(crlf)
	}
	c.lines++
	c.pending = c.pending[:0]
}

// write adds part of the current line, without its line ending.
func (c *canonicalText) write(p []byte) {
	t := bytes.TrimRight(p, " \t\r")
	if len(t) > 0 {
		c.w.Write(c.pending)
		c.pending = c.pending[:0]
		c.w.Write(t)
	}
	c.pending = append(c.pending, p[len(t):]...)
}

// dashEscape reports whether a line must be dash-escaped: it starts with
// a dash, or with "From " (gpg's --escape-from-lines, on by default, so a
// mailer's ">From" does not break the signature).
func dashEscape(line []byte) bool {
	return len(line) > 0 && line[0] == '-' || bytes.HasPrefix(line, []byte("From "))
}

// ClearSign writes in as a cleartext signed message signed by
// opt.Signers. Lines end in LF in the output whatever they ended in,
// except with opt.NotDashEscaped, where the text is written as it is.
func ClearSign(in io.Reader, out io.Writer, opt SignOptions) (int64, error) {
	if len(opt.Signers) == 0 {
		return 0, errors.New("no signing key")
	}
	// The canonical text is fed to the hashes below: the signatures
	// are text signatures, but no CR LF conversion is put in front.
	s, err := newSigning(opt.Signers, opt.Time, false)
	if err != nil {
		return 0, err
	}
	var names []string
	for _, sig := range s.sigs {
		sig.SigType = gcpacket.SigTypeText
		if sig.Version == 6 {
			continue // RFC 9580 §7.1: no Hash header for v6 signatures
		}
		n := packet.HashAlgoOf(sig.Hash).String()
		if !containsString(names, n) {
			names = append(names, n)
		}
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	bw.WriteString(clearBegin + "\n")
	if len(names) > 0 {
		bw.WriteString("Hash: " + strings.Join(names, ",") + "\n")
	}
	if opt.NotDashEscaped {
		bw.WriteString(notDashEscaped + "\n")
	}
	bw.WriteString("\n")
	var total int64
	if opt.NotDashEscaped {
		total, err = copyNotDashEscaped(bw, s, in)
	} else {
		total, err = copyDashEscaped(bw, s, in)
	}
	if err != nil {
		return total, err
	}
	aw := armor.NewWriter(bw, "PGP SIGNATURE", nil)
	if err := s.writeSignatures(aw); err != nil {
		return total, err
	}
	if err := aw.Close(); err != nil {
		return total, err
	}
	return total, bw.Flush()
}

// copyDashEscaped writes the text of in dash-escaped, each line ending
// in LF, and hashes its canonical form into h. It returns the bytes read.
func copyDashEscaped(bw *bufio.Writer, h io.Writer, in io.Reader) (int64, error) {
	canon := &canonicalText{w: h}
	br := bufio.NewReaderSize(in, iobuf.DefaultSize)
	var total int64
	lineStart := true
	for {
		chunk, err := br.ReadSlice('\n')
		total += int64(len(chunk))
		if len(chunk) > 0 {
			if lineStart {
				canon.line()
				if dashEscape(chunk) {
					bw.WriteString("- ")
				}
			}
			body := chunk
			end := len(body) > 0 && body[len(body)-1] == '\n'
			if end {
				body = body[:len(body)-1]
				if len(body) > 0 && body[len(body)-1] == '\r' {
					body = body[:len(body)-1]
				}
			}
			canon.write(body)
			bw.Write(body)
			if end {
				bw.WriteByte('\n')
			}
			lineStart = end
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return total, readError{err}
		}
	}
	if !lineStart {
		bw.WriteByte('\n') // the framework's line ending before the signature
	}
	return total, nil
}

// ErrNotDashEscapable refuses a text that cannot be signed without
// dash-escaping: a line of it would end the text.
var ErrNotDashEscapable = errors.New("a line of the text starts a signature block, so it cannot be signed with --not-dash-escaped")

// copyNotDashEscaped writes the text of in as it is and hashes the same
// bytes into h, with a LF after a last line that has none, as gpg does.
// A line that begins the signature block's armor would end the text
// early and leave a message that verifies for no one: it is refused.
func copyNotDashEscaped(bw *bufio.Writer, h io.Writer, in io.Reader) (int64, error) {
	br := bufio.NewReaderSize(in, iobuf.DefaultSize)
	var total int64
	lineStart := true
	for {
		chunk, err := br.ReadSlice('\n')
		total += int64(len(chunk))
		if len(chunk) > 0 {
			if lineStart && bytes.HasPrefix(chunk, []byte(sigBegin)) {
				return total, ErrNotDashEscapable
			}
			h.Write(chunk)
			bw.Write(chunk)
			lineStart = chunk[len(chunk)-1] == '\n'
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return total, readError{err}
		}
	}
	if !lineStart || total == 0 {
		// gpg ends the text with a LF and signs it: an empty text is
		// one empty line.
		h.Write([]byte{'\n'})
		bw.WriteByte('\n')
	}
	return total, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// clearSigned is a cleartext signed message as read: its text with the
// dash-escapes undone, one entry per line; when notDashEscaped, each line
// as it came, its line ending included.
type clearSigned struct {
	hashes         []string
	notDashEscaped bool
	lines          [][]byte
	// read counts the input lines read up to the signature block
	// (blank lines before the BEGIN line included), so that errors
	// after the message can name a line.
	read int
}

func clearErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrClearSigned, fmt.Sprintf(format, args...))
}

// readClearSigned reads the framework up to the signature block and
// leaves r at the block's BEGIN line.
func readClearSigned(r *bufio.Reader) (*clearSigned, error) {
	cs := &clearSigned{}
	readLine := func() ([]byte, error) {
		l, err := r.ReadBytes('\n')
		if err == io.EOF && len(l) > 0 {
			err = nil
		}
		if len(l) > 0 {
			cs.read++
		}
		return bytes.TrimRight(l, "\r\n"), err
	}
	for {
		l, err := readLine()
		if err != nil {
			return nil, clearErr("no %q line", clearBegin)
		}
		if string(bytes.TrimRight(l, " \t")) == clearBegin {
			break
		}
		if len(bytes.TrimSpace(l)) > 0 {
			return nil, clearErr("text before the %q line", clearBegin)
		}
	}
	for {
		l, err := readLine()
		if err != nil {
			return nil, clearErr("the headers do not end")
		}
		if len(bytes.TrimSpace(l)) == 0 {
			break
		}
		if bytes.HasPrefix(l, []byte(notDashEscapedName)) && len(bytes.TrimRight(l, " \t")) > len(notDashEscapedName) {
			// GnuPG's --not-dash-escaped: the one header besides Hash
			// that gpg reads in a cleartext message (with some text
			// after the name, as gpg wants).
			cs.notDashEscaped = true
			continue
		}
		v, ok := bytes.CutPrefix(l, []byte("Hash: "))
		if !ok {
			// RFC 9580 §7.1: the Hash header is the only one, and an
			// unknown one must not be ignored, or text could hide in it.
			return nil, clearErr("armor header %q is not a Hash header", l)
		}
		for _, n := range strings.Split(string(v), ",") {
			cs.hashes = append(cs.hashes, strings.TrimSpace(n))
		}
	}
	size := 0
	for {
		if size > MaxClearSignedText {
			return nil, clearErr("the text is larger than %d MiB", MaxClearSignedText>>20)
		}
		peek, _ := r.Peek(len(sigBegin))
		if string(peek) == sigBegin {
			return cs, nil
		}
		l, err := r.ReadBytes('\n')
		if err != nil {
			return nil, clearErr("no signature follows the text")
		}
		cs.read++
		if cs.notDashEscaped {
			// Signed as it is: no escape to undo, nothing trimmed.
			size += len(l)
			cs.lines = append(cs.lines, l)
			continue
		}
		l = bytes.TrimSuffix(bytes.TrimSuffix(l, []byte("\n")), []byte("\r"))
		if len(l) > 0 && l[0] == '-' {
			rest, ok := bytes.CutPrefix(l, []byte("- "))
			if !ok {
				return nil, clearErr("a text line starts with a dash that is not an escape: %q", truncate(l))
			}
			l = rest
		}
		size += len(l) + 1
		cs.lines = append(cs.lines, l)
	}
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// readClearMessage reads a cleartext signed message from br and checks
// its signatures. It writes nothing: the text is released by writeText
// once the caller knows that nothing after the message makes it fail.
// lines is how many input lines the message took, its signature block's
// END line included.
func readClearMessage(br *bufio.Reader, opt DecryptOptions) (res *Result, cs *clearSigned, lines int, err error) {
	cs, err = readClearSigned(br)
	if err != nil {
		return nil, nil, 0, err
	}
	res = &Result{}
	v := &verifier{keys: opt.Signers, res: res, allowWeak: opt.AllowWeakDigests, reject: opt.RejectHashes, now: opt.Time,
		rawText: cs.notDashEscaped}
	ar, err := armor.NewReader(br)
	if err != nil {
		return nil, nil, 0, err
	}
	if ar.Type() != "PGP SIGNATURE" {
		return nil, nil, 0, clearErr("the text is followed by %q, not a signature block", ar.Type())
	}
	r := iobuf.NewReader(ar, 64<<10)
	if err := v.signatures(r, "a cleartext signature block"); err != nil {
		return nil, nil, 0, err
	}
	if len(v.pre) == 0 && len(v.results) == 0 {
		return nil, nil, 0, clearErr("the signature block holds no signature")
	}
	for _, p := range v.pre {
		// §7.1: a Hash header that does not name the signature's hash is
		// an attempt to mislead about what was signed.
		if len(cs.hashes) > 0 && p.sig.Version != 6 && !containsString(cs.hashes, p.sig.Hash.String()) {
			return nil, nil, 0, clearErr("the Hash header says %s, a signature uses %v", strings.Join(cs.hashes, ","), p.sig.Hash)
		}
	}
	if cs.notDashEscaped {
		w := v.literal(io.Discard)
		for _, l := range cs.lines {
			w.Write(l)
		}
	} else {
		canon := &canonicalText{w: v.literal(io.Discard)}
		for _, l := range cs.lines {
			canon.line()
			canon.write(l)
		}
	}
	res.Signatures = v.finish()
	for i := range res.Signatures {
		res.Signatures[i].Form = FormCleartext
	}
	if opt.Events != nil {
		opt.Events.Literal(packet.Literal{Format: 't', Length: -1}) // no length ahead of the text
	}
	return res, cs, cs.read + ar.Line(), nil
}

// writeText writes what the signatures cover: each line without its
// trailing whitespace (as gpg writes it), ending in LF. A not
// dash-escaped text is signed with its trailing whitespace, and keeps it;
// its CR LF line endings become LF, as for text-mode literal data.
func (cs *clearSigned) writeText(out io.Writer, res *Result) error {
	bw := bufio.NewWriterSize(out, 64<<10)
	for _, l := range cs.lines {
		if cs.notDashEscaped {
			l = bytes.TrimSuffix(bytes.TrimSuffix(l, []byte("\n")), []byte("\r"))
		} else {
			l = bytes.TrimRight(l, " \t\r")
		}
		bw.Write(l)
		bw.WriteByte('\n')
		res.Bytes += int64(len(l) + 1)
	}
	if err := bw.Flush(); err != nil {
		return writeError{err}
	}
	return nil
}

// FormCleartext is the form of a signature of a cleartext signed message.
const FormCleartext = "cleartext"
