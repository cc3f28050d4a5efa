package keyring

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// lockName is the lock file in the home. Its contents mean nothing; the
// lock is flock(2) on it, which the kernel drops when the holder exits,
// however it exits (kill -9 included), so a lock is never stale and needs
// no PID file or timeout to recover.
const lockName = "pgpstream.lock"

// lockHome takes the home's exclusive writer lock, waiting for another
// writer to finish, and returns the function that releases it.
func lockHome(home string) (func(), error) {
	path := filepath.Join(home, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("keyring: opening the lock file: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("keyring: locking %s: %w", path, err)
	}
	return func() {
		// Closing the descriptor releases the lock.
		f.Close()
	}, nil
}
