package output

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is what pgpstream asks the kernel to make its standard input
// and output pipes: 1 MiB (the unprivileged maximum by default) instead of
// 64 KiB, so each read or write moves up to 1 MiB and the two processes
// on a pipe switch 16 times less often.
const pipeSize = 1 << 20

// GrowPipe enlarges f's pipe buffer if f is a pipe; anything else, or a
// kernel that says no, is left as it is.
func GrowPipe(f any) {
	file, ok := f.(*os.File)
	if !ok {
		return
	}
	fi, err := file.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return
	}
	if n, err := unix.FcntlInt(file.Fd(), unix.F_GETPIPE_SZ, 0); err == nil && n < pipeSize {
		unix.FcntlInt(file.Fd(), unix.F_SETPIPE_SZ, pipeSize)
	}
}
