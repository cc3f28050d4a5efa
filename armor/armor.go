// Package armor is OpenPGP's ASCII armor (RFC 9580 §6), streaming in
// both directions: the one codec pgpstream uses for messages, signatures
// and keys alike.
//
// The decoder is a line machine over one bufio.Reader of armorBufSize: the
// BEGIN line, the armor headers, then base64 lines that are appended (without
// their line endings) to a text buffer and decoded many lines per call with
// encoding/base64's bulk Decode, then the optional CRC24 footer and the END
// line. Copies per decoded byte on the hot path: one from the source into the
// bufio buffer, one from there into the text buffer (dropping line breaks
// keeps base64.Decode on its 8-characters-at-a-time path), then the decode
// itself, straight into the caller's slice when it holds at least one quantum.
// CRC24 is the only per-byte loop and it is table driven (slicing-by-8).
package armor

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Armor block types (RFC 9580 §6.2.1), as Type returns them and
// NewWriter takes them.
const (
	Message    = "PGP MESSAGE"
	PublicKey  = "PGP PUBLIC KEY BLOCK"
	PrivateKey = "PGP PRIVATE KEY BLOCK"
	Signature  = "PGP SIGNATURE"
)

const (
	// armorBufSize is the bufio buffer under the decoder and so the longest
	// line the decoder accepts inside a block (mail text before the BEGIN
	// line may be longer: it is skipped in pieces). 64 KiB, like one GnuPG
	// iobuf stage.
	armorBufSize = 64 << 10

	// armorTextCap holds one gather's worth of base64 text (at most
	// armorBufSize characters are asked for) plus one more line of up to
	// armorBufSize and a partial quantum carried from the previous decode.
	armorTextCap = 2*armorBufSize + 4

	// armorDirectMin is the smallest Read that is decoded straight into
	// the caller's slice; smaller ones are served from a decoded buffer so
	// each Read costs a copy, not a base64 call.
	armorDirectMin = 512

	// armorHeaderMax bounds the armor headers kept in memory, so a stream of
	// "Key: value" lines cannot grow the header map without limit.
	armorHeaderMax = 64 << 10

	// armorLineData is the number of octets per 64-character line, what gpg
	// writes and what RFC 9580 §6.3 allows (at most 76 characters).
	armorLineData = 48
	armorLineLen  = 64 + 1 // with '\n'

	// armorWriteBufLines lines of encoded output are gathered before one
	// write to the underlying writer (1008*65 = 65520 bytes).
	armorWriteBufLines = 1008
)

// BufSize is a Reader's read-ahead. To read consecutive blocks from one
// input, give every NewReader the same *bufio.Reader of at least BufSize.
const BufSize = armorBufSize

var (
	armorBeginPrefix = []byte("-----BEGIN PGP ")
	armorDashes      = []byte("-----")
	armorBOM         = []byte("\xef\xbb\xbf")
)

// Errors returned by Reader, testable with errors.Is. The error values
// themselves are *Error that say what was found and at which line.
var (
	// ErrNotFound: the input holds no "-----BEGIN PGP ...-----" line
	// (it is empty, binary, or plain text).
	ErrNotFound = errors.New("armor: no BEGIN PGP line")
	// ErrCorrupt: a structural error inside the block (bad base64, a
	// junk line, a wrong END line, ...).
	ErrCorrupt = errors.New("armor: corrupt")
	// ErrTruncated: the input ended before the END line. It also
	// matches io.ErrUnexpectedEOF.
	ErrTruncated = errors.New("armor: truncated")
	// ErrCRC24Mismatch: the CRC24 footer disagrees with the decoded data.
	ErrCRC24Mismatch = errors.New("armor: CRC24 checksum mismatch")
)

// Error is a decoding error: its class (one of the Err* values above),
// the 1-based input line it was found on (0 when none applies, counting the
// lines skipped before the BEGIN line) and what was found there.
type Error struct {
	Kind   error
	Line   int
	Detail string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%v: line %d: %s", e.Kind, e.Line, e.Detail)
	}
	return fmt.Sprintf("%v: %s", e.Kind, e.Detail)
}

func (e *Error) Unwrap() error { return e.Kind }

