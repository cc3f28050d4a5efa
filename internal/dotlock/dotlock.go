// Package dotlock takes and releases GnuPG's lock on a file: the
// protocol of GnuPG's common/dotlock.c, which gpg, gpgsm and gpg-agent
// use for pubring.kbx, pubring.gpg and trustdb.gpg, so that pgpstream
// and gpg never change the same file at once.
//
// The lock on NAME is the file NAME.lock. A taker first writes its own
// file in NAME's directory, ".#lk<unique>.<host>.<pid>", holding its PID
// as ten characters right-aligned and a line feed, then the host name
// and a line feed. It then hard-links that file to NAME.lock: link(2) is
// atomic even over NFS, where O_EXCL was not, and its return value is
// not trusted; the lock is held when the taker's own file has a link
// count of 2. Otherwise NAME.lock names its holder: if that is a process
// of this host which no longer exists, the lock is stale and is removed
// and taken over, as gpg does; else the taker waits and tries again, up
// to a timeout. Releasing removes NAME.lock, then the taker's own file.
//
// flock(2) is not used: gpg does not look at it, so it would not keep
// gpg out.
package dotlock

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ErrTimeout is wrapped by the error Lock returns when the lock stayed
// held for the whole timeout.
var ErrTimeout = errors.New("timed out waiting for the lock")

// HeldError says who holds a lock that could not be taken in time.
type HeldError struct {
	Lock string // the lock file, NAME.lock
	PID  int    // the holder's PID as the lock file gives it; 0 if unreadable
	Host string // the holder's host
	Wait time.Duration
}

func (e *HeldError) Error() string {
	who := "another process"
	if e.PID != 0 {
		who = fmt.Sprintf("process %d", e.PID)
		if e.Host != "" {
			who += " on " + e.Host
		}
	}
	return fmt.Sprintf("%s is held by %s; waited %s (remove the file if that process is gone)", e.Lock, who, e.Wait.Round(time.Millisecond))
}

func (e *HeldError) Unwrap() error { return ErrTimeout }

// Lock is a lock held.
type Lock struct {
	name string // NAME.lock
	temp string // the taker's own file
}

// Options tune the waiting.
type Options struct {
	// Timeout is how long Lock waits for a holder to release it; 0
	// means DefaultTimeout, a negative one tries once.
	Timeout time.Duration
	// Waiting, if not nil, is told every few seconds that the lock is
	// held (gpg's "waiting for lock (held by PID) ...").
	Waiting func(lock string, pid int)
}

// DefaultTimeout is how long a change waits for gpg to finish with its
// ring. gpg itself waits without end; a bound turns a forgotten lock
// into an error that names it.
const DefaultTimeout = 30 * time.Second

var seq atomic.Uint64

// Take takes the lock on file (the lock file is file+".lock").
func Take(file string, opt Options) (*Lock, error) {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown" // as gpg says when uname fails
	}
	pid := os.Getpid()
	dir := filepath.Dir(file)
	// gpg puts the handle's address in the name; a counter is as
	// unique within the process, and the PID makes it so across them.
	temp := filepath.Join(dir, fmt.Sprintf(".#lk%x.%s.%d", seq.Add(1), host, pid))
	content := fmt.Sprintf("%10d\n%s\n", pid, host)
	f, err := os.OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("dotlock: creating %s: %w", temp, err)
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(temp)
		return nil, fmt.Errorf("dotlock: writing %s: %w", temp, err)
	}
	l := &Lock{name: file + ".lock", temp: temp}
	// Known before the link is made: another goroutine that finds the
	// lock with this PID must not think it stale.
	held.Store(temp, struct{}{})
	drop := func() { held.Delete(temp); os.Remove(temp) }
	timeout := opt.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	start := time.Now()
	wait, lastPID, lastTold := 0*time.Millisecond, 0, start
	for {
		ok, pid, holderHost, err := l.try(host)
		if ok {
			return l, nil
		}
		if err != nil {
			drop()
			return nil, err
		}
		if pid == -1 {
			continue // stale lock removed, or it vanished: try at once
		}
		elapsed := time.Since(start)
		if timeout < 0 || elapsed >= timeout {
			drop()
			return nil, &HeldError{Lock: l.name, PID: pid, Host: holderHost, Wait: elapsed}
		}
		// gpg's next_wait_interval: 50 ms doubling to 2 s, restarted
		// when the holder changes.
		if pid != lastPID {
			wait, lastPID = 0, pid
		}
		switch {
		case wait == 0:
			wait = 50 * time.Millisecond
		case wait < 2*time.Second:
			wait *= 2
		}
		if rest := timeout - elapsed; wait > rest {
			wait = rest
		}
		if opt.Waiting != nil && time.Since(lastTold) >= 1500*time.Millisecond {
			opt.Waiting(l.name, pid)
			lastTold = time.Now()
		}
		time.Sleep(wait)
	}
}

