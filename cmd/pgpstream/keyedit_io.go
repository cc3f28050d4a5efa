package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/ask"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/internal/escape"
)

// menuIO is how the key edit menu and the commands that certify keys
// talk, as gpg's tty and cpr functions do: questions go to --command-fd
// (GET_LINE and GET_BOOL on the status stream, the answer a line from
// the descriptor) when there is one, else to the terminal; what gpg
// shows on its terminal goes to the terminal, to nothing with --no-tty,
// and to standard error when there is no terminal.
type menuIO struct {
	st  *state
	o   *options
	a   *ask.Asker
	tty *os.File  // the controlling terminal, when open
	out io.Writer // where the menu's text goes
}

// errBatchInput is gpg's refusal to ask in --batch without a command fd.
var errBatchInput = errors.New("Sorry, we are in batchmode - can't get input")

func newMenuIO(st *state, o *options) (*menuIO, error) {
	a, err := askerOf(st, o)
	if err != nil {
		return nil, err
	}
	m := &menuIO{st: st, o: o, a: a, out: st.stderr}
	if o.noTTY {
		m.out = io.Discard
	} else if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		m.tty, m.out = f, f
		st.onCleanup(func() { f.Close() })
	}
	return m, nil
}

// show writes lines of the menu's text; every byte from a key goes
// through escape.Human, so a user ID cannot move the terminal's cursor.
func (m *menuIO) show(format string, args ...any) {
	io.WriteString(m.out, escape.Human(fmt.Sprintf(format, args...))+"\n")
}

// blank writes an empty line.
func (m *menuIO) blank() { io.WriteString(m.out, "\n") }

// getLine asks for a line (gpg's cpr_get): io.EOF when the command fd or
// the terminal ended.
func (m *menuIO) getLine(keyword, prompt string) (string, error) {
	return m.ask(status.GetLine{Key: keyword}, prompt)
}

func (m *menuIO) ask(q status.Question, prompt string) (string, error) {
	switch {
	case m.a.HasCommand():
		l, err := m.a.Command(q)
		if errors.Is(err, errCommandEOF) {
			return "", io.EOF
		}
		return strings.TrimSpace(string(l)), err
	case m.o.batch:
		return "", errBatchInput
	case m.tty == nil:
		return "", withHints(errors.New("no terminal to ask on"), "answer on --command-fd N, as gpg's clients do")
	}
	fmt.Fprint(m.tty, prompt)
	l, err := ask.ReadLine(m.tty)
	if err != nil {
		fmt.Fprintln(m.tty)
		return "", io.EOF
	}
	return strings.TrimSpace(string(l)), nil
}

// getBool asks a yes-or-no question (gpg's cpr_get_answer_is_yes): on
// the command fd if there is one; else in --batch --yes is the answer,
// and without it gpg's refusal to ask; else on the terminal. The end of
// the input is a no.
func (m *menuIO) getBool(keyword, prompt string) (bool, error) {
	if !m.a.HasCommand() && m.o.batch {
		if m.o.yes {
			return true, nil
		}
		return false, errBatchInput
	}
	l, err := m.ask(status.GetBool{Key: keyword}, prompt)
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	return err == nil && ask.IsYes(l), err
}

// hidden asks for a new passphrase (typed twice on a terminal).
func (m *menuIO) hidden(desc string) ([]byte, error) {
	return m.a.NewPassphrase(desc)
}
