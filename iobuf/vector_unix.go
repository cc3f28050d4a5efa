//go:build unix

package iobuf

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// fileWriter is writev(2) on a file, through the runtime's poller so a
// non-blocking pipe waits for room as os.File.Write does.
type fileWriter struct {
	f    *os.File
	raw  syscall.RawConn
	iovs [][]byte
}

func fileVectors(f *os.File) VectorWriter {
	raw, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	return &fileWriter{f: f, raw: raw}
}

// maxIOV is below every kernel's IOV_MAX (1024 on Linux).
const maxIOV = 512

func (w *fileWriter) WriteVectors(bufs [][]byte) (int64, error) {
	var total int64
	w.iovs = append(w.iovs[:0], bufs...)
	iovs := w.iovs
	for len(iovs) > 0 {
		for len(iovs) > 0 && len(iovs[0]) == 0 {
			iovs = iovs[1:]
		}
		if len(iovs) == 0 {
			break
		}
		batch := iovs[:min(len(iovs), maxIOV)]
		var n int
		var werr error
		err := w.raw.Write(func(fd uintptr) bool {
			n, werr = unix.Writev(int(fd), batch)
			return werr != unix.EAGAIN
		})
		if err == nil {
			err = werr
		}
		if n > 0 {
			total += int64(n)
		}
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			return total, &os.PathError{Op: "write", Path: w.f.Name(), Err: err}
		}
		if n == 0 {
			return total, io.ErrShortWrite
		}
		// Step past what was written: whole buffers, then part of one.
		for n > 0 {
			if n >= len(iovs[0]) {
				n -= len(iovs[0])
				iovs = iovs[1:]
			} else {
				iovs[0] = iovs[0][n:]
				n = 0
			}
		}
	}
	clear(w.iovs)
	return total, nil
}