// Is lets a truncated block match io.ErrUnexpectedEOF, the error code that
// reads through several layers already checks for.
func (e *Error) Is(target error) bool {
	return e.Kind == ErrTruncated && target == io.ErrUnexpectedEOF
}

// IsArmored reports whether the start of an input (a peeked prefix, maybe
// short) looks like ASCII armor: optional whitespace and blank lines (and a
// UTF-8 byte order mark), then "-----BEGIN PGP ". A prefix that ends inside
// that marker counts: binary OpenPGP always has bit 7 of its first octet set
// (RFC 9580 §4.2), so it never starts with whitespace or '-'.
func IsArmored(prefix []byte) bool {
	rest := bytes.TrimLeft(bytes.TrimPrefix(prefix, armorBOM), " \t\r\n")
	if len(rest) == 0 {
		return false
	}
	if len(rest) >= len(armorBeginPrefix) {
		return bytes.HasPrefix(rest, armorBeginPrefix)
	}
	return bytes.HasPrefix(armorBeginPrefix, rest)
}

type armorStage int

const (
	armorStageBody        armorStage = iota // base64 lines
	armorStageAfterFooter                   // CRC24 line seen, END line next
	armorStageDone                          // END line seen
)

// armorMark records that the body line numbered line starts at offset off in
// the text buffer, so a base64 error can name its line and column.
type armorMark struct {
	off, line int
}

// Reader decodes one ASCII-armored block; see NewReader.
type Reader struct {
	// IgnoreChecksum accepts a CRC24 footer that is malformed or disagrees
	// with the data instead of failing with ErrCRC24Mismatch, which is what
	// RFC 9580 §6.1 asks of decoders. By default the footer is verified, as
	// gpg does, because a mismatch there is the one sign of text damaged in
	// transit that is reported before decryption fails for an unclear
	// reason. Set it before the first Read.
	IgnoreChecksum bool

	br      *bufio.Reader
	line    int  // number of the last line read
	eof     bool // br returned io.EOF
	typ     string
	endLine string
	headers map[string][]string

	stage      armorStage
	text       []byte      // base64 characters, line breaks removed
	toff       int         // text[toff:] is not decoded yet
	marks      []armorMark // where the lines in text start
	out        []byte      // decoded octets not yet returned (a slice of outBuf)
	outBuf     []byte
	padded     bool // the last decoded quantum had '=' padding: no data may follow
	crc        uint32
	hasFooter  bool
	footerCRC  uint32
	footerLine int
	footerText string
	err        error // sticky: io.EOF after a good END line, or the first failure
}

// NewReader starts decoding one armored block from r: it skips any text
// before the BEGIN line (mail text, blank lines), reads the armor headers and
// returns a reader of the decoded octets. Read returns io.EOF only after the
// END line matched the BEGIN line and the CRC24 footer, when present,
// matched the data; a block cut short is an error, never a quiet io.EOF.
//
// Headers end at a blank line (RFC 9580 §6.2) or, to accept writers that
// omit it, at the first line that is not "Key: value". CRLF line endings and
// trailing whitespace are accepted everywhere.
//
// The decoder reads ahead through a 64 KiB bufio.Reader. If r already is a
// *bufio.Reader of at least that size it is used as is and is left just past
// the END line, so a caller can peek with it (see IsArmored) and read what
// follows the block.
func NewReader(r io.Reader) (*Reader, error) {
	a := &Reader{
		br:      bufio.NewReaderSize(r, armorBufSize),
		headers: make(map[string][]string),
		crc:     crc24Init,
	}
	if err := a.readBegin(); err != nil {
		return nil, err
	}
	if err := a.readHeaders(); err != nil {
		return nil, err
	}
	return a, nil
}

// Type returns the block type from the BEGIN line, such as "PGP MESSAGE" or
// "PGP PUBLIC KEY BLOCK".
func (a *Reader) Type() string { return a.typ }

// Line is the number of input lines read so far, counting from where
// NewReader started (so the text skipped before the BEGIN line too).
// Once Read has returned io.EOF it is the END line's number, which lets a
// caller that reads on from the same *bufio.Reader name lines after it.
func (a *Reader) Line() int { return a.line }

// Headers returns the armor headers ("Comment", "Version", ...), each key
// with its values in input order. The map belongs to the reader.
func (a *Reader) Headers() map[string][]string { return a.headers }

