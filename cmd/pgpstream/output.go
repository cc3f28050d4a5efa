package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/term"

	"github.com/pgpstream/pgpstream/internal/atomicfile"
	"github.com/pgpstream/pgpstream/iobuf"
)

// holdback is how much decrypted plaintext pgpstream keeps back from
// standard output until the message is authenticated. Messages up to this
// size are never released unauthenticated; a longer one has to stream,
// and a failed check then ends it with an error and a non-zero exit.
// 8 MiB covers the mail-sized messages most exposed to tampering, at a
// memory cost that stays flat for any message size.
const holdback = 8 << 20

// output is where a command writes: a file that appears only on success,
// or a stream (standard output, a FIFO, a device) written in place.
type output struct {
	w        io.Writer
	name     string // "standard output", or the path written in place
	terminal bool   // the stream is a terminal
	commit   func() error
	abort    func()
	released func() bool // whether any plaintext reached the stream
	stream   func()      // stop holding back: write through from now on
	private  bool        // a file output is made 0600 (secret key data), not 0666 less the umask
}

// openOutput opens target (none or "-" for standard output, -&N for the
// caller's descriptor, see descriptorOutput). With hold, what goes to a
// stream is held back (see holdback) until commit.
//
// A new path or an existing regular file (a symlink to one is followed,
// and its target written) is written through a temporary file in the
// target's directory that gets the name only when the run ends well (see
// settleOutputs); an existing file keeps its mode (and, where permitted,
// its owner). A FIFO or a device (or a symlink to one) is opened and
// written in place, like standard output: renaming over it would replace
// /dev/null with a regular file, or leave a FIFO's reader with nothing.
func openOutput(st *state, opts *options, target fileArg, hold bool) (*output, error) {
	return openOutputPerm(st, opts, target, hold, 0o666)
}

