package dotlock

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

// gpg --import waits while pgpstream holds pubring.kbx's lock, and goes
// on once it is released.
func TestGpgWaitsForUs(t *testing.T) {
	maker := gnupgtest.New(t)
	fpr := maker.GenKey("Lock Test <lock@example.org>", "ed25519", "", "")
	key := maker.Run(nil, "gpg", "--export", fpr)
	h := gnupgtest.New(t)
	h.Run(nil, "gpg", "--list-keys") // makes pubring.kbx
	kbx := filepath.Join(h.Dir, "pubring.kbx")
	l, err := Take(kbx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command("gpg", "--batch", "--import")
	c.Env = h.Env()
	c.Stdin = bytes.NewReader(key)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		l.Release()
		t.Fatalf("gpg --import finished while the lock was held (%v): %s", err, stderr.String())
	case <-time.After(2500 * time.Millisecond):
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("gpg --import: %v: %s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		c.Process.Kill()
		t.Fatalf("gpg --import did not go on after the release: %s", stderr.String())
	}
	if !bytes.Contains(stderr.Bytes(), []byte("waiting for lock")) {
		t.Logf("gpg did not say it waited: %s", stderr.String())
	}
	h.Run(nil, "gpg", "--list-keys", fpr)
}