func (a *Reader) errorf(kind error, line int, format string, args ...any) error {
	return &Error{Kind: kind, Line: line, Detail: fmt.Sprintf(format, args...)}
}

// readLine returns the next input line, line ending included; the slice is
// valid until the next call. At EOF a last line without '\n' is returned
// normally and then (nil, io.EOF). A line longer than the buffer is skipped
// when skipLong is set and an error otherwise.
func (a *Reader) readLine(skipLong bool) ([]byte, error) {
	if a.eof {
		return nil, io.EOF
	}
	line, err := a.br.ReadSlice('\n')
	for err == bufio.ErrBufferFull {
		if !skipLong {
			return nil, a.errorf(ErrCorrupt, a.line+1, "line longer than %d bytes", armorBufSize)
		}
		line, err = a.br.ReadSlice('\n')
		if err == nil || err == io.EOF {
			line = nil // the tail of a long line cannot hold a BEGIN line
		}
	}
	switch err {
	case nil:
	case io.EOF:
		a.eof = true
		if len(line) == 0 {
			return nil, io.EOF
		}
	default:
		return nil, err
	}
	a.line++
	if !skipLong && len(line) > armorBufSize {
		// A caller's *bufio.Reader may be larger than ours; the text
		// buffer is sized for lines of at most armorBufSize.
		return nil, a.errorf(ErrCorrupt, a.line, "line longer than %d bytes", armorBufSize)
	}
	return line, nil
}

func (a *Reader) readBegin() error {
	for {
		line, err := a.readLine(true)
		if err == io.EOF {
			if a.line == 0 {
				return a.errorf(ErrNotFound, 0, "input is empty")
			}
			return a.errorf(ErrNotFound, 0, "none in %d lines of input", a.line)
		}
		if err != nil {
			return err
		}
		t := bytes.TrimSpace(bytes.TrimPrefix(line, armorBOM))
		if !bytes.HasPrefix(t, armorBeginPrefix) {
			continue
		}
		if len(t) <= len("-----BEGIN ")+len(armorDashes) || !bytes.HasSuffix(t, armorDashes) {
			return a.errorf(ErrCorrupt, a.line, "malformed BEGIN line %s", armorQuote(t))
		}
		a.typ = string(t[len("-----BEGIN ") : len(t)-len(armorDashes)])
		if a.typ == "PGP SIGNED MESSAGE" {
			// RFC 9580 §7: the text after this line is not base64; the
			// cleartext signature framework reads it, not the armor decoder.
			return a.errorf(ErrCorrupt, a.line, "a cleartext signed message (BEGIN PGP SIGNED MESSAGE) is not an armored block")
		}
		a.endLine = "-----END " + a.typ + "-----"
		return nil
	}
}

func (a *Reader) readHeaders() error {
	size := 0
	for {
		line, err := a.readLine(false)
		if err == io.EOF {
			return a.errorf(ErrTruncated, a.line, "input ended in the armor headers, before %q", a.endLine)
		}
		if err != nil {
			return err
		}
		t := armorTrimEnd(line)
		if len(t) == 0 {
			return nil // the blank line that ends the headers
		}
		key, value, ok := armorHeader(t)
		if !ok {
			// Headers ended without the blank line; this is the first
			// body line (base64 has no ':', so nothing is misread).
			return a.bodyLine(t)
		}
		if size += len(t); size > armorHeaderMax {
			return a.errorf(ErrCorrupt, a.line, "armor headers longer than %d bytes", armorHeaderMax)
		}
		a.headers[key] = append(a.headers[key], value)
	}
}

// armorHeader splits "Key: value" (RFC 9580 §6.2.2). A key is printable
// ASCII without spaces; the space after the colon is optional here.
func armorHeader(t []byte) (key, value string, ok bool) {
	i := bytes.IndexByte(t, ':')
	if i <= 0 {
		return "", "", false
	}
	for _, c := range t[:i] { // the key only, not data
		if c <= ' ' || c >= 0x7f {
			return "", "", false
		}
	}
	return string(t[:i]), string(bytes.TrimLeft(t[i+1:], " \t")), true
}