// openOutputPerm is openOutput with the permissions a new file gets
// (before the umask): 0600 for secret keys.
func openOutputPerm(st *state, opts *options, out fileArg, hold bool, perm os.FileMode) (*output, error) {
	if out.isFD {
		return descriptorOutput(st, out, hold)
	}
	path := out.path
	if path == "" || path == "-" {
		growPipe(st.stdout)
		o := streamOutput(st.stdout, "standard output", hold)
		asyncStdout(st, opts, o)
		return o, nil
	}
	target, fi, descriptor, err := resolveOutput(path)
	if err != nil {
		return nil, err
	}
	if descriptor && fi.Mode().IsRegular() {
		// The shell opened it (pgpstream -o /dev/stdout > FILE):
		// written in place, as standard output would be.
		return inPlaceOutput(st, path, target, hold)
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
			return inPlaceOutput(st, path, target, hold)
		case m&os.ModeDevice != 0:
			// A block device holds data that writing destroys.
			if !opts.yes {
				return nil, withHints(fmt.Errorf("output %s is a block device", path), "use --yes to write over it")
			}
			return inPlaceOutput(st, path, target, hold)
		case !m.IsRegular():
			return nil, fmt.Errorf("output %s is not a regular file", path)
		}
		if !opts.yes {
			// gpg asks (openfile.overwrite.okay; prompt.go).
			alt, err := askOverwrite(st, opts, path)
			if err != nil {
				return nil, err
			}
			if alt != path {
				return openOutputPerm(st, opts, pathArg(alt), hold, perm)
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
	t, err := atomicfile.Create(target, fi != nil || opts.fsync)
	if err != nil {
		if through != nil {
			through.Close()
		}
		return nil, fmt.Errorf("creating the output: %w", err)
	}
	if through != nil {
		t.WriteThrough(through)
	}
	st.onCleanup(t.Discard) // a no-op after install
	// A second core writes the file while the next chunk is decrypted,
	// from the buffers the decryption lends it (iobuf.AsyncWriter).
	var w io.Writer = t
	var aw *iobuf.AsyncWriter
	if runtime.GOMAXPROCS(0) > 1 {
		aw = iobuf.NewAsyncWriter(t)
		w = aw
		st.onCleanup(func() { aw.Close() }) // before the discard: cleanups run last first
	}
	discard := func() {
		if aw != nil {
			aw.Close()
		}
		t.Discard()
	}
	o := &output{w: w, name: path, released: func() bool { return false }, stream: func() {}, abort: discard}
	o.commit = func() error {
		if aw != nil {
			if err := aw.Close(); err != nil {
				t.Discard()
				return fmt.Errorf("writing %s: %w", path, err)
			}
		}
		if err := st.streamsBroken(); err != nil {
			// What the command said about this output (its
			// signatures, its status lines) did not arrive: the
			// output must not appear as if all went well.
			t.Discard()
			return err
		}
		mode := perm
		if o.private {
			// Secret key data: never readable by others, whatever
			// the file it replaces allowed.
			mode &= 0o600
		}
		if err := t.Seal(fi, mode); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		st.outputs = append(st.outputs, pendingOutput{name: path, t: t, replace: fi != nil || opts.yes, unchecked: opts.allowUnprotected})
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

// pendingOutput is an output file that is complete and sealed, waiting
// for the run's end to take its name.
type pendingOutput struct {
	name    string
	t       *atomicfile.File
	replace bool // an existing file may be replaced
	// unchecked: --allow-unprotected asked for the data even where no
	// signature vouches for it, so a signature that could not be
	// checked (exit status 2, gpg's code for it) does not withhold it.
	unchecked bool
}

// installing is held while outputs take their names, and by the signal
// handler (interruptOutputs) from the moment it acts: a signal either
// comes first, and no output is installed, or it waits for the
// installation, which it never cuts short. ended says that the run's
// final installation began: the process is ending as the run decided,
// and a signal from then on changes nothing.
var installing struct {
	sync.Mutex
	ended bool
}

// interruptOutputs is the signal handler's part: unless the run has
// ended (it then returns false, and the process ends as the run
// decided), it removes the named temporary files and keeps every output
// from being installed, for good: the process is about to exit.
func interruptOutputs() bool {
	installing.Lock()
	if installing.ended {
		installing.Unlock()
		return false
	}
	atomicfile.RemoveNamed()
	return true
}

// endOutputs is finishOutputs at the end of the run.
func (s *state) endOutputs(err error) error {
	installing.Lock()
	defer installing.Unlock()
	installing.ended = true
	return s.settleOutputs(err)
}

// finishOutputs settles the output files made so far (--multifile does,
// after each file).
func (s *state) finishOutputs(err error) error {
	installing.Lock()
	defer installing.Unlock()
	return s.settleOutputs(err)
}

// settleOutputs gives the pending output files their names when the run
// ended well: no error err, exit status 0, and every message and status
// line delivered. Otherwise they are dropped: a non-zero exit leaves no
// file that this run made, and a file it would have replaced as it was
// (the one exception is pendingOutput.unchecked). It returns the run's
// error.
func (s *state) settleOutputs(err error) error {
	pending := s.outputs
	s.outputs = nil
	if len(pending) == 0 {
		return err
	}
	if err == nil {
		err = s.streamsBroken()
	}
	var keep []pendingOutput
	for _, p := range pending {
		if err == nil && (s.exit == exitOK || s.exit == exitError && p.unchecked) {
			keep = append(keep, p)
			continue
		}
		p.t.Discard()
		if err == nil {
			s.errorf("%s was not written: %s", p.name, exitReason(s.exit))
		}
	}
	if err != nil {
		return err
	}
	return installOutputs(keep)
}

// exitReason says why a run with no error has a non-zero exit status:
// its signatures (the exit codes of sigReporter.exit).
func exitReason(code int) string {
	if code == exitBad {
		return "a signature is bad"
	}
	return "a signature could not be checked"
}

// installOutputs installs each output; when one fails, those it made
// before are removed again.
func installOutputs(pending []pendingOutput) error {
	var made []string
	for i, p := range pending {
		created, err := p.t.Install(p.replace)
		if err == nil {
			if created {
				made = append(made, p.t.Target())
			}
			continue
		}
		for _, q := range pending[i+1:] {
			q.t.Discard()
		}
		for _, name := range made {
			os.Remove(name)
		}
		return fmt.Errorf("writing %s: %w", p.name, err)
	}
	return nil
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
// first holdback bytes until commit.
func streamOutput(w io.Writer, name string, hold bool) *output {
	o := &output{w: w, name: name, commit: func() error { return nil }, abort: func() {}, released: func() bool { return true }, stream: func() {}}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		o.terminal = true
	}
	if hold {
		h := &holdWriter{dst: w}
		chunked := false
		o.w = h
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
// message there (encrypt, decrypt), from the buffers the
// decryption lends it once the hold-back is past (see AsyncWriter). Not
// when the status lines or messages share the descriptor: their order
// with the data would change.
func asyncStdout(st *state, opts *options, o *output) {
	f, ok := unwatched(st.stdout).(*os.File)
	if !ok || o.terminal || runtime.GOMAXPROCS(0) < 2 || opts.statusFd == 1 || opts.loggerFd == 1 {
		return
	}
	if opts.cmd != commandDecrypt && opts.cmd != commandEncrypt {
		return // commands whose output is only the message's bytes
	}
	if fi, err := f.Stat(); err != nil || !(fi.Mode().IsRegular() || fi.Mode()&os.ModeNamedPipe != 0) {
		return
	}
	aw := iobuf.NewAsyncWriter(st.stdout)
	st.onCleanup(func() { aw.Close() })
	commit, abort := o.commit, o.abort
	if h, ok := o.w.(*holdWriter); ok {
		h.dst = aw
		o.w = ownedHold{h, aw}
	} else {
		o.w = aw
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
func inPlaceOutput(st *state, path, target string, hold bool) (*output, error) {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("opening the output: %w", err)
	}
	growPipe(f)
	st.onCleanup(func() { f.Close() })
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

// sameFile reports whether the input and output name one file; out may
// be the caller's descriptor.
func sameFile(in string, out fileArg) bool {
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
		growPipe(st.stdin)
		return st.stdin, "", func() {}, nil
	case 1:
	default:
		return nil, "", nil, usagef("give at most one input file (got %d)", len(o.args))
	}
	return openArg(st, o, o.args[0])
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
