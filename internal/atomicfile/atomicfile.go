// Package atomicfile writes files that take their name only when they
// are whole: the output files of a command, which appear only when the
// run ended well, and the keyring's files, which a crash leaves old or
// new. One writer for both, so that both get the same rules for
// durability, hard links and the temporary names a killed process may
// leave.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/pgpstream/pgpstream/iobuf"
)

// File is a file being written, which gets its name only when
// installed (Install), after the writing ended well.
//
// On Linux it is opened with O_TMPFILE in the target's directory: an
// inode with no name at all, which the kernel frees when the process ends
// however it ends (SIGKILL, a crash, power loss before commit), so
// unauthenticated plaintext never has a name another process or a later
// run could find. Install links it in through /proc/self/fd. Where the
// file system or the kernel has no O_TMPFILE (or /proc is not mounted), it
// is a named temporary file, removed on failure and, where the program's
// signal handler calls RemoveNamed, on a signal; not on SIGKILL.
//
// Durability: a durable temporary file is flushed to disk (fsync) before
// it takes the target's place, and the directory after, so that a crash
// leaves the target whole, old or new. That is owed where a crash could
// otherwise lose what the user had: when an existing file is replaced.
// A new file is not flushed unless asked: until the page cache
// reaches the disk, what it was made from still exists.
type File struct {
	f       *os.File
	w       *writeback // what the command writes to: f, with early writeback when durable
	target  string
	name    string // the named temporary file; "" for an O_TMPFILE inode
	durable bool
	// through is the existing target, opened for writing, when the
	// output is copied into it instead of replacing it (see Install);
	// throughMode is the mode it is to have then.
	through     *os.File
	throughMode os.FileMode
	done        bool
}

// Create starts a file that is to become target, in target's directory.
// A durable file is flushed to disk before it takes its name.
func Create(target string, durable bool) (*File, error) {
	dir := filepath.Dir(target)
	// Read and write: a write-through install copies the file out.
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if noTmpfile {
		if err == nil {
			unix.Close(fd)
		}
		err = unix.EOPNOTSUPP
	}
	if err == nil {
		f := os.NewFile(uintptr(fd), target)
		if _, err := os.Stat(procFD(f)); err == nil {
			return &File{f: f, w: &writeback{f: f, start: durable}, target: target, durable: durable}, nil
		}
		f.Close()
	} else if !tmpfileUnsupported(err) {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	f, err := os.CreateTemp(dir, tempPattern(target))
	if err != nil {
		return nil, err
	}
	track(f.Name(), true)
	return &File{f: f, w: &writeback{f: f, start: durable}, target: target, name: f.Name(), durable: durable}, nil
}

// tmpfileUnsupported reports whether open(O_TMPFILE) failed because the
// kernel or the file system lacks it, rather than for a reason a named
// temporary file would meet too.
func tmpfileUnsupported(err error) bool {
	return errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS)
}

// noTmpfile makes Create take the named temporary file, as on a file
// system without O_TMPFILE (tests set it).
var noTmpfile bool

func procFD(f *os.File) string { return fmt.Sprintf("/proc/self/fd/%d", f.Fd()) }

func tempPattern(target string) string { return "." + filepath.Base(target) + ".pgpstream-*.tmp" }

// Target is the name the file is to take.
func (t *File) Target() string { return t.target }

// Write writes to the file.
func (t *File) Write(p []byte) (int, error) { return t.w.Write(p) }

// WriteVectors implements iobuf.VectorWriter: writev(2) on the file, so
// a packet's length octets go out between its runs without a copy.
func (t *File) WriteVectors(bufs [][]byte) (int64, error) { return t.w.WriteVectors(bufs) }

// WriteThrough makes Install copy the file into existing, an open
// regular file that has other hard links, instead of replacing it: a
// rename would give the target a new inode and leave the other names
// with the old content. The File owns existing from here on.
func (t *File) WriteThrough(existing *os.File) { t.through = existing }

// Discard drops the file; after Install it does nothing.
func (t *File) Discard() {
	if t.done {
		return
	}
	t.done = true
	t.f.Close()
	if t.through != nil {
		t.through.Close()
	}
	if t.name != "" {
		os.Remove(t.name)
		track(t.name, false)
	}
}

// writebackChunk is how much is written before the kernel is asked to
// start writing it to disk (sync_file_range, which does not wait), when
// the file will be flushed: the disk then works while pgpstream decrypts,
// instead of all at the final fsync, and the page cache holds at most
// this much of the file dirty on our account.
//
// Measured on 256 MiB to ext4 on this machine's virtual disk: a final
// fsync alone waited 0.16 s, a third of the 0.45 s decryption; with the
// early writeback it waited only for the last few MiB. It also ties the
// run to the disk's write speed, which is why a file that is not flushed
// does without it.
const writebackChunk = 8 << 20

