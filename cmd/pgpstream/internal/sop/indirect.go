package sop

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/pgpstream/pgpstream/internal/bounded"
)

// Indirect inputs and outputs (the draft's "Indirect Data Types" and
// "Special Designators"): an argument naming KEYS, CERTS, SIGNATURES, a
// PASSWORD or a SESSIONKEY, or an option's output file, is a file name,
// or @ENV:NAME (an environment variable, inputs only) or @FD:N (an open
// file descriptor). Any other argument beginning with "@" is a designator
// pgpstream does not know (UNSUPPORTED_SPECIAL_PREFIX); a designator that
// is also the name of an existing file is AMBIGUOUS_INPUT, so a caller
// who meant the file is never given the variable, or the other way round.

const (
	prefixFD  = "@FD:"
	prefixEnv = "@ENV:"
)

// openInput opens an indirect input.
func (c *call) openInput(name string) (io.ReadCloser, error) {
	if strings.HasPrefix(name, "@") {
		return c.openDesignator(name)
	}
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, failWith(codeMissingInput, err, "input %q does not exist", name)
	}
	if err != nil {
		return nil, failWith(codeUnspecificFailure, err, "input %q", name)
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, fail(codeMissingInput, "input %q is a directory, not a file", name)
	}
	return f, nil
}

func (c *call) openDesignator(name string) (io.ReadCloser, error) {
	if _, err := os.Lstat(name); err == nil {
		return nil, fail(codeAmbiguousInput, "%q is a special designator and also an existing file; name the file as ./%s", name, name)
	}
	switch {
	case strings.HasPrefix(name, prefixEnv):
		v, ok := c.env.LookupEnv(name[len(prefixEnv):])
		if !ok {
			return nil, fail(codeMissingInput, "%s: the environment variable %s is not set", name, name[len(prefixEnv):])
		}
		return io.NopCloser(strings.NewReader(v)), nil
	case strings.HasPrefix(name, prefixFD):
		fd, err := parseFD(name)
		if err != nil {
			return nil, err
		}
		if fd == 0 {
			return io.NopCloser(c.env.Stdin), nil
		}
		f, err := c.fd(fd)
		if err != nil {
			return nil, failWith(codeMissingInput, err, "%s: not an open file descriptor", name)
		}
		return io.NopCloser(f), nil
	}
	return nil, fail(codeUnsupportedSpecialPrefix, "%q: pgpstream knows the special designators @ENV:NAME and @FD:N", name)
}

// parseFD reads N of @FD:N.
func parseFD(name string) (int, error) {
	n := name[len(prefixFD):]
	fd, err := strconv.Atoi(n)
	if err != nil || fd < 0 || strings.TrimLeft(n, "0123456789") != "" {
		return 0, fail(codeUnsupportedSpecialPrefix, "%q: expected @FD: and a file descriptor number", name)
	}
	return fd, nil
}

// readInput reads an indirect input whole, up to limit.
func (c *call) readInput(name string, limit bounded.Limit) ([]byte, error) {
	r, err := c.openInput(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := bounded.ReadAll(r, name, limit)
	if err != nil {
		return nil, failWith(codeUnspecificFailure, err, "reading %q", name)
	}
	return b, nil
}

// checkOutput refuses an indirect output before any work is done, so a
// refused output costs nothing and leaves nothing: an existing file is
// never replaced (OUTPUT_EXISTS), and @ENV: is for inputs only.
func (c *call) checkOutput(name string) error {
	switch {
	case name == "":
		return nil
	case strings.HasPrefix(name, prefixFD):
		fd, err := parseFD(name)
		if err != nil {
			return err
		}
		if fd <= 2 {
			return nil
		}
		if _, err := c.fd(fd); err != nil {
			return failWith(codeUnspecificFailure, err, "%s: not an open file descriptor", name)
		}
		return nil
	case strings.HasPrefix(name, prefixEnv):
		return fail(codeUnsupportedSpecialPrefix, "%q: @ENV: names an input, not an output", name)
	case strings.HasPrefix(name, "@"):
		return fail(codeUnsupportedSpecialPrefix, "%q: pgpstream writes outputs to files and @FD:N only", name)
	}
	if _, err := os.Lstat(name); err == nil {
		return fail(codeOutputExists, "output %q exists; sop never replaces a file", name)
	}
	return nil
}

// writeOutput writes data to an indirect output checked by checkOutput.
// A file is created, never replaced; private makes it readable by its
// owner alone (a session key).
func (c *call) writeOutput(name string, data []byte, private bool) error {
	w, closeW, err := c.createOutput(name, private)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	if cerr := closeW(); err == nil {
		err = cerr
	}
	if err != nil {
		return failWith(codeUnspecificFailure, err, "writing %q", name)
	}
	return nil
}

func (c *call) createOutput(name string, private bool) (io.Writer, func() error, error) {
	if strings.HasPrefix(name, prefixFD) {
		fd, err := parseFD(name)
		if err != nil {
			return nil, nil, err
		}
		switch fd {
		case 1:
			return c.env.Stdout, func() error { return nil }, nil
		case 2:
			return c.env.Stderr, func() error { return nil }, nil
		case 0:
			return nil, nil, fail(codeUnspecificFailure, "%s: standard input is not an output", name)
		}
		f, err := c.fd(fd)
		if err != nil {
			return nil, nil, failWith(codeUnspecificFailure, err, "%s: not an open file descriptor", name)
		}
		return f, func() error { return nil }, nil // the caller's descriptor: left open
	}
	mode := os.FileMode(0o644)
	if private {
		mode = 0o600
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) {
		return nil, nil, fail(codeOutputExists, "output %q exists; sop never replaces a file", name)
	}
	if err != nil {
		return nil, nil, failWith(codeUnspecificFailure, err, "creating %q", name)
	}
	return f, f.Close, nil
}

// checkOutputs runs checkOutput on each option's value.
func (c *call) checkOutputs(options ...string) error {
	for _, o := range options {
		if err := c.checkOutput(c.value(o)); err != nil {
			return fmt.Errorf("--%s: %w", o, err)
		}
	}
	return nil
}

// fd is the caller's descriptor n, through Env.FD.
func (c *call) fd(n int) (*os.File, error) {
	if c.env.FD == nil {
		return nil, errors.New("descriptors are not available")
	}
	return c.env.FD(n)
}
