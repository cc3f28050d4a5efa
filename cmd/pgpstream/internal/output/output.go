// Package output is where a command's result goes, and the rule that
// keeps it safe: a file appears only when the run ended well (written
// through internal/atomicfile, named only after authentication), a
// stream (standard output, a FIFO, a device, the caller's descriptor) is
// written in place with its first Holdback bytes held back, and an
// existing file is replaced only with --yes or after asking.
//
// The command fills a Config from its options and its invocation; nothing
// here knows the options.
package output

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/term"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/hint"
	"github.com/pgpstream/pgpstream/internal/atomicfile"
	"github.com/pgpstream/pgpstream/iobuf"
)

// Holdback is how much decrypted plaintext pgpstream keeps back from
// standard output until the message is authenticated. Messages up to this
// size are never released unauthenticated; a longer one has to stream,
// and a failed check then ends it with an error and a non-zero exit.
// 8 MiB covers the mail-sized messages most exposed to tampering, at a
// memory cost that stays flat for any message size.
const Holdback = 8 << 20

// Config is what the options and the invocation decided about outputs.
type Config struct {
	Yes              bool // --yes: an existing file is replaced without asking
	Fsync            bool // --fsync: a new file is flushed too
	AllowUnprotected bool // --allow-unprotected (see pending.unchecked)
	// AsyncStdout: the command writes only a message to standard output
	// (encrypt, decrypt) and neither status lines nor messages share the
	// descriptor, so it may be written on a goroutine of its own.
	AsyncStdout bool

	// Stdout is the invocation's standard output; StdoutFile the file
	// under it, when it is one.
	Stdout     io.Writer
	StdoutFile io.Writer
	// Caller returns the caller's descriptor fd, named on the command
	// line as name ("-&3").
	Caller func(name string, fd int) (*os.File, error)
	// Overwrite asks before an existing file is replaced without --yes:
	// the path to write, or why nothing may be written.
	Overwrite func(path string) (string, error)
	// OnCleanup runs f when the invocation ends (last registered, first
	// run).
	OnCleanup func(f func())
	// Broken is the first write error on standard error or the status
	// stream, or nil.
	Broken func() error
	// Pending collects the files that wait for the run's end.
	Pending *Pending
}

// Target is where an output goes: a path (none or "-" for standard
// output), or with IsFD the caller's descriptor -&FD.
type Target struct {
	Path string
	FD   int
	IsFD bool
}

// String is the target as the command line spelt it.
func (t Target) String() string {
	if t.IsFD {
		return "-&" + strconv.Itoa(t.FD)
	}
	return t.Path
}

// Output is where a command writes: a file that appears only on success,
// or a stream (standard output, a FIFO, a device) written in place.
type Output struct {
	W        io.Writer
	Name     string // "standard output", or the path written in place
	Private  bool   // a file output is made 0600 (secret key data), not 0666 less the umask
	terminal bool   // the stream is a terminal
	commit   func() error
	abort    func()
	released func() bool // whether any plaintext reached the stream
	stream   func()      // stop holding back: write through from now on
}

// Commit ends the output well: a stream's held-back bytes are written, a
// file is sealed to take its name at the run's end.
func (o *Output) Commit() error { return o.commit() }

// Abort drops what was not written yet; a file never appears.
func (o *Output) Abort() { o.abort() }

// Released reports whether any plaintext reached the stream.
func (o *Output) Released() bool { return o.released() }

// Stream stops holding back: what comes is written through (the AEAD
// formats release only authenticated chunks).
func (o *Output) Stream() { o.stream() }

