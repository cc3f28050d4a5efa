// Package ask is how pgpstream asks its user, in gpg's order:
//
//  1. --passphrase, --passphrase-file, --passphrase-fd: the one passphrase
//     given, for every key and message of the command (Passphrases).
//  2. gpg-agent's cache, under gpg's cache ids: the keygrip for a secret
//     key of pgpstream's own ring, "S" and the hex of the S2K salt for a
//     message's passphrase (not with --no-symkey-cache). A passphrase that
//     turns out wrong is cleared from it, as gpg clears it.
//  3. Asking: through the agent, whose pinentry asks (outside --batch,
//     unless --pinentry-mode loopback) and caches the answer; in loopback
//     mode the agent asks pgpstream back, which asks as in 4, and the
//     agent caches that answer too.
//  4. --command-fd N (or --command-file): gpg's command protocol. The
//     question goes to the status stream ("[GNUPG:] GET_HIDDEN
//     passphrase.enter", GET_BOOL or GET_LINE with the question's
//     keyword), one line is read from N as the answer, and "[GNUPG:]
//     GOT_IT" follows. The line is read only when a question is asked, so
//     with --command-fd 0 the message on standard input comes after it,
//     as clients (Emacs EPG, GPGME) write it. Otherwise the terminal,
//     never standard input, outside --batch and --no-tty.
//
// --pinentry-mode cancel or error asks nothing: only 1 applies.
//
// The command fills a Config once from its options and makes one Asker
// per invocation; nothing here knows the options.
package ask

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pgpstream/pgpstream/agent"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/hint"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
)

// Config is what the options decided about asking.
type Config struct {
	Yes   bool // --yes: answers the questions it may answer
	Batch bool // --batch: asks nothing outside the command fd
	NoTTY bool // --no-tty: never the terminal
	// PinentryMode is --pinentry-mode: "cancel" and "error" ask
	// nothing, "loopback" has the agent ask back; "" or "ask" the
	// agent's own pinentry.
	PinentryMode  string
	NoSymkeyCache bool // --no-symkey-cache: no cache id for a message's passphrase

	// Command is --command-fd or --command-file, opened; nil without.
	Command io.Reader
	// Status is where the GET_* lines and the announcements before a
	// question go (nil: nowhere).
	Status *status.Writer
	// Session is the invocation's gpg-agent session, which the keyring
	// shares; called the first time a passphrase is asked.
	Session func() *agent.Session
	// Hold keeps the progress line away while a question is asked; the
	// function it returns ends that. Nil: nothing to hold.
	Hold func() (release func())
	// Infof tells what --verbose tells.
	Infof func(format string, args ...any)
}

// Asker is an invocation's way of asking questions: its command fd, its
// agent (the connection of the invocation's agent session, which the
// keyring shares). One per invocation, so a descriptor is read in order.
type Asker struct {
	cfg        Config
	conn       *agent.Conn
	agentTried bool
	hint       func() // announces the next question (UnlockKey)
}

// New returns the asker that cfg describes.
func New(cfg Config) *Asker {
	if cfg.Hold == nil {
		cfg.Hold = func() func() { return func() {} }
	}
	if cfg.Infof == nil {
		cfg.Infof = func(string, ...any) {}
	}
	return &Asker{cfg: cfg}
}

// HasCommand reports whether the questions go to a command fd.
func (a *Asker) HasCommand() bool { return a.cfg.Command != nil }

// ErrCommandEOF: the command fd ended before it answered.
var ErrCommandEOF = errors.New("the command fd ended before answering")

// ErrNoPassphrase: a passphrase was needed, none was given and none
// could be asked.
var ErrNoPassphrase = errors.New("a passphrase is needed and none was given")

// Command asks one question on the command fd: GET_<kind> keyword, one
// line read (without reading past it), GOT_IT.
func (a *Asker) Command(q status.Question) ([]byte, error) {
	a.cfg.Status.Write(q)
	kind, keyword := q.Keyword(), q.Name()
	line, err := ReadLine(a.cfg.Command)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%s %s: %w", kind, keyword, ErrCommandEOF)
		}
		return nil, fmt.Errorf("reading the answer to %s from the command fd: %w", keyword, err)
	}
	a.cfg.Status.Write(status.GotIt{})
	return line, nil
}

