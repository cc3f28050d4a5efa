package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/output"
	"github.com/pgpstream/pgpstream/internal/startfds"
)

// Descriptors the caller names: --status-fd, --logger-fd, --command-fd,
// --passphrase-fd, --override-session-key-fd and, with
// --enable-special-filenames, -&N for a file. Each is the descriptor
// itself (never a reopening of /dev/fd/N, which would start a regular
// file at offset 0 where gpg goes on from the caller's offset), and only
// one the process inherited (startfds): a number the caller left closed
// names one of pgpstream's own files by then, the runtime's cgroup file
// or epoll, a keyring, an agent socket. gpg refuses those too
// ("passphrase-fd is invalid: Bad file descriptor").
//
// Descriptors 0 and 1 are the invocation's standard input and output
// (state.stdin, state.stdout), as --passphrase-fd 0 and --status-fd 1
// always were. In the CLI tests that call run in-process, the others are
// checked against the test binary's own inherited set: there is no fresh
// process, and a test that wants a descriptor of its own runs the binary
// as a process (pgpstreamCmd, with ExtraFiles).

// fileArg is a file the command line names: a path, or, with
// --enable-special-filenames, a descriptor the caller opened (gpg's
// special file name -&N). The zero value names nothing: standard input
// or output by default.
type fileArg struct {
	path string // "" for a descriptor
	fd   int
	isFD bool
}

func pathArg(p string) fileArg { return fileArg{path: p} }

// none reports that no file was named.
func (a fileArg) none() bool { return !a.isFD && a.path == "" }

// std reports standard input or output: no name, "-", or -&1 for output.
func (a fileArg) std() bool { return a.none() || !a.isFD && a.path == "-" || a.isFD && a.fd == 1 }

// String is the file as the command line spelt it.
func (a fileArg) String() string {
	if a.isFD {
		return "-&" + strconv.Itoa(a.fd)
	}
	return a.path
}

// fileArg reads a file argument: -&N is descriptor N when
// --enable-special-filenames is on, as in gpg; anything else is a path.
func (o *options) fileArg(s string) fileArg {
	if n, ok := strings.CutPrefix(s, "-&"); ok && o.specialFilenames && n != "" && strings.Trim(n, "0123456789") == "" {
		if fd, err := strconv.Atoi(n); err == nil {
			return fileArg{fd: fd, isFD: true}
		}
	}
	return pathArg(s)
}

// callerFiles holds one *os.File per descriptor the caller named, kept
// for the life of the process: a second os.NewFile on the same number
// would close the descriptor under the first when it is collected.
var callerFiles struct {
	sync.Mutex
	m map[int]*os.File
}

// callerFile returns the caller's descriptor fd, named on the command
// line as name ("--status-fd 3", "-&3"); one it did not hand over is
// refused with gpg's reason.
func callerFile(name string, fd int) (*os.File, error) {
	if fd < 0 || !startfds.Inherited(fd) {
		return nil, fmt.Errorf("%s is invalid: %w (not open at start)", name, syscall.EBADF)
	}
	callerFiles.Lock()
	defer callerFiles.Unlock()
	f := callerFiles.m[fd]
	if f == nil {
		f = os.NewFile(uintptr(fd), "fd "+strconv.Itoa(fd))
		if callerFiles.m == nil {
			callerFiles.m = map[int]*os.File{}
		}
		callerFiles.m[fd] = f
	}
	if _, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("%s is invalid: %w", name, errors.Unwrap(err))
	}
	return f, nil
}

// readFD is the descriptor a -fd option reads: standard input for 0,
// else the caller's descriptor.
func readFD(st *state, option string, fd int) (io.Reader, error) {
	if fd == 0 {
		return st.stdin, nil
	}
	return callerFile(fmt.Sprintf("%s %d", option, fd), fd)
}

// openArg opens a file argument for reading: "-" and -&0 are standard
// input, -&N is the caller's descriptor N, anything else a path. path is
// the path, and "" otherwise: standard input and a descriptor have no
// name for a literal packet to carry or an output to be named after.
func openArg(st *state, o *options, name string) (r io.Reader, path string, done func(), err error) {
	a := o.fileArg(name)
	switch {
	case name == "-" || a.isFD && a.fd == 0:
		output.GrowPipe(st.stdin)
		return st.stdin, "", func() {}, nil
	case a.isFD:
		f, err := callerFile(a.String(), a.fd)
		if err != nil {
			return nil, "", nil, err
		}
		output.GrowPipe(f)
		return f, "", func() {}, nil // the caller's: left open
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

// stat is the output's file, for the same-file check; an error for
// standard output and for a descriptor that will be refused anyway.
func (a fileArg) stat() (os.FileInfo, error) {
	if !a.isFD {
		return os.Stat(a.path)
	}
	if a.fd < 3 {
		return nil, errors.New("a standard descriptor")
	}
	f, err := callerFile(a.String(), a.fd)
	if err != nil {
		return nil, err
	}
	return f.Stat()
}
