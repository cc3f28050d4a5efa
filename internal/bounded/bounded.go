// Package bounded reads whole the files that configure or describe a
// home (gpg.conf, the rings, the trust database) and the files a user
// names that are read whole (passphrase files, key input, parameter
// files), each with a limit for its kind. A file past its limit is an
// error naming it and the limit, found after reading at most limit+1
// bytes: a FIFO fed without end, /dev/zero behind a symlink or a sparse
// file of many GiB costs no more memory than the limit.
package bounded

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Limit is the most a kind of file may hold, in bytes.
type Limit int64

// The limits, one per kind of file. Each is far above what a real file
// of its kind holds, and low enough that reading a file that big costs
// no more memory than the work on a real one would.
const (
	// Config is gpg.conf, common.conf and --options FILE: a real one is
	// a few KiB.
	Config Limit = 1 << 20
	// KeyData is a ring (pgpstream's pubring.pgp and secring.pgp, gpg's
	// pubring.gpg and pubring.kbx) and key input (--import, --keyring
	// FILE, -f FILE). 100 000 ed25519 keys are 49 MiB as pgpstream
	// writes them and 67 MiB in a keybox (measured: 10 000 keys in 5.1
	// MB of pubring.pgp, 2 000 imported into gpg 2.2.40's pubring.kbx
	// in 1.4 MB), so 256 MiB holds some 400 000. A ring that size would
	// take pgpstream gigabytes to open anyway: listing 10 000 keys
	// peaks at 151 MB.
	KeyData Limit = 256 << 20
	// TrustDB is gpg's trustdb.gpg: 40-byte records, some 96 bytes a key
	// (2 000 keys with owner trust: 192 160 bytes, gpg 2.2.40), so 64
	// MiB is about 700 000 keys, more than KeyData's rings hold.
	TrustDB Limit = 64 << 20
	// OwnerTrust is pgpstream's ownertrust.txt and --import-ownertrust
	// input: a 44-byte line a key ("FINGERPRINT:LEVEL:"), so 16 MiB is
	// some 380 000 keys, as many as KeyData's rings hold.
	OwnerTrust Limit = 16 << 20
	// Params is a --gen-key parameter file: a few hundred bytes a key.
	Params Limit = 1 << 20
	// Line is one line of a passphrase file. gpg 2.2.40 takes about 32
	// KiB (a 32 699-byte line is "out of core in secure memory"); 64
	// KiB is what --passphrase-fd and --command-fd take too.
	Line Limit = 64 << 10
)

func (l Limit) String() string {
	switch {
	case l >= 1<<20 && l%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", l>>20)
	case l >= 1<<10 && l%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", l>>10)
	}
	return fmt.Sprintf("%d bytes", int64(l))
}

// ErrTooLarge is wrapped by every TooLargeError.
var ErrTooLarge = errors.New("file over its size limit")

// TooLargeError names a file that holds more than its limit, or, with
// Line, a line longer than it.
type TooLargeError struct {
	Name  string // the file as it was named
	Limit Limit
	Line  bool
}

func (e *TooLargeError) Error() string {
	if e.Line {
		return fmt.Sprintf("%s: a line longer than %v", e.Name, e.Limit)
	}
	return fmt.Sprintf("%s: larger than %v", e.Name, e.Limit)
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// ReadFile reads the file at path whole. A regular file whose size is
// over the limit is refused before anything is read; anything else (a
// FIFO, a device, a file that grows) is read up to limit+1 bytes.
func ReadFile(path string, limit Limit) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hint := Limit(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if Limit(fi.Size()) > limit {
			return nil, &TooLargeError{Name: path, Limit: limit}
		}
		hint = Limit(fi.Size())
	}
	return read(f, path, limit, hint)
}

// ReadAll reads r to its end, name naming it in the error.
func ReadAll(r io.Reader, name string, limit Limit) ([]byte, error) {
	return read(r, name, limit, -1)
}

// ReadLines reads the file at path through the end of its nth line, and
// no further: the bytes returned end in its nth newline, or at the end
// of the file if it has fewer lines. A FIFO is not waited on once the
// lines are in. limit is per line: more than n*limit bytes without the
// nth newline are refused, after at most n*limit+1 were read.
func ReadLines(path string, n int, limit Limit) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	total := Limit(n) * limit
	var buf []byte
	chunk := make([]byte, 4<<10)
	for {
		m, err := f.Read(chunk[:min(Limit(len(chunk)), total+1-Limit(len(buf)))])
		buf = append(buf, chunk[:m]...)
		if end, ok := nthNewline(buf, n); ok && Limit(end) <= total {
			return buf[:end], nil
		}
		if Limit(len(buf)) > total {
			return nil, &TooLargeError{Name: path, Limit: limit, Line: true}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// nthNewline is the length of b through its nth newline.
func nthNewline(b []byte, n int) (int, bool) {
	end := 0
	for range n {
		i := bytes.IndexByte(b[end:], '\n')
		if i < 0 {
			return 0, false
		}
		end += i + 1
	}
	return end, true
}

// read reads r to its end in chunks, so that an input that turns out too
// large has cost limit+1 bytes of memory and no more: a buffer doubled
// as it fills would briefly hold half as much again. hint, when not
// negative, is the size expected (a regular file's), read in one chunk.
func read(r io.Reader, name string, limit Limit, hint Limit) ([]byte, error) {
	size := Limit(64 << 10)
	if hint >= 0 {
		size = hint + 1 // one more, to see the end without a second chunk
	}
	var chunks [][]byte
	var total Limit
	for {
		size = min(size, limit+1-total)
		c := make([]byte, size)
		n, err := io.ReadFull(r, c)
		chunks = append(chunks, c[:n])
		total += Limit(n)
		if total > limit {
			return nil, &TooLargeError{Name: name, Limit: limit}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(2*size, 4<<20)
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	return bytes.Join(chunks, nil), nil
}
