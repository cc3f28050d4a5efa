package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// terminal is a pseudo-terminal that a pgpstream process has as its
// controlling terminal (/dev/tty), and what was written to it.
type terminal struct {
	master *os.File
	mu     sync.Mutex
	seen   bytes.Buffer
}

func newTerminal(t *testing.T) (*terminal, *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{master: m}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			term.mu.Lock()
			term.seen.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { m.Close(); s.Close() })
	return term, s
}

// await waits until the terminal shows want (after what was awaited
// before), then types reply.
func (term *terminal) await(t *testing.T, want, reply string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		term.mu.Lock()
		i := strings.Index(term.seen.String(), want)
		if i >= 0 {
			term.seen.Next(i + len(want))
		}
		shown := term.seen.String()
		term.mu.Unlock()
		if i >= 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q; it shows %q", want, shown)
		}
		time.Sleep(10 * time.Millisecond)
	}
	term.master.WriteString(reply)
}

// onTerminal starts pgpstream with the terminal as its controlling one
// (and standard input), no agent to ask, in dir.
func onTerminal(t *testing.T, dir string, slave *os.File, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	c := pgpstreamCmd(t, append([]string{"--homedir", filepath.Join(dir, "home")}, args...)...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GNUPGHOME="+filepath.Join(dir, "no-gnupg"))
	c.Stdin, c.Stdout = slave, nil
	var stderr bytes.Buffer
	c.Stderr = &stderr
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c, &stderr
}

// A new passphrase is asked twice on the terminal, and two different
// answers are refused, as gpg refuses them: for -c, a new key and
// --passwd's new passphrase.
func TestTerminalAsksTwice(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "home"), 0o700)
	os.WriteFile(filepath.Join(dir, "plain.txt"), []byte("typed\n"), 0o600)

	term, slave := newTerminal(t)
	c, stderr := onTerminal(t, dir, slave, "-c", "-o", "bad.pgp", "plain.txt")
	term.await(t, "Passphrase: ", "one\r")
	term.await(t, "Repeat passphrase: ", "two\r")
	if err := c.Wait(); err == nil || !strings.Contains(stderr.String(), "do not match") {
		t.Fatalf("mismatch: %v %s", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.pgp")); err == nil {
		t.Fatal("bad.pgp was written")
	}

	c, stderr = onTerminal(t, dir, slave, "-c", "-o", "good.pgp", "plain.txt")
	term.await(t, "Enter a passphrase to encrypt the message with.", "")
	term.await(t, "Passphrase: ", "same\r")
	term.await(t, "Repeat passphrase: ", "same\r")
	if err := c.Wait(); err != nil {
		t.Fatalf("matching: %v %s", err, stderr)
	}
	if code, out, e := runInProcess(nil, "--homedir", filepath.Join(dir, "home"), "--batch", "--passphrase", "same", "-d", filepath.Join(dir, "good.pgp")); code != 0 || string(out) != "typed\n" {
		t.Fatalf("decrypting: %d %q %s", code, out, e)
	}

	// Decrypting asks once, and says what for.
	c, stderr = onTerminal(t, dir, slave, "-o", "back.txt", "-d", "good.pgp")
	term.await(t, "the message was encrypted with", "")
	term.await(t, "Passphrase: ", "same\r")
	if err := c.Wait(); err != nil {
		t.Fatalf("decrypting on the terminal: %v %s", err, stderr)
	}

	// A new key: twice; then --passwd: the old once, the new twice.
	c, stderr = onTerminal(t, dir, slave, "--quick-gen-key", "T <t@example.org>")
	term.await(t, "Passphrase: ", "k1\r")
	term.await(t, "Repeat passphrase: ", "k1\r")
	if err := c.Wait(); err != nil {
		t.Fatalf("new key: %v %s", err, stderr)
	}
	fpr := ""
	_, out, _ := runInProcess(nil, "--homedir", filepath.Join(dir, "home"), "--with-colons", "-K")
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Split(l, ":"); f[0] == "fpr" && fpr == "" {
			fpr = f[9]
		}
	}
	c, stderr = onTerminal(t, dir, slave, "--passwd", fpr)
	term.await(t, "protects the key now", "")
	term.await(t, "Passphrase: ", "k1\r")
	term.await(t, "new passphrase", "")
	term.await(t, "Passphrase: ", "k2\r")
	term.await(t, "Repeat passphrase: ", "k3\r")
	if err := c.Wait(); err == nil || !strings.Contains(stderr.String(), "do not match") {
		t.Fatalf("--passwd mismatch: %v %s", err, stderr)
	}
	c, stderr = onTerminal(t, dir, slave, "--passwd", fpr)
	term.await(t, "Passphrase: ", "k1\r")
	term.await(t, "Passphrase: ", "k2\r")
	term.await(t, "Repeat passphrase: ", "k2\r")
	if err := c.Wait(); err != nil {
		t.Fatalf("--passwd: %v %s", err, stderr)
	}
	if code, _, e := runInProcess(nil, "--homedir", filepath.Join(dir, "home"), "--batch", "--passphrase", "k2", "--clear-sign", filepath.Join(dir, "plain.txt")); code != 0 {
		t.Fatalf("the new passphrase does not unlock the key: %s", e)
	}
}