// writeback is the temporary file's writer: with start, it starts the
// disk writes of every writebackChunk as soon as it is written.
type writeback struct {
	f           *os.File
	start       bool
	off, synced int64
}

func (w *writeback) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.wrote(int64(n))
	return n, err
}

func (w *writeback) WriteVectors(bufs [][]byte) (int64, error) {
	n, err := iobuf.Vectors(w.f).WriteVectors(bufs)
	w.wrote(n)
	return n, err
}

func (w *writeback) wrote(n int64) {
	w.off += n
	if w.start && w.off-w.synced >= writebackChunk {
		unix.SyncFileRange(int(w.f.Fd()), w.synced, w.off-w.synced, unix.SYNC_FILE_RANGE_WRITE)
		w.synced = w.off
	}
}

// Seal ends the writing: the file gets the owner (where permitted) of
// old, the target as it was when opened (nil for a new file), and mode
// perm, and a durable file is flushed to disk. A file to be written
// through keeps its temporary mode (0600): the target keeps its own
// owner, and takes perm at install.
func (t *File) Seal(old os.FileInfo, perm os.FileMode) error {
	if t.done {
		return errors.New("output already closed")
	}
	err := t.setOwnerMode(old, perm)
	if err == nil && t.durable {
		err = t.f.Sync()
	}
	if err != nil {
		t.Discard()
	}
	return err
}

func (t *File) setOwnerMode(old os.FileInfo, perm os.FileMode) error {
	if t.through != nil {
		t.throughMode = perm
		return nil
	}
	if old != nil {
		if s, ok := old.Sys().(*syscall.Stat_t); ok && (int(s.Uid) != os.Geteuid() || int(s.Gid) != os.Getegid()) {
			t.f.Chown(int(s.Uid), int(s.Gid)) // permitted for root only; the mode is what matters
		}
	}
	return t.f.Chmod(perm)
}

// Install gives the sealed file its place: the target, which must not
// exist unless replace. It reports whether it made a new name (which
// undoing the run's outputs would remove).
//
// A new target is linked (linkat never replaces a file that appeared
// meanwhile); an existing one is replaced by a rename, so that a reader
// or a crash sees the old file or the new one. A target with other hard
// links is written through instead (see writeThrough).
func (t *File) Install(replace bool) (created bool, err error) {
	if t.done {
		return false, errors.New("output already closed")
	}
	switch {
	case t.through != nil:
		err = t.writeThrough()
	case t.name == "":
		created, err = t.linkAnon(replace)
	default:
		created, err = t.linkNamed(replace)
	}
	if err != nil {
		t.Discard()
		return false, err
	}
	t.done = true
	cerr := t.f.Close()
	if t.durable {
		syncDir(t.target)
	}
	return created, cerr
}

func syncDir(target string) {
	if d, err := os.Open(filepath.Dir(target)); err == nil {
		d.Sync()
		d.Close()
	}
}

// linkAnon names an O_TMPFILE inode: linked straight to the target when
// it is new, else linked to a temporary name and renamed over the
// target. Only complete, authenticated output ever has that temporary
// name, for the moment of the rename.
func (t *File) linkAnon(replace bool) (created bool, err error) {
	err = unix.Linkat(unix.AT_FDCWD, procFD(t.f), unix.AT_FDCWD, t.target, unix.AT_SYMLINK_FOLLOW)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, unix.EEXIST) {
		return false, &os.LinkError{Op: "link", Old: procFD(t.f), New: t.target, Err: err}
	}
	if !replace {
		return false, fmt.Errorf("%s appeared while writing, and --yes was not given", t.target)
	}
	name, err := t.linkTempName()
	if err != nil {
		return false, err
	}
	defer track(name, false)
	if err := os.Rename(name, t.target); err != nil {
		os.Remove(name)
		return false, err
	}
	return false, nil
}

// linkTempName gives an O_TMPFILE inode a temporary name beside the
// target.
func (t *File) linkTempName() (string, error) {
	for range 100 {
		name := filepath.Join(filepath.Dir(t.target), tempName(t.target))
		err := unix.Linkat(unix.AT_FDCWD, procFD(t.f), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return "", &os.LinkError{Op: "link", Old: procFD(t.f), New: name, Err: err}
		}
		track(name, true)
		return name, nil
	}
	return "", errors.New("no free temporary name in the output directory")
}

