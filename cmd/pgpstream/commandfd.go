package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
)

// askBool asks a yes-or-no question the way gpg does (its
// cpr_get_answer_is_yes), through the invocation's asker (prompt.go):
// with --command-fd or --command-file the question is the status line
// GET_BOOL KEYWORD and the answer one line from there, acknowledged with
// GOT_IT, which is how GPGME and Emacs answer gpg. Otherwise text and the
// question go to the terminal. No terminal, --no-tty, or the end of the
// command stream is a "no"; so is anything but y or yes. Unlike the
// asker's yesNo, --yes does not answer it: gpg asks about an untrusted key
// whatever --yes says. Callers decide whether to ask at all: under
// --batch gpg asks nothing.
func askBool(st *state, o *options, keyword, text, question string) (bool, error) {
	a, err := askerOf(st, o)
	if err != nil {
		return false, err
	}
	if a.cmd != nil {
		line, err := a.command(status.GetBool{Key: keyword})
		if errors.Is(err, errCommandEOF) {
			a.status.Write(status.GotIt{}) // as gpg writes it at the end of its input
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return isYes(string(line)), nil
	}
	if o.noTTY {
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
	return isYes(line), nil
}