// Open opens target. With hold, what goes to a stream is held back (see
// Holdback) until Commit.
//
// A new path or an existing regular file (a symlink to one is followed,
// and its target written) is written through a temporary file in the
// target's directory that gets the name only when the run ends well (see
// Pending.Settle); an existing file keeps its mode (and, where permitted,
// its owner). A FIFO or a device (or a symlink to one) is opened and
// written in place, like standard output: renaming over it would replace
// /dev/null with a regular file, or leave a FIFO's reader with nothing.
//
// perm is the permissions a new file gets (before the umask): 0666, or
// 0600 for secret keys.
func Open(cfg *Config, out Target, hold bool, perm os.FileMode) (*Output, error) {
	if out.IsFD {
		return descriptorOutput(cfg, out, hold)
	}
	path := out.Path
	if path == "" || path == "-" {
		GrowPipe(cfg.Stdout)
		o := streamOutput(cfg.Stdout, "standard output", hold)
		asyncStdout(cfg, o)
		return o, nil
	}
	target, fi, descriptor, err := resolveOutput(path)
	if err != nil {
		return nil, err
	}
	if descriptor && fi.Mode().IsRegular() {
		// The shell opened it (pgpstream -o /dev/stdout > FILE):
		// written in place, as standard output would be.
		return inPlaceOutput(cfg, path, target, hold)
	}
	var through *os.File
	if fi != nil {
		m := fi.Mode()
		switch {
		case m.IsDir():
			return nil, fmt.Errorf("output %s is a directory", path)
		case m&os.ModeSocket != 0:
			return nil, fmt.Errorf("output %s is a socket", path)
		case m&(os.ModeNamedPipe|os.ModeCharDevice) != 0:
			// Nothing is overwritten: no --yes needed, as gpg
			// needs none for /dev/null.
			return inPlaceOutput(cfg, path, target, hold)
		case m&os.ModeDevice != 0:
			// A block device holds data that writing destroys.
			if !cfg.Yes {
				return nil, hint.With(fmt.Errorf("output %s is a block device", path), "use --yes to write over it")
			}
			return inPlaceOutput(cfg, path, target, hold)
		case !m.IsRegular():
			return nil, fmt.Errorf("output %s is not a regular file", path)
		}
		if !cfg.Yes {
			// gpg asks (openfile.overwrite.okay; internal/ask).
			alt, err := cfg.Overwrite(path)
			if err != nil {
				return nil, err
			}
			if alt != path {
				return Open(cfg, Target{Path: alt}, hold, perm)
			}
		}
		perm = m.Perm() | m&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky)
		if through, err = openThrough(path, target, fi); err != nil {
			return nil, err
		}
	} else {
		perm &^= umask()
	}
	// Replacing a file, a crash must leave the old one or the new one:
	// flushed. A new file is flushed only when asked (--fsync).
	t, err := atomicfile.Create(target, fi != nil || cfg.Fsync)
	if err != nil {
		if through != nil {
			through.Close()
		}
		return nil, fmt.Errorf("creating the output: %w", err)
	}
	if through != nil {
		t.WriteThrough(through)
	}
	cfg.OnCleanup(t.Discard) // a no-op after install
	// A second core writes the file while the next chunk is decrypted,
	// from the buffers the decryption lends it (iobuf.AsyncWriter).
	var w io.Writer = t
	var aw *iobuf.AsyncWriter
	if runtime.GOMAXPROCS(0) > 1 {
		aw = iobuf.NewAsyncWriter(t)
		w = aw
		cfg.OnCleanup(func() { aw.Close() }) // before the discard: cleanups run last first
	}
	discard := func() {
		if aw != nil {
			aw.Close()
		}
		t.Discard()
	}
	o := &Output{W: w, Name: path, released: func() bool { return false }, stream: func() {}, abort: discard}
	o.commit = func() error {
		if aw != nil {
			if err := aw.Close(); err != nil {
				t.Discard()
				return fmt.Errorf("writing %s: %w", path, err)
			}
		}
		if err := cfg.Broken(); err != nil {
			// What the command said about this output (its
			// signatures, its status lines) did not arrive: the
			// output must not appear as if all went well.
			t.Discard()
			return err
		}
		mode := perm
		if o.Private {
			// Secret key data: never readable by others, whatever
			// the file it replaces allowed.
			mode &= 0o600
		}
		if err := t.Seal(fi, mode); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		cfg.Pending.add(pending{name: path, t: t, replace: fi != nil || cfg.Yes, unchecked: cfg.AllowUnprotected})
		return nil
	}
	return o, nil
}