// try makes one attempt. It returns ok when the lock is now held; else
// the holder's PID and host, or pid -1 when the caller should try again
// at once (the lock vanished, or was stale and is removed).
func (l *Lock) try(host string) (ok bool, pid int, holderHost string, err error) {
	// link's result is not trusted (NFS may report a failure for a
	// link made); the link count is.
	_ = os.Link(l.temp, l.name)
	var st syscall.Stat_t
	if err := syscall.Stat(l.temp, &st); err != nil {
		return false, 0, "", fmt.Errorf("dotlock: lock not made: %s: %w", l.temp, err)
	}
	if st.Nlink == 2 {
		return true, 0, "", nil
	}
	f, err := os.Open(l.name)
	if errors.Is(err, os.ErrNotExist) {
		return false, -1, "", nil
	}
	if err != nil {
		return false, 0, "", fmt.Errorf("dotlock: reading %s: %w", l.name, err)
	}
	defer f.Close()
	buf := make([]byte, 10+1+256+1)
	n, _ := f.Read(buf)
	pid, holderHost, perr := parse(buf[:n])
	if perr != nil {
		// gpg gives up on such a file too; say which it is.
		return false, 0, "", fmt.Errorf("dotlock: %s: %w", l.name, perr)
	}
	if holderHost == host && (pid == os.Getpid() && !heldHere(f) || pid != os.Getpid() && !alive(pid)) {
		// Stale: a process of this host that is gone, or this
		// process's PID on a lock no Lock of it holds (a process
		// before it with the same PID left it). Check that the file
		// examined is still the lock before removing it: another
		// taker may have removed it and made a new one meanwhile.
		var fst syscall.Stat_t
		if err := syscall.Fstat(int(f.Fd()), &fst); err != nil || fst.Nlink == 0 {
			return false, -1, "", nil
		}
		os.Remove(l.name)
		return false, -1, "", nil
	}
	return false, pid, holderHost, nil
}

// held is the temp files of the Locks this process holds.
var held sync.Map // temp path -> struct{}

// heldHere reports whether the open lock file is the temp file of a
// Lock this process holds: another goroutine's, which it will release.
func heldHere(f *os.File) bool {
	var a syscall.Stat_t
	if syscall.Fstat(int(f.Fd()), &a) != nil {
		return false
	}
	found := false
	held.Range(func(k, _ any) bool {
		var b syscall.Stat_t
		if syscall.Stat(k.(string), &b) == nil && a.Ino == b.Ino && a.Dev == b.Dev {
			found = true
		}
		return !found
	})
	return found
}

// parse reads a lock file: the PID in ten characters and a line feed,
// then the host and a line feed (gpg's read_lockfile; without the host
// line the holder's host is unknown and the lock is never stale).
func parse(b []byte) (int, string, error) {
	if len(b) < 11 || b[10] != '\n' {
		return 0, "", fmt.Errorf("not a lock file: want a 10-character PID and a line feed, got %q", b[:min(len(b), 11)])
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:10])))
	if err != nil || pid <= 0 {
		return 0, "", fmt.Errorf("invalid PID %q in the lock file", bytes.TrimSpace(b[:10]))
	}
	rest := b[11:]
	host := ""
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		host = string(rest[:i])
	}
	return pid, host, nil
}

// alive reports whether a process pid exists on this host. EPERM (a
// process of another user) is alive.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Release gives the lock up: NAME.lock first, so a waiter may take it,
// then the taker's own file. It reports a lock file that is no longer
// this Lock's (someone removed it as stale).
func (l *Lock) Release() error {
	if l == nil || l.temp == "" {
		return nil
	}
	defer func() { held.Delete(l.temp); os.Remove(l.temp); l.temp = "" }()
	var a, b syscall.Stat_t
	if err := syscall.Stat(l.name, &a); err != nil {
		return fmt.Errorf("dotlock: releasing %s: %w", l.name, err)
	}
	if err := syscall.Stat(l.temp, &b); err != nil || a.Ino != b.Ino || a.Dev != b.Dev {
		return fmt.Errorf("dotlock: releasing %s: the lock is not ours any more", l.name)
	}
	if err := os.Remove(l.name); err != nil {
		return fmt.Errorf("dotlock: releasing %s: %w", l.name, err)
	}
	return nil
}

// Name is the lock file.
func (l *Lock) Name() string { return l.name }
