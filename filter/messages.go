package filter

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// One input, one message: that is what Decrypt reads. Whatever follows
// the message is an error, because what a reader sees as one document
// must not be half checked: a good cleartext signature over the first
// block would otherwise vouch, in the eyes of whoever reads the file, for
// a tampered second one, and gpg 2.2 stops with "multiple plaintexts"
// for the same reason. Messages reads several in turn for the caller that
// asks for it (gpg's --allow-multiple-messages), each one checked and
// reported on its own.
//
// Where a message ends follows its grammar (RFC 9580 §10.3): an encrypted
// message after its encrypted data packet; an unencrypted one after its
// literal or compressed data packet and the signature packets that close
// its one-pass packets (or, in old GnuPG's literal-then-signature form,
// every signature packet after the data); an armored block at its END
// line; a cleartext signed message at the END line of its signature
// block. Marker and padding packets are ignored wherever they are.
//
// Text between and after armored blocks is skipped, as gpg skips it (a
// mail's footer, say): none of it is output and nothing vouches for it.
// Text after a cleartext signed message is an error: it reads as part of
// the signed text, and gpg 2.2 accepting it silently (exit 0) is how an
// unsigned line gets shown below a good signature.

// ErrTrailingData is wrapped by the error for an input that goes on after
// its message: a second message, or data that is not part of one.
var ErrTrailingData = errors.New("the input goes on after the message")

// TrailingError says what follows a message. Its Unwrap is
// ErrTrailingData.
type TrailingError struct {
	What string // what was found: "a one-pass signature packet", "text", "\"-----BEGIN PGP MESSAGE-----\""
	// Where it starts: Line (1-based) in text input, else Offset (in the
	// decoded data of an armored block, when InArmor is set).
	Line    int
	Offset  int64
	InArmor bool
	// Message is set when what follows starts another message (gpg's
	// "multiple plaintexts"); otherwise it is no message at all.
	Message bool
}

func (e *TrailingError) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%v: %s at line %d", ErrTrailingData, e.What, e.Line)
	case e.InArmor:
		return fmt.Sprintf("%v: %s at offset %d of the armored data", ErrTrailingData, e.What, e.Offset)
	}
	return fmt.Sprintf("%v: %s at offset %d", ErrTrailingData, e.What, e.Offset)
}

func (e *TrailingError) Unwrap() error { return ErrTrailingData }

// Messages reads the OpenPGP messages of one input in turn: binary
// messages one after the other, or armored blocks and cleartext signed
// messages, in any order. Call Next for the first message, then More
// before each further one.
type Messages struct {
	src iobuf.Reader
	// text is the input read as text (armor, cleartext); it reads ahead
	// of src, so once it is set everything is read through it.
	text *bufio.Reader
	line int // lines read through text, for errors
	// cur is the packet stream being read: src for binary input, the
	// current armored block's data, or nil between blocks.
	cur       iobuf.Reader
	ar        *armor.Reader // the block cur reads, for its line count
	cleartext bool          // the last message was cleartext signed
	started   bool
}

// NewMessages reads the messages of in. Close stops what reads in
// ahead (a regular file is read on a goroutine of its own).
func NewMessages(in io.Reader) *Messages {
	return &Messages{src: inputReader(in)}
}

// Close stops reading the input.
func (m *Messages) Close() error {
	closeInput(m.src)
	return nil
}

// Decrypt reads the one OpenPGP message in in (binary, armored or
// cleartext signed) and writes its literal data to out. Integrity is
// verified before Decrypt returns nil; when it returns an error, whatever
// it already wrote to out must be treated as unauthenticated.
//
// The input must end after the message, blank lines and text around an
// armored block aside: anything else is an error wrapping ErrTrailingData
// (a *TrailingError), found before any signature is reported to
// opt.Events and before a cleartext message's text is written.
func Decrypt(in io.Reader, out io.Writer, opt DecryptOptions) (*Result, error) {
	m := NewMessages(in)
	defer m.Close()
	msg, err := m.read(out, opt)
	if err != nil {
		return msg.res, err
	}
	t, err := m.peek()
	if err == nil && t != nil {
		err = t
	}
	if err != nil {
		return msg.res, err
	}
	return msg.res, msg.release()
}

// Next reads the next message, writes its literal data to out and
// reports it to opt.Events, as Decrypt does for a message alone, except
// that it does not look past the message. An error leaves the input
// where no further message can be read.
func (m *Messages) Next(out io.Writer, opt DecryptOptions) (*Result, error) {
	msg, err := m.read(out, opt)
	if err != nil {
		return msg.res, err
	}
	return msg.res, msg.release()
}

// More reports whether another message follows the one read. At what is
// not a message it returns a *TrailingError.
func (m *Messages) More() (bool, error) {
	t, err := m.peek()
	switch {
	case err != nil:
		return false, err
	case t == nil:
		return false, nil
	case !t.Message:
		return false, t
	}
	return true, nil
}

// message is one message read and checked, not yet handed over: its
// signatures are not reported yet, a cleartext message's text not written.
type message struct {
	res   *Result
	opt   DecryptOptions
	out   io.Writer
	clear *clearSigned
}

// release writes a cleartext message's text and reports the signatures.
func (msg *message) release() error {
	if msg.clear != nil {
		if err := msg.clear.writeText(msg.out, msg.res); err != nil {
			return err
		}
	}
	for _, s := range msg.res.Signatures {
		msg.opt.Events.Signature(s)
	}
	return nil
}