// openThrough opens an existing target that has other hard links, to
// write it in place (see atomicfile.File.WriteThrough): a rename would give
// path a new file and leave the other names with the old content. A file
// with one link is replaced, and nil returned. Opened now, a file the
// user cannot write is refused before any work is done.
func openThrough(path, target string, fi os.FileInfo) (*os.File, error) {
	if s, ok := fi.Sys().(*syscall.Stat_t); !ok || s.Nlink < 2 {
		return nil, nil
	}
	f, err := os.OpenFile(target, os.O_WRONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("opening the output: %w", err)
	}
	if now, err := f.Stat(); err != nil || !os.SameFile(fi, now) {
		f.Close()
		return nil, fmt.Errorf("output %s changed while it was opened", path)
	}
	return f, nil
}

// resolveOutput follows symlinks from path to what it finally names and
// returns that path and its FileInfo, or a nil FileInfo when nothing is
// there yet. A path through /proc or /dev/fd (/dev/stdout is
// /proc/self/fd/1) names an open descriptor rather than a place in a
// directory: it is returned as it is, to be written in place. A symlink
// that leads nowhere is refused: writing through it would create a file
// wherever it points.
func resolveOutput(path string) (target string, fi os.FileInfo, descriptor bool, err error) {
	p := path
	for hops := 0; ; hops++ {
		if isDescriptorPath(p) {
			fi, err := os.Stat(path)
			if err != nil {
				return "", nil, false, fmt.Errorf("output %s: %w", path, err)
			}
			return path, fi, true, nil
		}
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			if p != path {
				return "", nil, false, fmt.Errorf("output %s is a symlink to %s, which does not exist", path, p)
			}
			return path, nil, false, nil
		}
		if err != nil {
			return "", nil, false, fmt.Errorf("output %s: %w", path, err)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			return p, fi, false, nil
		}
		if hops == 40 {
			return "", nil, false, fmt.Errorf("output %s: too many levels of symbolic links", path)
		}
		l, err := os.Readlink(p)
		if err != nil {
			return "", nil, false, fmt.Errorf("output %s: %w", path, err)
		}
		if !filepath.IsAbs(l) {
			l = filepath.Join(filepath.Dir(p), l)
		}
		p = filepath.Clean(l)
	}
}

func isDescriptorPath(p string) bool {
	p = filepath.Clean(p)
	return strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/dev/fd/")
}

// streamOutput writes to w as it comes, holding back (with hold) the
// first Holdback bytes until commit.
func streamOutput(w io.Writer, name string, hold bool) *Output {
	o := &Output{W: w, Name: name, commit: func() error { return nil }, abort: func() {}, released: func() bool { return true }, stream: func() {}}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		o.terminal = true
	}
	if hold {
		h := &holdWriter{dst: w}
		chunked := false
		o.W = h
		o.commit = h.flush
		o.abort = func() { h.buf = nil }
		// What AEAD released was authenticated chunk by chunk: a
		// failure later leaves it incomplete, not unauthenticated.
		o.released = func() bool { return h.streaming && !chunked }
		o.stream = func() { chunked = true; h.flush() }
	}
	return o
}

