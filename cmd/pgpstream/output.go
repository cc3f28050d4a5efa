package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// holdback is how much decrypted plaintext pgpstream keeps back from
// standard output until the message is authenticated. Messages up to this
// size are never released unauthenticated; a longer one has to stream,
// and a failed check then ends it with an error and a non-zero exit.
// 8 MiB covers the mail-sized messages most exposed to tampering, at a
// memory cost that stays flat for any message size.
const holdback = 8 << 20

// output is where a command writes: a file that appears only on success,
// or standard output.
type output struct {
	w        io.Writer
	terminal bool // standard output is a terminal
	commit   func() error
	abort    func()
	released func() bool // whether any plaintext reached standard output
	stream   func()      // stop holding back: write through from now on
	private  bool        // a file output is made 0600 (secret key data), not 0666 less the umask
}

// temps are the temporary files of this process, removed on a signal.
var temps struct {
	sync.Mutex
	names map[string]bool
	once  sync.Once
}

func trackTemp(name string, add bool) {
	temps.Lock()
	defer temps.Unlock()
	if temps.names == nil {
		temps.names = map[string]bool{}
	}
	if add {
		temps.names[name] = true
	} else {
		delete(temps.names, name)
	}
	temps.once.Do(func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		go func() {
			sig := <-ch
			temps.Lock()
			for n := range temps.names {
				os.Remove(n)
			}
			temps.Unlock()
			fmt.Fprintf(os.Stderr, "pgpstream: error: interrupted by %v; no output written\n", sig)
			os.Exit(exitError)
		}()
	})
}

// openOutput opens path ("" or "-" for standard output). With hold, what
// goes to standard output is held back (see holdback) until commit.
func openOutput(st *state, c *cli.Context, path string, hold bool) (*output, error) {
	if path == "" || path == "-" {
		growPipe(st.stdout)
		o := &output{w: st.stdout, commit: func() error { return nil }, abort: func() {}, released: func() bool { return true }, stream: func() {}}
		if f, ok := st.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			o.terminal = true
		}
		if hold {
			h := &holdWriter{dst: st.stdout}
			o.w = h
			o.commit = h.flush
			o.abort = func() { h.buf = nil }
			o.released = func() bool { return h.streaming }
			o.stream = func() { h.flush() }
		}
		return o, nil
	}
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return nil, fmt.Errorf("output %s is a directory", path)
		}
		if !c.Bool("yes") {
			return nil, withHints(fmt.Errorf("output file %s exists", path), "use --yes to overwrite it")
		}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".pgpstream-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("creating the output: %w", err)
	}
	trackTemp(f.Name(), true)
	st.onCleanup(func() {
		// Runs after commit (a no-op then) or when a command failed.
		f.Close()
		os.Remove(f.Name())
		trackTemp(f.Name(), false)
	})
	o := &output{w: f, released: func() bool { return false }, stream: func() {}}
	o.abort = func() {
		f.Close()
		os.Remove(f.Name())
		trackTemp(f.Name(), false)
	}
	o.commit = func() error {
		mode := 0o666 &^ umask()
		if o.private {
			mode = 0o600
		}
		if err := f.Chmod(mode); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		if err := os.Rename(f.Name(), path); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		trackTemp(f.Name(), false)
		return nil
	}
	return o, nil
}

var umask = sync.OnceValue(func() os.FileMode {
	m := syscall.Umask(0o022)
	syscall.Umask(m)
	return os.FileMode(m)
})

// holdWriter keeps up to holdback bytes, then streams.
type holdWriter struct {
	dst       io.Writer
	buf       []byte
	streaming bool
}

func (h *holdWriter) Write(p []byte) (int, error) {
	if h.streaming {
		return h.dst.Write(p)
	}
	if len(h.buf)+len(p) <= holdback {
		if h.buf == nil {
			// One allocation of the whole bound: appending would
			// double its way there and leave the smaller copies for
			// the collector, raising the peak. Untouched pages of it
			// cost no memory.
			h.buf = make([]byte, 0, holdback)
		}
		h.buf = append(h.buf, p...)
		return len(p), nil
	}
	if err := h.flush(); err != nil {
		return 0, err
	}
	return h.dst.Write(p)
}

func (h *holdWriter) flush() error {
	h.streaming = true
	if len(h.buf) == 0 {
		return nil
	}
	_, err := h.dst.Write(h.buf)
	h.buf = nil
	return err
}

// sameFile reports whether the input and output name one file.
func sameFile(in, out string) bool {
	if in == "" || in == "-" || out == "" || out == "-" {
		return false
	}
	a, err1 := os.Stat(in)
	b, err2 := os.Stat(out)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// openInput opens the one input file, or standard input.
func openInput(st *state, c *cli.Context) (io.Reader, string, func(), error) {
	switch c.NArg() {
	case 0:
		growPipe(st.stdin)
		return st.stdin, "", func() {}, nil
	case 1:
	default:
		return nil, "", nil, usagef("give at most one input file (got %d)", c.NArg())
	}
	name := c.Args().First()
	if name == "-" {
		growPipe(st.stdin)
		return st.stdin, "", func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, "", nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, "", nil, fmt.Errorf("input %s is a directory", name)
	}
	return f, name, func() { f.Close() }, nil
}

// refuseBinaryTerminal aborts the output when binary data would go to a
// terminal, where it is unreadable and can upset the terminal.
func (o *output) refuseBinaryTerminal(armored bool, what string) error {
	if !o.terminal || armored {
		return nil
	}
	o.abort()
	return withHints(errors.New("refusing to write binary "+what+" to a terminal"), "use --armor (-a), --output FILE, or redirect standard output")
}