// bodyLine takes one line after the headers, trailing whitespace and line
// ending already removed.
func (a *Reader) bodyLine(t []byte) error {
	if len(t) == 0 {
		return nil // blank lines carry no data
	}
	switch a.stage {
	case armorStageBody:
		switch {
		case t[0] == '-':
			return a.endOfBlock(t)
		case t[0] == '=' && !(len(t) <= 2 && bytes.Count(t, []byte{'='}) == len(t)):
			// "=" or "==" alone is padding wrapped onto its own line;
			// anything else starting with '=' is the footer (RFC 9580 §6.1).
			return a.footer(t)
		}
		if a.toff > 0 {
			a.compact()
		}
		if len(a.text)+len(t) > cap(a.text) {
			a.growText(len(t))
		}
		a.marks = append(a.marks, armorMark{off: len(a.text), line: a.line})
		a.text = append(a.text, t...)
		return nil
	case armorStageAfterFooter:
		if t[0] == '-' {
			return a.endOfBlock(t)
		}
		return a.errorf(ErrCorrupt, a.line, "found %s after the checksum line %d, want %q", armorQuote(t), a.footerLine, a.endLine)
	}
	panic("armor: line after the END line")
}

// growText allocates the text buffer on first use (a zero-length block never
// needs it). gather keeps armorBufSize of room, so this is called only once.
func (a *Reader) growText(n int) {
	c := armorTextCap
	if len(a.text)+n > c {
		panic("armor: text buffer overflow")
	}
	t := make([]byte, len(a.text), c)
	copy(t, a.text)
	a.text = t
}

func (a *Reader) footer(t []byte) error {
	a.stage = armorStageAfterFooter
	a.footerLine = a.line
	a.footerText = string(t)
	var sum [3]byte
	if len(t) != 5 {
		// Decode would need a larger destination; it is malformed anyway.
	} else if n, err := base64.StdEncoding.Decode(sum[:], t[1:]); err == nil && n == 3 {
		a.hasFooter = true
		a.footerCRC = uint32(sum[0])<<16 | uint32(sum[1])<<8 | uint32(sum[2])
		return nil
	}
	if a.IgnoreChecksum {
		return nil
	}
	return a.errorf(ErrCorrupt, a.line, "malformed CRC24 checksum line %s, want '=' and 4 base64 characters", armorQuote(t))
}

func (a *Reader) endOfBlock(t []byte) error {
	t = bytes.TrimLeft(t, " \t")
	switch {
	case string(t) == a.endLine, sloppyEnd(t, a.endLine):
		a.stage = armorStageDone
		return nil
	case bytes.HasPrefix(t, []byte("-----END ")):
		return a.errorf(ErrCorrupt, a.line, "END line %s does not match %q", armorQuote(t), a.endLine)
	case bytes.HasPrefix(t, []byte("-----BEGIN ")):
		return a.errorf(ErrCorrupt, a.line, "found %s before %q", armorQuote(t), a.endLine)
	}
	return a.errorf(ErrCorrupt, a.line, "found %s in the base64 body", armorQuote(t))
}

// sloppyEnd reports whether t is the END line end with another count of
// trailing dashes, which gpg accepts (GnuPG's own tests have an
// "-----END PGP MESSAGE----"): the line only delimits what was decoded.
func sloppyEnd(t []byte, end string) bool {
	label := strings.TrimRight(end, "-")
	return len(t) > len(label) && string(t[:len(label)]) == label && len(bytes.Trim(t[len(label):], "-")) == 0
}

// gather reads body lines until the text buffer holds at least want
// characters, or at least one quantum and no complete line is buffered (so
// a slow stream is decoded as it arrives), or the END line was read.
func (a *Reader) gather(want int) error {
	want = min(max(want, 4), armorBufSize)
	for a.stage != armorStageDone {
		if pending := len(a.text) - a.toff; a.stage == armorStageBody && (pending >= want || pending >= 4 && a.br.Buffered() == 0) {
			return nil
		}
		line, err := a.readLine(false)
		if err == io.EOF {
			return a.errorf(ErrTruncated, a.line, "input ended before %q", a.endLine)
		}
		if err != nil {
			return err
		}
		if err := a.bodyLine(armorTrimEnd(line)); err != nil {
			return err
		}
	}
	return nil
}

