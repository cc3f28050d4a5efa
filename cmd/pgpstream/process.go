package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/output"
)

// setupProcess prepares the process before any secret is read:
//
//   - No core dumps: a dump of a process holding a passphrase, a secret
//     key or plaintext would leave them on disk (gpg does the same).
//     RLIMIT_CORE is set to 0, hard limit too, and the process is made
//     non-dumpable, which also keeps other processes of the same user
//     from reading its memory through ptrace or /proc/PID/mem.
//   - SIGPIPE: asked for, so that a write to a closed pipe returns EPIPE
//     on every descriptor, standard output and error included, instead of
//     killing the process: the error path then runs, removes what it must
//     and says what happened.
//   - SIGINT, SIGTERM, SIGHUP and SIGQUIT remove the named temporary
//     files (see internal/atomicfile) and end the process with exit status 2 and one
//     line, with no Go stack dump for SIGQUIT; once the run has ended,
//     installing its outputs, they are too late to change its outcome
//     (output.Interrupt).
func setupProcess() {
	unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{Cur: 0, Max: 0})
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)

	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	go func() {
		for range pipe {
			// The write that raised it fails with EPIPE.
		}
	}()

	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	go func() {
		sig := <-ch
		if !output.Interrupt() {
			return
		}
		fmt.Fprintf(os.Stderr, "pgpstream: error: interrupted by %v\n", sig)
		os.Exit(exitError)
	}()
}

// watchWriter passes writes to w and records the first failure in the
// state: a reader of standard error or of the status lines that went
// away (EPIPE), a full disk under --status-file.
type watchWriter struct {
	w    io.Writer
	name string
	st   *state
}

func (s *state) watch(w io.Writer, name string) io.Writer {
	return &watchWriter{w: w, name: name, st: s}
}

func (w *watchWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		e := fmt.Errorf("writing to %s: %w", w.name, err)
		w.st.broken.CompareAndSwap(nil, &e)
	}
	return n, err
}

// unwatched returns the writer under a watchWriter.
func unwatched(w io.Writer) io.Writer {
	if ww, ok := w.(*watchWriter); ok {
		return ww.w
	}
	return w
}

// streamsBroken returns the first write error on standard error or the
// status stream, or nil.
func (s *state) streamsBroken() error {
	if e := s.broken.Load(); e != nil {
		return *e
	}
	return nil
}
