package main

import (
	"io"
	"os"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/output"
)

// Where a command's result goes is package output (internal/output): a
// file that takes its name only when the run ended well, or a stream
// with the hold-back. Here the options and the invocation are handed
// over to it.

// outputConfig is what the options and the invocation decided about
// outputs.
func outputConfig(st *state, o *options) *output.Config {
	return &output.Config{
		Yes:              o.yes,
		Fsync:            o.fsync,
		AllowUnprotected: o.allowUnprotected,
		// Only a message's bytes, and nothing else on the descriptor.
		AsyncStdout: (o.cmd == commandDecrypt || o.cmd == commandEncrypt) && o.statusFd != 1 && o.loggerFd != 1,
		Stdout:      st.stdout,
		StdoutFile:  unwatched(st.stdout),
		Caller:      callerFile,
		Overwrite:   func(path string) (string, error) { return askOverwrite(st, o, path) },
		OnCleanup:   st.onCleanup,
		Broken:      st.streamsBroken,
		Pending:     &st.outputs,
	}
}

// target is where a file argument sends an output.
func (a fileArg) target() output.Target {
	return output.Target{Path: a.path, FD: a.fd, IsFD: a.isFD}
}

// openOutput opens target (none or "-" for standard output, -&N for the
// caller's descriptor) as output.Open does. With hold, what goes to a
// stream is held back (output.Holdback) until commit.
func openOutput(st *state, o *options, target fileArg, hold bool) (*output.Output, error) {
	return output.Open(outputConfig(st, o), target.target(), hold, 0o666)
}

// newEmbeddedOutput returns the output of --use-embedded-filename, which
// cmdDecrypt writes to, and the opener its Literal event calls.
func newEmbeddedOutput(st *state, o *options, inName string) (*output.Output, *output.Embedded) {
	return output.NewEmbedded(outputConfig(st, o), inName)
}

// endOutputs is finishOutputs at the end of the run.
func (s *state) endOutputs(err error) error { return s.outputs.End(err, s.outcome()) }

// finishOutputs settles the output files made so far (--multifile does,
// after each file): they take their names when the run ended well (no
// error, exit status 0, every message and status line delivered), else
// they are dropped. It returns the run's error.
func (s *state) finishOutputs(err error) error { return s.outputs.Finish(err, s.outcome()) }

// outcome is how the run ended, for its outputs.
func (s *state) outcome() output.Outcome {
	return output.Outcome{
		OK:        s.exit == exitOK,
		Unchecked: s.exit == exitError,
		Broken:    s.streamsBroken,
		Dropped:   func(name string) { s.errorf("%s was not written: %s", name, exitReason(s.exit)) },
	}
}

// exitReason says why a run with no error has a non-zero exit status:
// its signatures (the exit codes of sigReporter.exit).
func exitReason(code int) string {
	if code == exitBad {
		return "a signature is bad"
	}
	return "a signature could not be checked"
}

// sameFile reports whether the input and output name one file; out may
// be the caller's descriptor.
func sameFile(in string, out fileArg) bool {
	if !out.isFD {
		return output.SamePath(in, out.path)
	}
	if in == "" || in == "-" || out.std() {
		return false
	}
	a, err1 := os.Stat(in)
	b, err2 := out.stat()
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// openInput opens the one input file, or standard input (see openArg).
func openInput(st *state, o *options) (io.Reader, string, func(), error) {
	switch len(o.args) {
	case 0:
		output.GrowPipe(st.stdin)
		return st.stdin, "", func() {}, nil
	case 1:
	default:
		return nil, "", nil, usagef("give at most one input file (got %d)", len(o.args))
	}
	return openArg(st, o, o.args[0])
}
