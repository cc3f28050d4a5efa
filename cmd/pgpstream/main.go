// Command pgpstream encrypts and decrypts OpenPGP messages at the speed of
// the cryptographic primitives, with GnuPG's command-line spellings.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/agent"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/ask"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/hint"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/output"
	"github.com/pgpstream/pgpstream/internal/escape"
	"github.com/pgpstream/pgpstream/keyring"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes follow gpg: 0 success, 1 a bad signature, 2 any error.
const (
	exitOK    = 0
	exitBad   = 1
	exitError = 2
)

func main() {
	os.Exit(processMain())
}

// processMain is main for a process of its own: it sets up what belongs
// to the process (signals, core dumps) and runs the command.
func processMain() int {
	setupProcess()
	return run(os.Args, os.Stdin, os.Stdout, os.Stderr)
}

// run is main without the process: the CLI tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if code, ok := runSOP(args, stdin, stdout, stderr); ok {
		return code
	}
	st := &state{stdin: stdin, stdout: stdout, prog: progName(args)}
	st.stderr = st.watch(stderr, "standard error")
	err := execute(st, args)
	err = st.endOutputs(err)
	st.cleanup()
	if err == nil {
		if berr := st.streamsBroken(); berr != nil {
			// The command's messages or status lines were lost:
			// its caller cannot know what happened, so it failed.
			st.errorf("%s", oneLine(berr.Error()))
			return exitError
		}
		return st.exit
	}
	var ue usageError
	if errors.As(err, &ue) {
		st.errorf("%s", ue.msg)
		for _, h := range ue.hints {
			st.hintf("%s", h)
		}
		return exitError
	}
	var he hintedError
	if errors.As(err, &he) {
		st.errorf("%s", oneLine(he.Err.Error()))
		for _, h := range he.Hints {
			st.hintf("%s", h)
		}
		return exitError
	}
	st.errorf("%s", oneLine(err.Error()))
	for _, h := range hintsFor(err) {
		st.hintf("%s", h)
	}
	return exitError
}

// oneLine keeps an error on one line, whatever a library put in it.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.ReplaceAll(s, "\n", " ")
}

// usageError is a mistake on the command line.
type usageError struct {
	msg   string
	hints []string
}

func (u usageError) Error() string { return u.msg }

func usagef(format string, args ...any) usageError {
	return usageError{msg: fmt.Sprintf(format, args...)}
}

// hintedError carries hints naming the flags that would help; the
// packages below main give them too (internal/hint).
type hintedError = hint.Error

func withHints(err error, hints ...string) error { return hint.With(err, hints...) }

// state is one invocation's context.
type state struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	exit           int
	quiet, verbose bool
	keyidFormat    string // --keyid-format, for the key IDs of messages (keystr)
	prog           string // the name messages begin with (see progName)
	cleanups       []func()
	outputs        output.Pending        // output files waiting for the run's end (finishOutputs)
	broken         atomic.Pointer[error] // the first write error on stderr or the status stream
	// signerOwners are the certificates of the keys signersFor chose,
	// for the status lines that name a signer's primary key.
	signerOwners map[*gcpacket.PrivateKey]*keyring.Key
	progress     *progress // the progress shown, while it is (progress.go)
	// agent is the invocation's one gpg-agent session, once made
	// (agentSession, prompt.go); on state, not options, so that the
	// copies --multifile makes of the options share it.
	agent *agent.Session
	// ask is the questions' channel, once opened (askerOf), and
	// statusFile the --status-file writer, once created (openStatus):
	// one each per invocation, shared by --multifile's runs, so that
	// the command fd is read in order and the status file is not
	// truncated by the second file's run.
	ask        *ask.Asker
	statusFile *statusWriter
	homeNoted  bool // the GnuPG home was checked (openRing)
	// homeNotices are the facts of a home told (notice), each once.
	homeNotices map[homeNotice]bool
}

// Every line pgpstream writes to standard error (or --logger-fd) goes
// through say: it is rendered whole by escape.Human, so a user ID, a
// file name, a keyserver's answer or a library's error text can neither
// end the line early (and forge a "Good signature" line that a script
// greps) nor send a control sequence to the terminal.
func (s *state) say(format string, args ...any) { s.sayAs("", format, args...) }

func (s *state) sayAs(kind, format string, args ...any) {
	msg := escape.Human(fmt.Sprintf(format, args...))
	io.WriteString(s.stderr, s.prog+": "+kind+msg+"\n")
}

// sayMore continues the last message on a line of its own, without the
// program's name: gpg's indented second lines.
func (s *state) sayMore(format string, args ...any) {
	io.WriteString(s.stderr, escape.Human(fmt.Sprintf(format, args...))+"\n")
}

func (s *state) errorf(format string, args ...any) { s.sayAs("error: ", format, args...) }

func (s *state) warnf(format string, args ...any) {
	if !s.quiet {
		s.sayAs("warning: ", format, args...)
	}
}

func (s *state) hintf(format string, args ...any) { s.sayAs("hint: ", format, args...) }

func (s *state) infof(format string, args ...any) {
	if s.verbose && !s.quiet {
		s.say(format, args...)
	}
}

func (s *state) onCleanup(f func()) { s.cleanups = append(s.cleanups, f) }

func (s *state) cleanup() {
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		s.cleanups[i]()
	}
	s.cleanups = nil
}