// Read decodes into p. Decoded octets are handed out before the footer and
// END line are checked, as any stream must; the error, if any, comes at the
// end in place of io.EOF and stays.
func (a *Reader) Read(p []byte) (int, error) {
	for {
		if len(a.out) > 0 {
			n := copy(p, a.out)
			a.out = a.out[n:]
			return n, nil
		}
		if a.err != nil {
			return 0, a.err
		}
		if len(p) == 0 {
			return 0, nil
		}
		direct := len(p) >= armorDirectMin
		want := armorBufSize // decoding into outBuf: fill it
		if direct {
			want = len(p) / 3 * 4
		}
		if err := a.gather(want); err != nil {
			a.err = err
			continue
		}
		final := a.stage == armorStageDone
		n := (len(a.text) - a.toff) &^ 3
		if final {
			n = len(a.text) - a.toff // the last quantum may lack its padding
		}
		if n == 0 {
			if final {
				a.err = a.finish()
			}
			continue
		}
		if direct {
			// Decode straight into p, as many whole quanta as fit.
			m, err := a.decode(p, min(n, len(p)/3*4))
			if err != nil {
				a.err = err
				continue
			}
			if m > 0 {
				return m, nil
			}
			continue
		}
		if a.outBuf == nil {
			a.outBuf = make([]byte, armorTextCap/4*3+3)
		}
		m, err := a.decode(a.outBuf, n)
		if err != nil {
			a.err = err
			continue
		}
		a.out = a.outBuf[:m]
	}
}

// decode decodes the next n characters of text into dst and updates the
// CRC. n is a multiple of 4 unless it is all the text of a finished block.
func (a *Reader) decode(dst []byte, n int) (int, error) {
	src := a.text[a.toff : a.toff+n]
	if a.padded {
		// An earlier decode ended with '=' padding: RFC 9580 §6.3 allows
		// padding only at the very end of the data.
		return 0, a.base64Error(0, "base64 data after '=' padding")
	}
	whole := n &^ 3
	m, err := base64.StdEncoding.Decode(dst, src[:whole])
	if err == nil && whole < n {
		var k int
		k, err = base64.RawStdEncoding.Decode(dst[m:], src[whole:])
		if ce, ok := err.(base64.CorruptInputError); ok {
			err = base64.CorruptInputError(int64(ce) + int64(whole))
		}
		m += k
	}
	if err != nil {
		off := len(src) - 1
		if ce, ok := err.(base64.CorruptInputError); ok {
			off = int(ce)
		}
		if n-whole == 1 && off >= whole {
			return 0, a.base64Error(whole, "incomplete base64 quantum at the end of the data")
		}
		if off > 0 && off < len(src) && src[off-1] == '=' && src[off] != '=' {
			return 0, a.base64Error(off, "base64 data after '=' padding")
		}
		return 0, a.base64Error(min(off, len(src)-1), "invalid base64")
	}
	if n > 0 && src[n-1] == '=' {
		a.padded = true
	}
	a.crc = crc24Update(a.crc, dst[:m])

	a.toff += n
	if a.toff == len(a.text) {
		a.text, a.toff, a.marks = a.text[:0], 0, a.marks[:0]
	}
	return m, nil
}

// compact moves the text not yet decoded to the front of the buffer before
// more lines are added. It runs only when a Read decoded part of the text
// (a small p), and moves less than that Read's share, so the cost stays
// linear; the mark of the line the text starts in is kept, its offset now
// negative, so errors still name the column.
func (a *Reader) compact() {
	i := sort.Search(len(a.marks), func(i int) bool { return a.marks[i].off > a.toff })
	k := copy(a.marks, a.marks[max(i-1, 0):])
	a.marks = a.marks[:k]
	for i := range a.marks { // one entry per line, not per byte
		a.marks[i].off -= a.toff
	}
	a.text = a.text[:copy(a.text, a.text[a.toff:])]
	a.toff = 0
}

// base64Error reports a problem at offset off of the text not yet decoded,
// naming the line it came from.
func (a *Reader) base64Error(off int, what string) error {
	off += a.toff
	i := sort.Search(len(a.marks), func(i int) bool { return a.marks[i].off > off }) - 1
	if i < 0 {
		return a.errorf(ErrCorrupt, a.line, "%s", what)
	}
	m := a.marks[i]
	end := len(a.text)
	if i+1 < len(a.marks) {
		end = a.marks[i+1].off
	}
	lineText := a.text[max(m.off, 0):end]
	return a.errorf(ErrCorrupt, m.line, "%s at column %d in %s", what, off-m.off+1, armorQuote(lineText))
}

