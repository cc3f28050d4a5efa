// Package startfds records which file descriptors the process inherited
// from its parent: the ones a caller may name on gpg's command line
// (--status-fd 3, --passphrase-fd 3, -&3 with --enable-special-filenames).
//
// When the caller opened no descriptor 3, the number still names a file:
// the program's own. Go 1.25 and later open the CPU cgroup's limit files
// (cpu.max, or cpu.cfs_quota_us and cpu.cfs_period_us) in schedinit,
// before any package is initialised, and keep them open for the life of
// the process to follow GOMAXPROCS; the netpoller's epoll and eventfd
// descriptors come with the first file os opens, and keyrings and agent
// sockets follow. Each takes the lowest free number. Reading a passphrase
// from "descriptor 3" then reads the cgroup quota; writing plaintext
// there writes into whatever the program opened. gpg checks each
// descriptor option while it parses the command line, before it opens
// anything ("passphrase-fd is invalid: Bad file descriptor"); a Go
// program cannot check that early, since the runtime opened files before
// main's first line.
//
// What tells the caller's descriptors apart is FD_CLOEXEC. execve(2)
// closes every descriptor that has it, so each descriptor the process
// inherited has it clear when the new program starts; the runtime opens
// everything with O_CLOEXEC (cgroup files, epoll, eventfd), and so does
// os. A descriptor that is open here with FD_CLOEXEC clear came from the
// caller. Standard input, output and error are the exception that does
// no harm: one the process was started without is /dev/null by now,
// opened by the runtime first of all (checkfds, since Go 1.22), as gpg
// reopens them, and counts as inherited.
//
// The set is recorded in this package's init, before anything else of
// the program can have changed a descriptor. The spec (Go 1.21 and later,
// checked with Go 1.26) initialises packages one at a time, each time the
// first package, in import-path order, whose imports are all initialised.
// This package imports only syscall. Every package that opens descriptors
// imports syscall too (internal/poll and os do), so whenever one of them
// is ready to be initialised, this package is as well, and
// "github.com/pgpstream/..." sorts before "internal/poll" and "os". What
// could still come first is a package that sorts before this path
// (crypto/..., github.com/ProtonMail/..., github.com/cloudflare/...),
// does not import os, and opens a descriptor through raw system calls in
// its init; none of this program's dependencies does. The tests run the
// binaries with GODEBUG=inittrace=1 and check that this init precedes
// those of internal/poll and os, and run them with descriptor 3 closed,
// so that the runtime's own file sits at 3, and check that it is not
// taken for the caller's.
package startfds

import "syscall"

// fdBound limits the scan where /proc is not mounted: descriptors from
// fdBound up are then taken as not inherited. With /proc the record is
// exact, whatever the numbers.
const fdBound = 1024

var inherited = record()

// Inherited reports whether fd was open when the process started, handed
// over by its parent (open, with FD_CLOEXEC clear).
func Inherited(fd int) bool {
	for _, f := range inherited {
		if f == fd {
			return true
		}
	}
	return false
}

func record() []int {
	fds, ok := fromProc()
	if !ok {
		fds = byFcntl(fdBound)
	}
	var out []int
	for _, fd := range fds {
		if fromParent(fd) {
			out = append(out, fd)
		}
	}
	return out
}

// fromParent reports whether fd is open without FD_CLOEXEC.
func fromParent(fd int) bool {
	flags, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	return errno == 0 && flags&syscall.FD_CLOEXEC == 0
}

func isOpen(fd int) bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	return errno == 0
}

// fromProc lists the open descriptors in /proc/self/fd, leaving out the
// one it reads the directory through.
func fromProc() ([]int, bool) {
	dir, err := syscall.Open("/proc/self/fd", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(dir)
	var fds []int
	buf := make([]byte, 4096)
	for {
		n, err := syscall.ReadDirent(dir, buf)
		if err != nil {
			return nil, false
		}
		if n <= 0 {
			return fds, true
		}
		_, _, names := syscall.ParseDirent(buf[:n], -1, nil)
		for _, name := range names {
			if fd, ok := number(name); ok && fd != dir {
				fds = append(fds, fd)
			}
		}
	}
}

// byFcntl lists the open descriptors below bound, one fcntl(F_GETFD)
// each (0.15 ms for 1024 here, against 0.01 ms for reading /proc).
func byFcntl(bound int) []int {
	var fds []int
	for fd := 0; fd < bound; fd++ {
		if isOpen(fd) {
			fds = append(fds, fd)
		}
	}
	return fds
}

// number reads a descriptor number, a directory entry's name. strconv is
// not imported: the package keeps to syscall, which os imports, for the
// argument of the package comment to hold.
func number(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
