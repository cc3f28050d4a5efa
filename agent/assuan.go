// Package agent is a client of gpg-agent, the process that holds a GnuPG
// home's secret keys (private-keys-v1.d) and does every operation with
// them, over its Assuan socket.
//
// Assuan is a line protocol (GnuPG's doc/assuan): the client sends a
// command line; the server answers with any number of status lines
// "S KEYWORD args", data lines "D data" and inquiries "INQUIRE KEYWORD",
// which the client answers with D lines and "END" (or "CAN"), and ends
// with "OK [text]" or "ERR code text". Lines are at most 1000 bytes; in D
// lines '%', CR and LF are percent-escaped, and the client may send its
// data in as many D lines as it needs.
//
// A process reaches the agent through a Session (session.go), whose rule
// for finding it is the only one: the dialing functions are its alone.
package agent

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pgpstream/pgpstream/keygrip"
)

// maxLine is Assuan's line limit, the LF included.
const maxLine = 1000

// Error is an ERR line: the GnuPG error code (source in the high bits)
// and its text.
type Error struct {
	Code uint32
	Text string
}

func (e *Error) Error() string { return fmt.Sprintf("gpg-agent: %s (code %d)", e.Text, e.Code&0xffff) }

// Common GnuPG error codes (libgpg-error's gpg_err_code_t), low 16 bits.
const (
	codeNoSecretKey   = 17
	codeBadPassphrase = 11
	codeCanceled      = 99
	codeNotFound      = 27
)

// ErrNoSecretKey: the agent does not hold the key.
var ErrNoSecretKey = errors.New("gpg-agent holds no secret key with this keygrip")

// ErrBadPassphrase: the passphrase given does not unlock the key.
var ErrBadPassphrase = errors.New("bad passphrase")

// Is lets errors.Is test an agent error against this package's errors.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNoSecretKey:
		return e.Code&0xffff == codeNoSecretKey
	case ErrBadPassphrase:
		return e.Code&0xffff == codeBadPassphrase
	}
	return false
}

// Conn is one Assuan connection to a gpg-agent. It is not safe for
// concurrent use.
type Conn struct {
	c net.Conn
	r *bufio.Reader
	// Inquire answers the agent's inquiries other than those a method
	// handles itself (INQUIRE PINENTRY_LAUNCHED is answered empty).
	Inquire func(keyword, args string) ([]byte, error)
	// Status is given every status line.
	Status func(keyword, args string)
	// MayAsk, when set, is called before each request the agent may
	// answer by showing a pinentry (PKDECRYPT, PKSIGN, PASSWD,
	// GET_PASSPHRASE), and what it returns after the answer: the caller
	// keeps its own output off the terminal meanwhile.
	MayAsk func() (done func())

	desc string       // the last SETKEYDESC text, for a loopback prompt
	grip keygrip.Grip // the key of the operation under way (see Asking)

	kek         []byte // KEYWRAP_KEY --export's key, for ExportKey
	exportNonce string // the last EXPORT_KEY's cache nonce

	mode string // the pinentry mode last set (OPTION pinentry-mode); "": the agent's own
	busy bool   // a command is under way (an inquiry is being answered)
}

// socketPath is the agent socket of the GnuPG home dir, as gpgconf
// reports it (gpg 2.1.13+ may put it under /run/user when home is the
// default one), else home/S.gpg-agent.
func socketPath(home string) string {
	cmd := exec.Command("gpgconf", "--homedir", home, "--list-dirs", "agent-socket")
	if out, err := cmd.Output(); err == nil {
		if p := strings.TrimSpace(string(out)); p != "" {
			return unescapeColons(p)
		}
	}
	return filepath.Join(home, "S.gpg-agent")
}

// gpgconf percent-escapes ':' and '%' in paths.
func unescapeColons(s string) string {
	if b, err := unescape([]byte(s)); err == nil {
		return string(b)
	}
	return s
}