// asyncStdout writes standard output on a goroutine of its own when it is
// a file or a pipe, there is a second core, and the command writes only a
// message there (Config.AsyncStdout), from the buffers the decryption
// lends it once the hold-back is past (see AsyncWriter). Not when the
// status lines or messages share the descriptor: their order with the
// data would change.
func asyncStdout(cfg *Config, o *Output) {
	f, ok := cfg.StdoutFile.(*os.File)
	if !ok || o.terminal || runtime.GOMAXPROCS(0) < 2 || !cfg.AsyncStdout {
		return
	}
	if fi, err := f.Stat(); err != nil || !(fi.Mode().IsRegular() || fi.Mode()&os.ModeNamedPipe != 0) {
		return
	}
	aw := iobuf.NewAsyncWriter(cfg.Stdout)
	cfg.OnCleanup(func() { aw.Close() })
	commit, abort := o.commit, o.abort
	if h, ok := o.W.(*holdWriter); ok {
		h.dst = aw
		o.W = ownedHold{h, aw}
	} else {
		o.W = aw
	}
	o.commit = func() error {
		err := commit()
		if cerr := aw.Close(); err == nil {
			err = cerr
		}
		return err
	}
	o.abort = func() {
		abort()
		aw.Close()
	}
}

// ownedHold is the hold-back writer before an AsyncWriter: held bytes are
// copied as before; once it streams, lent buffers go to the goroutine.
type ownedHold struct {
	*holdWriter
	aw *iobuf.AsyncWriter
}

func (h ownedHold) WriteOwned(p []byte, release func()) error {
	if !h.streaming {
		_, err := h.Write(p)
		release()
		return err
	}
	return h.aw.WriteOwned(p, release)
}

func (h ownedHold) Wait() error { return h.aw.Wait() }

// inPlaceOutput opens a FIFO or a device for writing, as a stream.
func inPlaceOutput(cfg *Config, path, target string, hold bool) (*Output, error) {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("opening the output: %w", err)
	}
	GrowPipe(f)
	cfg.OnCleanup(func() { f.Close() })
	o := streamOutput(f, path, hold)
	flush := o.commit
	o.commit = func() error {
		if err := flush(); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return nil
	}
	return o, nil
}

// descriptorOutput writes to the caller's descriptor -&N in place, as gpg
// does: no temporary file and no rename, a stream like standard output,
// so the hold-back applies and AEAD releases only authenticated chunks.
// The descriptor is left open: it is the caller's.
func descriptorOutput(cfg *Config, a Target, hold bool) (*Output, error) {
	if a.FD == 1 {
		GrowPipe(cfg.Stdout)
		return streamOutput(cfg.Stdout, "standard output", hold), nil
	}
	f, err := cfg.Caller(a.String(), a.FD)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("output %s is a directory", a)
	}
	GrowPipe(f)
	o := streamOutput(f, a.String(), hold)
	flush := o.commit
	o.commit = func() error {
		if err := flush(); err != nil {
			return fmt.Errorf("writing %s: %w", a, err)
		}
		return nil
	}
	return o, nil
}

var umask = sync.OnceValue(func() os.FileMode {
	m := syscall.Umask(0o022)
	syscall.Umask(m)
	return os.FileMode(m)
})

// holdWriter keeps up to Holdback bytes, then streams.
type holdWriter struct {
	dst       io.Writer
	buf       []byte
	streaming bool
}

func (h *holdWriter) Write(p []byte) (int, error) {
	if h.streaming {
		return h.dst.Write(p)
	}
	if len(h.buf)+len(p) <= Holdback {
		if h.buf == nil {
			// One allocation of the whole bound: appending would
			// double its way there and leave the smaller copies for
			// the collector, raising the peak. Untouched pages of it
			// cost no memory.
			h.buf = make([]byte, 0, Holdback)
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

// SamePath reports whether the input file in and the output path out
// name one file; standard input and output ("" or "-") are no file.
func SamePath(in, out string) bool {
	if in == "" || in == "-" || out == "" || out == "-" {
		return false
	}
	a, err1 := os.Stat(in)
	b, err2 := os.Stat(out)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// RefuseBinaryTerminal aborts the output when binary data would go to a
// terminal, where it is unreadable and can upset the terminal.
func (o *Output) RefuseBinaryTerminal(armored bool, what string) error {
	if !o.terminal || armored {
		return nil
	}
	o.abort()
	return hint.With(errors.New("refusing to write binary "+what+" to a terminal"), "use --armor (-a), --output FILE, or redirect standard output")
}