// linkNamed moves a named temporary file to the target.
func (t *File) linkNamed(replace bool) (created bool, err error) {
	defer track(t.name, false)
	if replace {
		_, err := os.Lstat(t.target)
		return errors.Is(err, os.ErrNotExist), os.Rename(t.name, t.target)
	}
	// A new name: link, which fails rather than replace a file that
	// appeared meanwhile.
	if err := os.Link(t.name, t.target); err != nil {
		if errors.Is(err, os.ErrExist) {
			return false, fmt.Errorf("%s appeared while writing, and --yes was not given", t.target)
		}
		return false, err
	}
	os.Remove(t.name)
	return true, nil
}

// writeThrough copies the output into the existing target, so that every
// hard link to it sees the new content, as gpg's O_TRUNC gives them.
// Nothing is lost whenever it stops: the output first gets a name of its
// own beside the target, flushed to disk with its directory, and loses
// it only after the copy into the target is complete and flushed. A
// crash mid-copy thus leaves the whole new output under
// ".FILE.pgpstream-*.tmp"; a copy that fails (a disk error) keeps that
// name too, and says where it is.
func (t *File) writeThrough() error {
	name := t.name
	if name == "" {
		var err error
		if name, err = t.linkTempName(); err != nil {
			return err
		}
	}
	syncDir(t.target)
	size, err := t.prepareThrough()
	if err != nil {
		os.Remove(name)
		track(name, false)
		return err
	}
	// From here on the name stays until the copy is whole: Discard
	// and the signal handler leave it.
	track(name, false)
	t.name = ""
	if err := copyInto(t.through, t.f, size); err != nil {
		return fmt.Errorf("%w; the whole output is in %s", err, name)
	}
	os.Remove(name) // failing, it leaves a copy of what the target holds
	return nil
}

// prepareThrough readies the target for the copy of the output, whose
// size it returns, without changing its content: it takes the space the
// copy may need beyond the old file's (a full disk fails here, the
// target intact) and gives it its mode.
func (t *File) prepareThrough() (int64, error) {
	fi, err := t.f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	if size > 0 {
		err := unix.Fallocate(int(t.through.Fd()), unix.FALLOC_FL_KEEP_SIZE, 0, size)
		if err != nil && !errors.Is(err, unix.EOPNOTSUPP) {
			return 0, &os.PathError{Op: "fallocate", Path: t.target, Err: err}
		}
	}
	return size, t.throughChmod()
}

// throughChmod gives the target written through its mode, where it
// differs: secret key data going into a file others may read tightens
// it (for all its names) before the data goes in.
func (t *File) throughChmod() error {
	fi, err := t.through.Stat()
	if err != nil {
		return err
	}
	if fi.Mode()&(os.ModePerm|os.ModeSetuid|os.ModeSetgid|os.ModeSticky) == t.throughMode {
		return nil
	}
	return t.through.Chmod(t.throughMode)
}

// copyInto makes dst hold src's size bytes, flushed to disk. On Linux the
// copy is copy_file_range, within the kernel.
func copyInto(dst, src *os.File, size int64) error {
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := dst.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(dst, io.LimitReader(src, size)); err != nil {
		return err
	}
	if err := dst.Truncate(size); err != nil {
		return err
	}
	if err := dst.Sync(); err != nil {
		return err
	}
	return dst.Close()
}

func tempName(target string) string {
	var b [8]byte
	rand.Read(b[:])
	return "." + filepath.Base(target) + ".pgpstream-" + hex.EncodeToString(b[:]) + ".tmp"
}

// named are the named temporary files of this process, which RemoveNamed
// removes. A file made with O_TMPFILE has no name until it is installed,
// so it is never here: the kernel frees it with the process.
var named struct {
	sync.Mutex
	names map[string]bool
}

func track(name string, add bool) {
	named.Lock()
	defer named.Unlock()
	if named.names == nil {
		named.names = map[string]bool{}
	}
	if add {
		named.names[name] = true
	} else {
		delete(named.names, name)
	}
}

// RemoveNamed removes every named temporary file of the process: a
// signal handler calls it before the process exits.
func RemoveNamed() {
	named.Lock()
	for n := range named.names {
		os.Remove(n)
	}
	named.names = nil
	named.Unlock()
}

// WriteFile replaces (or makes) path with data, durably: a crash leaves
// the old content or the new, and the new name is on disk when it
// returns, so that a second file written after it is never on disk
// without it. A path with other hard links is replaced too (they keep
// the old content): the keyring's files are its own.
func WriteFile(path string, data []byte, mode os.FileMode) error {
	t, err := Create(path, true)
	if err != nil {
		return err
	}
	if _, err := t.Write(data); err != nil {
		t.Discard()
		return err
	}
	if err := t.Seal(nil, mode); err != nil {
		return err
	}
	_, err = t.Install(true)
	return err
}

// Remove removes path durably: the directory is synced, so that a file
// written after it is never on disk while path still is. A path that is
// already gone is not an error.
func Remove(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	syncDir(path)
	return nil
}