// finish runs once all data is decoded: it checks the footer.
func (a *Reader) finish() error {
	if a.hasFooter && a.crc != a.footerCRC && !a.IgnoreChecksum {
		return a.errorf(ErrCRC24Mismatch, a.footerLine, "footer %s is %06X, data gives %06X", a.footerText, a.footerCRC, a.crc)
	}
	return io.EOF
}

// armorTrimEnd drops the line ending and trailing whitespace. The loop runs
// over those few characters only (bytes.TrimRight with a cutset builds a
// lookup set per call and cost 10% of decoding time).
func armorTrimEnd(b []byte) []byte {
	for len(b) > 0 {
		switch b[len(b)-1] {
		case '\n', '\r', ' ', '\t':
			b = b[:len(b)-1]
		default:
			return b
		}
	}
	return b
}

// armorQuote quotes what was found for an error message, cut to a length
// that fits on one line.
func armorQuote(b []byte) string {
	const limit = 48
	if len(b) > limit {
		return fmt.Sprintf("%q...", b[:limit])
	}
	return fmt.Sprintf("%q", b)
}

// Writer encodes one armored block; see NewWriter.
type Writer struct {
	// OmitChecksum leaves out the CRC24 footer line. RFC 9580 §6.1 says
	// writers SHOULD NOT emit it unless a peer needs it, but gpg 2.2 and
	// older peers do, so it is written by default. Set it before the
	// first Write.
	OmitChecksum bool

	w       io.Writer
	typ     string
	headers map[string]string
	started bool
	closed  bool
	crc     uint32
	part    [armorLineData]byte // octets of an unfinished line
	npart   int
	buf     []byte // encoded text not yet written to w
	err     error  // sticky
}

// NewWriter returns a writer that encodes what is written to it as an
// armored block of blockType (such as Message) with the given armor
// headers, sorted by key: the BEGIN line, the headers, a blank line, base64
// in 64-character lines, the CRC24 footer unless OmitChecksum is set, and
// the END line, with LF line endings, as gpg writes them. Output is
// buffered; Close writes the rest and the tail but does not close w.
// An invalid type or header is reported by the first Write or Close.
func NewWriter(w io.Writer, blockType string, headers map[string]string) *Writer {
	return &Writer{w: w, typ: blockType, headers: headers, crc: crc24Init}
}

