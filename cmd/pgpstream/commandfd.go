package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// askBool asks a yes-or-no question the way gpg does (its
// cpr_get_answer_is_yes). With --command-fd N the question is the status
// line GET_BOOL KEYWORD and the answer one line read from N, acknowledged
// with GOT_IT: that is how GPGME and Emacs answer gpg. Otherwise the text
// and the question go to the terminal. No terminal, --no-tty, or the end
// of the command stream is a "no"; so is anything but y or yes. Callers
// decide whether to ask at all: under --batch gpg asks nothing.
func askBool(st *state, o *options, status *statusWriter, keyword, text, question string) (bool, error) {
	if o.commandFd >= 0 {
		status.line("GET_BOOL", keyword)
		line, err := readAnswerLine(st, o.commandFd)
		status.line("GOT_IT")
		if err != nil {
			return false, err
		}
		return answerIsYes(line), nil
	}
	if o.noTTY {
		return false, nil
	}
	return promptYesNo(text, question)
}

// readAnswerLine reads one answer line from the command descriptor. It
// reads a byte at a time, as gpg does, so that when the descriptor is
// standard input the message that follows the answers is left unread.
func readAnswerLine(st *state, fd int) (string, error) {
	var r io.Reader = st.stdin
	if fd != 0 {
		f := os.NewFile(uintptr(fd), fmt.Sprintf("fd %d", fd))
		if f == nil {
			return "", usagef("--command-fd %d: not an open file descriptor", fd)
		}
		r = f
	}
	var b strings.Builder
	var c [1]byte
	for b.Len() < 4096 {
		n, err := r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' {
				return strings.TrimSuffix(b.String(), "\r"), nil
			}
			b.WriteByte(c[0])
			continue
		}
		if errors.Is(err, io.EOF) {
			if b.Len() > 0 {
				return b.String(), nil
			}
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("--command-fd %d: %w", fd, err)
		}
	}
	return "", fmt.Errorf("--command-fd %d: answer line too long", fd)
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
	return answerIsYes(line), nil
}

// answerIsYes is gpg's reading of an answer: y or yes, in any case.
func answerIsYes(answer string) bool {
	a := strings.ToLower(strings.TrimSpace(answer))
	return a == "y" || a == "yes"
}