// ReadLine reads up to a newline a byte at a time, never past it
// (what follows on the descriptor may be the message), and tells an
// answer from the end of the descriptor: io.ErrUnexpectedEOF when not a
// byte came. A line is at most 64 KiB; a CR before the LF is dropped.
func ReadLine(r io.Reader) ([]byte, error) {
	var out []byte
	var b [1]byte
	for len(out) < 64<<10 {
		n, err := r.Read(b[:])
		if n == 1 {
			if b[0] == '\n' {
				return bytes.TrimSuffix(out, []byte("\r")), nil
			}
			out = append(out, b[0])
		}
		if err == io.EOF {
			if len(out) == 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return bytes.TrimSuffix(out, []byte("\r")), nil
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// YesNo asks a question gpg asks with cpr_get_answer_is_yes: --yes
// answers it, --batch says no without asking; else the command fd or
// the terminal (y/N). With neither, the answer is no.
func (a *Asker) YesNo(keyword, question string) (bool, error) {
	defer a.cfg.Hold()()
	switch {
	case a.cfg.Yes:
		return true, nil
	case a.cfg.Batch:
		return false, nil
	case a.cfg.Command != nil:
		line, err := a.Command(status.GetBool{Key: keyword})
		if err != nil {
			return false, err
		}
		return IsYes(string(line)), nil
	}
	if a.cfg.NoTTY {
		return false, nil
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return false, nil
	}
	defer tty.Close()
	fmt.Fprintf(tty, "%s (y/N) ", question)
	line, _ := ReadLine(tty)
	return IsYes(string(line)), nil
}

// Line asks for a line of text (GET_LINE); "" when it cannot be asked.
func (a *Asker) Line(keyword, question string) (string, error) {
	defer a.cfg.Hold()()
	if a.cfg.Batch {
		return "", nil
	}
	if a.cfg.Command != nil {
		l, err := a.Command(status.GetLine{Key: keyword})
		return strings.TrimSpace(string(l)), err
	}
	if a.cfg.NoTTY {
		return "", nil
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return "", nil
	}
	defer tty.Close()
	fmt.Fprintf(tty, "%s ", question)
	l, _ := ReadLine(tty)
	return strings.TrimSpace(string(l)), nil
}

// IsYes reports whether an answer is yes: y or yes, in any case.
func IsYes(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return s == "y" || s == "yes"
}

// Bool asks a yes-or-no question the way gpg does (its
// cpr_get_answer_is_yes): with --command-fd or --command-file the
// question is the status line GET_BOOL KEYWORD and the answer one line
// from there, acknowledged with GOT_IT, which is how GPGME and Emacs
// answer gpg. Otherwise text and the question go to the terminal. No
// terminal, --no-tty, or the end of the command stream is a "no"; so is
// anything but y or yes. Unlike YesNo, --yes does not answer it: gpg
// asks about an untrusted key whatever --yes says. Callers decide
// whether to ask at all: under --batch gpg asks nothing.
func (a *Asker) Bool(keyword, text, question string) (bool, error) {
	if a.cfg.Command != nil {
		line, err := a.Command(status.GetBool{Key: keyword})
		if errors.Is(err, ErrCommandEOF) {
			a.cfg.Status.Write(status.GotIt{}) // as gpg writes it at the end of its input
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return IsYes(string(line)), nil
	}
	if a.cfg.NoTTY {
		return false, nil
	}
	return promptYesNo(text, question)
}

// promptYesNo writes text and then question to the controlling terminal
// and reads the answer there (never from standard input, which may carry
// the message). No terminal is a "no".
func promptYesNo(text, question string) (bool, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return false, nil
	}
	defer tty.Close()
	fmt.Fprint(tty, text)
	fmt.Fprint(tty, question)
	line, err := bufio.NewReader(tty).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(tty)
		return false, nil
	}
	return IsYes(line), nil
}

// Overwrite is gpg's question before an existing output file is
// replaced without --yes (openfile.overwrite.okay); refused, it asks for
// another name (openfile.askoutname). It returns the path to write, or
// the error that nothing may be written.
func (a *Asker) Overwrite(path string) (string, error) {
	refused := hint.With(fmt.Errorf("output file %s exists", path), "use --yes to overwrite it")
	if a.cfg.Command == nil && (a.cfg.Batch || a.cfg.NoTTY || !haveTTY()) {
		return "", refused
	}
	ok, err := a.YesNo("openfile.overwrite.okay", fmt.Sprintf("File '%s' exists. Overwrite?", path))
	if err != nil {
		return "", err
	}
	if ok {
		return path, nil
	}
	name, err := a.Line("openfile.askoutname", "Enter new filename:")
	if err != nil {
		return "", err
	}
	if name == "" || name == path {
		return "", refused
	}
	return name, nil
}

func haveTTY() bool {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	tty.Close()
	return true
}