// launch starts the home's agent if it is not running, as gpg does
// (gpgconf --homedir HOME --launch gpg-agent).
func launch(home string) error {
	cmd := exec.Command("gpgconf", "--homedir", home, "--launch", "gpg-agent")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("gpgconf --launch gpg-agent: %v: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// dialStart connects to the agent of the GnuPG home, starting it if
// needed, and reads its greeting (for Session, whose rule says when).
func dialStart(home string) (*Conn, error) {
	path := socketPath(home)
	c, err := net.Dial("unix", path)
	if err != nil {
		if lerr := launch(home); lerr != nil {
			return nil, fmt.Errorf("gpg-agent at %s: %v; %v", path, err, lerr)
		}
		c, err = net.Dial("unix", path)
		if err != nil {
			return nil, fmt.Errorf("gpg-agent at %s: %w", path, err)
		}
	}
	return greet(c, path)
}

// greet reads the agent's greeting on a new connection c to path.
func greet(c net.Conn, path string) (*Conn, error) {
	conn := &Conn{c: c, r: bufio.NewReaderSize(c, 4*maxLine)}
	if _, err := conn.readResponse(); err != nil {
		c.Close()
		return nil, fmt.Errorf("gpg-agent at %s: greeting: %w", path, err)
	}
	return conn, nil
}

// Close says BYE and closes the connection.
func (c *Conn) Close() error {
	c.c.SetDeadline(time.Now().Add(time.Second))
	c.writeLine("BYE")
	return c.c.Close()
}

func (c *Conn) writeLine(s string) error {
	if len(s)+1 > maxLine {
		return fmt.Errorf("assuan: line of %d bytes is over the %d-byte limit", len(s)+1, maxLine)
	}
	_, err := io.WriteString(c.c, s+"\n")
	return err
}

// Transact sends one command and returns the data of its D lines,
// answering inquiries through Inquire.
func (c *Conn) Transact(cmd string) ([]byte, error) {
	if strings.ContainsAny(cmd, "\r\n") {
		return nil, errors.New("assuan: a command may not contain a line break")
	}
	if c.busy {
		// An inquiry's answer that sends a command of its own would
		// put the connection out of step with the agent.
		return nil, errors.New("assuan: a command sent while another is under way")
	}
	c.busy = true
	defer func() { c.busy = false }()
	if err := c.writeLine(cmd); err != nil {
		return nil, err
	}
	return c.readResponse()
}

// mayAsk brackets a request that may show a pinentry (see MayAsk).
func (c *Conn) mayAsk() (done func()) {
	if c.MayAsk == nil {
		return func() {}
	}
	return c.MayAsk()
}

func (c *Conn) readResponse() ([]byte, error) {
	var data []byte
	for {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			if err == bufio.ErrBufferFull || len(line) >= maxLine {
				return nil, errors.New("assuan: the agent sent a line over the limit")
			}
			return nil, fmt.Errorf("assuan: reading the agent's answer: %w", err)
		}
		line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
		word, rest, _ := bytes.Cut(line, []byte(" "))
		switch string(word) {
		case "OK":
			return data, nil
		case "ERR":
			code, text, _ := strings.Cut(string(rest), " ")
			n, _ := strconv.ParseUint(code, 10, 32)
			return nil, &Error{uint32(n), text}
		case "D":
			d, err := unescape(rest)
			if err != nil {
				return nil, err
			}
			data = append(data, d...)
		case "S":
			if c.Status != nil {
				kw, args, _ := strings.Cut(string(rest), " ")
				c.Status(kw, args)
			}
		case "#":
		case "INQUIRE":
			kw, args, _ := strings.Cut(string(rest), " ")
			if err := c.answer(kw, args); err != nil {
				return nil, err
			}
		default:
			if len(word) == 0 {
				continue
			}
			return nil, fmt.Errorf("assuan: unexpected line %q from the agent", truncate(line))
		}
	}
}

func truncate(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}

func (c *Conn) answer(kw, args string) error {
	var value []byte
	var err error
	switch {
	case kw == "PINENTRY_LAUNCHED":
	case c.Inquire != nil:
		value, err = c.Inquire(kw, args)
	default:
		err = fmt.Errorf("no answer to the agent's inquiry %s", kw)
	}
	if err != nil {
		// CAN makes the agent end the command with an error; read it so
		// the connection stays in step, but report ours.
		c.writeLine("CAN")
		c.readResponse()
		return err
	}
	if err := c.sendData(value); err != nil {
		return err
	}
	return c.writeLine("END")
}

// sendData writes value as D lines, each escaped and within the limit.
func (c *Conn) sendData(value []byte) error {
	const room = maxLine - len("D \n") - 2 // an escape may take 3 bytes for 1
	line := make([]byte, 0, maxLine)
	for len(value) > 0 {
		line = append(line[:0], "D "...)
		for len(value) > 0 && len(line) < room {
			b := value[0]
			value = value[1:]
			if b == '%' || b == '\r' || b == '\n' {
				line = append(line, '%', "0123456789ABCDEF"[b>>4], "0123456789ABCDEF"[b&15])
			} else {
				line = append(line, b)
			}
		}
		line = append(line, '\n')
		if _, err := c.c.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// unescape undoes Assuan's percent-escaping.
func unescape(b []byte) ([]byte, error) {
	if bytes.IndexByte(b, '%') < 0 {
		return append([]byte(nil), b...), nil
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '%' {
			out = append(out, b[i])
			continue
		}
		if i+2 >= len(b) {
			return nil, errors.New("assuan: truncated percent escape")
		}
		v, err := strconv.ParseUint(string(b[i+1:i+3]), 16, 8)
		if err != nil {
			return nil, fmt.Errorf("assuan: bad percent escape %q", b[i:i+3])
		}
		out = append(out, byte(v))
		i += 2
	}
	return out, nil
}

// escapeArg percent-escapes a command argument (spaces, '+', '%' and
// control characters), as SETKEYDESC wants its text.
func escapeArg(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b <= ' ' || b == '+' || b == '%' || b == 0x7f {
			fmt.Fprintf(&sb, "%%%02X", b)
		} else {
			sb.WriteByte(b)
		}
	}
	return sb.String()
}