// read reads the next message. The message it returns is never nil; its
// Result is nil when nothing could be read.
func (m *Messages) read(out io.Writer, opt DecryptOptions) (*message, error) {
	if opt.Events == nil {
		opt.Events = nopEvents{}
	}
	msg := &message{opt: opt, out: out}
	if !m.started {
		m.started = true
		if err := m.start(); err != nil {
			return msg, err
		}
	}
	if m.cur == nil {
		if head, _ := m.text.Peek(len(clearBegin) + 16); IsClearSigned(head) {
			res, cs, lines, err := readClearMessage(m.text, opt)
			m.line += lines
			m.cleartext = true
			msg.res, msg.clear = res, cs
			return msg, err
		}
		ar, err := armor.NewReader(m.text)
		if err != nil {
			return msg, err
		}
		m.ar, m.cur, m.cleartext = ar, iobuf.NewReader(ar, iobuf.DefaultSize), false
	}
	d := &decryptor{opt: opt, out: out, res: &Result{}, armored: m.text != nil}
	d.sigs = verifier{keys: opt.Signers, legacy: opt.LegacyLiteralHash, allowWeak: opt.AllowWeakDigests, reject: opt.RejectHashes, now: opt.Time, res: d.res}
	defer d.sigs.wait() // stops the hashing goroutine on every return
	msg.res = d.res
	if err := d.top(m.cur); err != nil {
		return msg, err
	}
	d.res.Signatures = d.sigs.finish()
	return msg, nil
}

// ErrEmpty is the error for an input with no byte at all.
var ErrEmpty = errors.New("no input: the message is empty")

// start looks at the beginning of the input: binary packets, or text.
func (m *Messages) start() error {
	head, err := m.src.Peek(64)
	if len(head) == 0 {
		if err == nil || errors.Is(err, io.EOF) {
			return ErrEmpty
		}
		return err
	}
	if IsClearSigned(head) || armor.IsArmored(head) || armoredAfterText(m.src, head) {
		m.text = bufio.NewReaderSize(m.src, armor.BufSize)
		return nil
	}
	m.cur = m.src
	return nil
}

// peek says what follows the message read: nil at the end of the input.
func (m *Messages) peek() (*TrailingError, error) {
	if m.cur != nil {
		buf, err := m.cur.Peek(1)
		if len(buf) > 0 {
			return m.packetAhead(), nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		m.cur = nil
		if m.ar != nil {
			m.line += m.ar.Line()
			m.ar = nil
		}
	}
	if m.text == nil {
		return nil, nil
	}
	return m.textAhead()
}

// packetAhead describes the packet cur is at.
func (m *Messages) packetAhead() *TrailingError {
	t := &TrailingError{Offset: offsetOf(m.cur), InArmor: m.text != nil}
	buf, _ := m.cur.Peek(6) // the longest header
	h, more, err := packet.ParseHeader(buf, t.Offset)
	switch {
	case err != nil:
		t.What = "data that is not an OpenPGP packet"
		var se *packet.StructuralError
		if errors.As(err, &se) {
			t.What += " (" + se.Msg + ")"
		}
	case more > 0:
		t.What = "a cut packet header"
	case startsMessage(h.Tag):
		t.What = "another message (a " + h.Tag.String() + " packet)"
		t.Message = true
	default:
		t.What = "a " + h.Tag.String() + " packet"
	}
	return t
}

// startsMessage reports whether a message may begin with a packet of tag
// t (RFC 9580 §10.3; markers, which may too, are skipped as part of the
// message before).
func startsMessage(t packet.Tag) bool {
	switch t {
	case packet.TagPKESK, packet.TagSKESK, packet.TagSEIPD, packet.TagAEAD, packet.TagSED,
		packet.TagLiteral, packet.TagCompressed, packet.TagOnePassSignature, packet.TagSignature:
		return true
	}
	return false
}

// armorBegin starts an armor header line (RFC 9580 §6.2), as the armor
// decoder finds it: after a byte order mark and blanks.
var armorBegin = []byte("-----BEGIN PGP ")

// textAhead skips blank lines after a block, and after an armored block
// other text too, and describes the first line that is more. It stops
// before an armor header line, so the next message can be read from it.
func (m *Messages) textAhead() (*TrailingError, error) {
	for {
		buf, err := m.text.Peek(80)
		if len(buf) == 0 {
			if err == nil || errors.Is(err, io.EOF) {
				return nil, nil
			}
			return nil, err
		}
		line := buf
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			line = buf[:i+1]
		}
		t := bytes.TrimLeft(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")), " \t")
		if bytes.HasPrefix(t, armorBegin) {
			begin := string(bytes.TrimSpace(t))
			if begin == clearBegin || begin == "-----BEGIN "+armor.Message+"-----" {
				return &TrailingError{What: fmt.Sprintf("another message (%q)", begin), Line: m.line + 1, Message: true}, nil
			}
			return &TrailingError{What: fmt.Sprintf("an armored block that is no message (%q)", truncate([]byte(begin))), Line: m.line + 1}, nil
		}
		if len(bytes.TrimSpace(line)) > 0 && m.cleartext {
			return &TrailingError{What: fmt.Sprintf("text after the signature block, not signed (%q)", truncate(bytes.TrimSpace(line))), Line: m.line + 1}, nil
		}
		if err := m.skipLine(); err != nil {
			return nil, err
		}
	}
}

// skipLine reads past one line of text, however long.
func (m *Messages) skipLine() error {
	m.line++
	for {
		_, err := m.text.ReadSlice('\n')
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == nil, errors.Is(err, io.EOF):
			return nil
		}
		return err
	}
}