func (a *Writer) start() error {
	a.started = true
	if !armorPrintable(a.typ, false) || a.typ == "" || strings.Contains(a.typ, "-----") {
		return fmt.Errorf("armor: invalid block type %q", a.typ)
	}
	keys := make([]string, 0, len(a.headers))
	for k, v := range a.headers {
		if k == "" || !armorPrintable(k, true) || strings.Contains(k, ":") || !armorPrintable(v, false) {
			return fmt.Errorf("armor: invalid armor header %q: %q", k, v)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	a.buf = make([]byte, 0, armorWriteBufLines*armorLineLen)
	a.buf = append(a.buf, "-----BEGIN "...)
	a.buf = append(a.buf, a.typ...)
	a.buf = append(a.buf, "-----\n"...)
	for _, k := range keys {
		a.buf = append(a.buf, k...)
		a.buf = append(a.buf, ": "...)
		a.buf = append(a.buf, a.headers[k]...)
		a.buf = append(a.buf, '\n')
	}
	a.buf = append(a.buf, '\n')
	return nil
}

// armorPrintable reports whether s is printable ASCII (spaces allowed
// unless noSpace), so no header can inject a line.
func armorPrintable(s string, noSpace bool) bool {
	for i := 0; i < len(s); i++ { // headers only, never data
		c := s[i]
		if c < ' ' || c >= 0x7f || noSpace && c == ' ' {
			return false
		}
	}
	return true
}

// Write encodes p. Whole 48-octet groups are encoded in bulk straight from
// p, one base64.Encode call per output line; fewer than 48 octets left over
// wait in a small buffer for the next Write or Close.
func (a *Writer) Write(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	if a.closed {
		return 0, errors.New("armor: write after Close")
	}
	if !a.started {
		if a.err = a.start(); a.err != nil {
			return 0, a.err
		}
	}
	n := len(p)
	if !a.OmitChecksum {
		a.crc = crc24Update(a.crc, p)
	}
	if a.npart > 0 {
		k := copy(a.part[a.npart:], p)
		a.npart += k
		p = p[k:]
		if a.npart < armorLineData {
			return n, nil
		}
		if err := a.encodeLines(a.part[:]); err != nil {
			return 0, err
		}
		a.npart = 0
	}
	if whole := len(p) / armorLineData * armorLineData; whole > 0 {
		if err := a.encodeLines(p[:whole]); err != nil {
			return 0, err
		}
		p = p[whole:]
	}
	a.npart = copy(a.part[:], p)
	return n, nil
}

// encodeLines encodes src, a multiple of 48 octets, as full lines.
func (a *Writer) encodeLines(src []byte) error {
	for len(src) > 0 {
		room := (cap(a.buf) - len(a.buf)) / armorLineLen
		if room == 0 {
			if err := a.flush(); err != nil {
				return err
			}
			continue
		}
		k := min(room, len(src)/armorLineData)
		for range k { // one bulk Encode per 64-character line
			l := len(a.buf)
			a.buf = a.buf[:l+armorLineLen]
			base64.StdEncoding.Encode(a.buf[l:], src[:armorLineData])
			a.buf[l+armorLineLen-1] = '\n'
			src = src[armorLineData:]
		}
	}
	return nil
}

func (a *Writer) flush() error {
	if len(a.buf) == 0 {
		return nil
	}
	_, err := a.w.Write(a.buf)
	a.buf = a.buf[:0]
	if err != nil {
		a.err = err
	}
	return err
}

// Close encodes the last partial line, writes the CRC24 footer (unless
// OmitChecksum) and the END line, and flushes. It does not close the
// underlying writer. Calling Close again returns the first Close's error.
func (a *Writer) Close() error {
	if a.closed || a.err != nil {
		return a.err
	}
	a.closed = true
	if !a.started {
		if a.err = a.start(); a.err != nil {
			return a.err
		}
	}
	if a.npart > 0 {
		a.buf = base64.StdEncoding.AppendEncode(a.buf, a.part[:a.npart])
		a.buf = append(a.buf, '\n')
		a.npart = 0
	}
	if !a.OmitChecksum {
		sum := [3]byte{byte(a.crc >> 16), byte(a.crc >> 8), byte(a.crc)}
		a.buf = append(a.buf, '=')
		a.buf = base64.StdEncoding.AppendEncode(a.buf, sum[:])
		a.buf = append(a.buf, '\n')
	}
	a.buf = append(a.buf, "-----END "...)
	a.buf = append(a.buf, a.typ...)
	a.buf = append(a.buf, "-----\n"...)
	return a.flush()
}

// CRC24 (RFC 9580 §6.1): generator 0x864CFB, initial value 0xB704CE, most
// significant bit first, no final XOR. The tables keep the register in the
// top 24 bits of a uint32 so the classic 32-bit slicing-by-8 scheme applies:
// crc24Tables[k][b] is the register change for octet b followed by k zero
// octets, and eight octets cost eight lookups with no dependency chain
// between them.
const (
	crc24Init = 0xB704CE
	crc24Poly = 0x864CFB
)

var crc24Tables = func() *[8][256]uint32 {
	var t [8][256]uint32
	for i := range 256 {
		c := uint32(i) << 24
		for range 8 {
			if c&(1<<31) != 0 {
				c = c<<1 ^ crc24Poly<<8
			} else {
				c <<= 1
			}
		}
		t[0][i] = c
	}
	for i := range 256 {
		for k := 1; k < 8; k++ {
			c := t[k-1][i]
			t[k][i] = c<<8 ^ t[0][c>>24]
		}
	}
	return &t
}()

// crc24Update returns crc extended by p.
func crc24Update(crc uint32, p []byte) uint32 {
	t := crc24Tables
	c := crc << 8
	for len(p) >= 8 {
		c ^= binary.BigEndian.Uint32(p)
		c = t[7][c>>24] ^ t[6][c>>16&0xff] ^ t[5][c>>8&0xff] ^ t[4][c&0xff] ^
			t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]]
		p = p[8:]
	}
	for _, b := range p {
		c = c<<8 ^ t[0][byte(c>>24)^b]
	}
	return c >> 8
}
