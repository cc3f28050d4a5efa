package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

// progressMark is what every drawing of the progress line holds.
const progressMark = "B/s"

// slowInput is a FIFO that a test feeds a message through in two parts,
// so that pgpstream reads (and its progress ticks) for as long as the
// test wants.
type slowInput struct {
	path string
	f    *os.File
}

func newSlowInput(t *testing.T, dir string) *slowInput {
	t.Helper()
	path := filepath.Join(dir, "in.fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFOs: %v", err)
	}
	return &slowInput{path: path}
}

// open opens the FIFO for writing; pgpstream must have been started.
func (s *slowInput) open(t *testing.T) {
	t.Helper()
	f, err := os.OpenFile(s.path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.f = f
	t.Cleanup(func() { f.Close() })
}

func (s *slowInput) write(t *testing.T, b []byte) {
	t.Helper()
	if _, err := s.f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// seen is what the terminal showed so far, from the start.
func (term *terminal) shown() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.seen.String()
}

// waitShown waits until the terminal shows want, anywhere from the
// start, and returns what it showed then.
func (term *terminal) waitShown(t *testing.T, want string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if s := term.shown(); strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q; it shows %q", want, term.shown())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// symMessage is a -c message of 64 KiB under passphrase pw, and its
// plaintext.
func symMessage(t *testing.T, dir string) (msg, plain []byte) {
	t.Helper()
	plain = bytes.Repeat([]byte("progress\n"), 64<<10/9)
	os.WriteFile(filepath.Join(dir, "plain.txt"), plain, 0o600)
	mustRun(t, nil, "--homedir", filepath.Join(dir, "home"), "--batch", "--passphrase", "pw", "-c", "-o", filepath.Join(dir, "msg.pgp"), filepath.Join(dir, "plain.txt"))
	msg, err := os.ReadFile(filepath.Join(dir, "msg.pgp"))
	if err != nil {
		t.Fatal(err)
	}
	return msg, plain
}

// onTerminalStderr starts pgpstream with the terminal as its controlling
// terminal, standard input and standard error.
func onTerminalStderr(t *testing.T, dir string, slave *os.File, env []string, args ...string) *exec.Cmd {
	t.Helper()
	c := pgpstreamCmd(t, args...)
	c.Dir = dir
	c.Env = append(os.Environ(), append([]string{"GNUPGHOME=" + filepath.Join(dir, "no-gnupg")}, env...)...)
	c.Stdin, c.Stderr = slave, slave
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c
}

// finish feeds the rest of the message after a pause long enough for a
// few progress ticks, and waits for pgpstream to succeed.
func finish(t *testing.T, c *exec.Cmd, in *slowInput, rest []byte) {
	t.Helper()
	finishWhen(t, c, in, rest, nil)
}

// finishWhen is finish that waits, instead of the pause, until drawn
// reports that the progress was shown (or 20 seconds passed: the test's
// own check then fails), so that a loaded machine gives no false alarm.
func finishWhen(t *testing.T, c *exec.Cmd, in *slowInput, rest []byte, drawn func() bool) {
	t.Helper()
	if drawn == nil {
		time.Sleep(4 * progressInterval)
	}
	for deadline := time.Now().Add(20 * time.Second); drawn != nil && !drawn() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	in.write(t, rest)
	in.f.Close()
	if err := c.Wait(); err != nil {
		t.Fatalf("pgpstream: %v", err)
	}
}

// While the terminal asks for the passphrase the progress line is not
// drawn over the prompt; once it is answered, it is.
func TestProgressNotOverPrompt(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "home"), 0o700)
	msg, plain := symMessage(t, dir)
	term, slave := newTerminal(t)
	in := newSlowInput(t, dir)
	c := onTerminalStderr(t, dir, slave, nil, "--homedir", filepath.Join(dir, "home"), "-o", "out.txt", "-d", in.path)
	in.open(t)
	in.write(t, msg[:len(msg)/2])
	before := term.waitShown(t, "Passphrase: ")
	time.Sleep(4 * progressInterval) // ticks, while the question waits
	during := strings.TrimPrefix(term.shown(), before)
	if strings.Contains(before[strings.LastIndex(before, "\n")+1:], progressMark) || strings.Contains(during, progressMark) {
		t.Errorf("the progress line was drawn over the prompt: %q", term.shown())
	}
	term.master.WriteString("pw\r")
	finishWhen(t, c, in, msg[len(msg)/2:], func() bool {
		return strings.Contains(strings.TrimPrefix(term.shown(), before+during), progressMark)
	})
	if after := strings.TrimPrefix(term.shown(), before+during); !strings.Contains(after, progressMark) {
		t.Errorf("no progress line once the passphrase was given: %q", after)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "out.txt")); !bytes.Equal(got, plain) {
		t.Error("out.txt is not the plaintext")
	}
}

// The status lines on the same terminal (--status-fd 2) get no progress
// line among them; PROGRESS status lines say it instead.
func TestProgressNotIntoStatusFd2(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "home"), 0o700)
	msg, _ := symMessage(t, dir)
	os.WriteFile(filepath.Join(dir, "pw"), []byte("pw\n"), 0o600)
	term, slave := newTerminal(t)
	in := newSlowInput(t, dir)
	c := onTerminalStderr(t, dir, slave, nil, "--homedir", filepath.Join(dir, "home"), "--status-fd", "2", "--passphrase-file", "pw", "-o", "out.txt", "-d", in.path)
	in.open(t)
	in.write(t, msg[:len(msg)/2])
	finish(t, c, in, msg[len(msg)/2:])
	shown := term.shown()
	if strings.Contains(shown, progressMark) || strings.Contains(shown, "\r[GNUPG:]") || !strings.Contains(shown, "[GNUPG:] PROGRESS ") {
		t.Errorf("--status-fd 2 on the terminal: %q", shown)
	}
}

// Messages to a file (--logger-fd) get no progress line, even with
// --progress: it is drawn on a terminal or not at all.
func TestProgressNotIntoLogger(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "home"), 0o700)
	msg, _ := symMessage(t, dir)
	os.WriteFile(filepath.Join(dir, "pw"), []byte("pw\n"), 0o600)
	log, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	term, slave := newTerminal(t)
	in := newSlowInput(t, dir)
	c := pgpstreamCmd(t, "--homedir", filepath.Join(dir, "home"), "--progress", "--logger-fd", "3", "--passphrase-file", "pw", "-o", "out.txt", "-d", in.path)
	c.Dir = dir
	c.Stdin, c.Stderr, c.ExtraFiles = slave, slave, []*os.File{log}
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	in.open(t)
	in.write(t, msg[:len(msg)/2])
	finish(t, c, in, msg[len(msg)/2:])
	got, _ := os.ReadFile(filepath.Join(dir, "log"))
	if strings.Contains(string(got), progressMark) || strings.Contains(term.shown(), progressMark) {
		t.Errorf("--progress --logger-fd 3 (a file): the log holds %q, the terminal %q", got, term.shown())
	}
}

// A question on the command fd: between its GET_HIDDEN and GOT_IT no
// PROGRESS line is written and the terminal's line is not drawn.
func TestProgressNotDuringCommandFd(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "home"), 0o700)
	msg, _ := symMessage(t, dir)
	term, slave := newTerminal(t)
	in := newSlowInput(t, dir)
	statusR, statusW, _ := os.Pipe()
	cmdR, cmdW, _ := os.Pipe()
	c := pgpstreamCmd(t, "--homedir", filepath.Join(dir, "home"), "--status-fd", "3", "--command-fd", "4", "--pinentry-mode", "loopback", "-o", "out.txt", "-d", in.path)
	c.Dir = dir
	c.Env = append(os.Environ(), "GNUPGHOME="+filepath.Join(dir, "no-gnupg"))
	c.Stdin, c.Stderr, c.ExtraFiles = slave, slave, []*os.File{statusW, cmdR}
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	statusW.Close()
	cmdR.Close()
	in.open(t)
	in.write(t, msg[:len(msg)/2])
	lines := bufio.NewScanner(statusR)
	var status []string
	for lines.Scan() {
		status = append(status, lines.Text())
		if strings.HasPrefix(lines.Text(), "[GNUPG:] GET_HIDDEN ") {
			break
		}
	}
	asked := term.shown()
	time.Sleep(4 * progressInterval)
	if during := strings.TrimPrefix(term.shown(), asked); strings.Contains(during, progressMark) {
		t.Errorf("the progress line was drawn while the command fd was asked: %q", during)
	}
	answered := term.shown()
	cmdW.WriteString("pw\n")
	cmdW.Close()
	done := make(chan struct{})
	go func() {
		for lines.Scan() {
			status = append(status, lines.Text())
		}
		close(done)
	}()
	finishWhen(t, c, in, msg[len(msg)/2:], func() bool {
		return strings.Contains(strings.TrimPrefix(term.shown(), answered), progressMark)
	})
	<-done
	i := len(status)
	for j, l := range status {
		if strings.HasPrefix(l, "[GNUPG:] GET_HIDDEN ") {
			i = j
		}
	}
	if i+1 >= len(status) || status[i+1] != "[GNUPG:] GOT_IT" {
		t.Errorf("GET_HIDDEN is not followed by GOT_IT: %q", status)
	}
	if !strings.Contains(strings.Join(status, "\n"), "[GNUPG:] PROGRESS ") || !strings.Contains(term.shown(), progressMark) {
		t.Errorf("no progress once answered: status %q, terminal %q", status, term.shown())
	}
}

// pinentryOnTTY is a pinentry that marks, on the terminal the agent
// names, when it starts asking and when it is done, a second later, and
// answers pin.
const pinentryOnTTY = `#!/bin/sh
tty=/dev/null
echo "OK Pleased to meet you"
while IFS= read -r line; do
  case "$line" in
    "OPTION ttyname="*) tty=${line#OPTION ttyname=}; echo OK;;
    GETPIN*) printf '[pinentry asks]' > "$tty"; sleep 1; printf '[pinentry done]' > "$tty"
      printf 'D kp\nOK\n';;
    BYE*) echo "OK closing connection"; exit 0;;
    *) echo OK;;
  esac
done
`

// gpg-agent's pinentry, asking on the terminal for the passphrase of a
// key a GnuPG home's agent holds, is not drawn over.
func TestProgressNotOverPinentry(t *testing.T) {
	h := gnupgtest.New(t)
	dir := t.TempDir()
	prog := filepath.Join(h.Dir, "pinentry.sh")
	os.WriteFile(prog, []byte(pinentryOnTTY), 0o700)
	os.WriteFile(filepath.Join(h.Dir, "gpg-agent.conf"), []byte("allow-loopback-pinentry\npinentry-program "+prog+"\n"), 0o600)
	h.GenKey("P <p@example.org>", "ed25519", "cv25519", "kp")
	plain := bytes.Repeat([]byte("progress\n"), 64<<10/9)
	h.Run(plain, "gpg", "--batch", "--trust-model", "always", "-z", "0", "-e", "-r", "p@example.org", "-o", filepath.Join(dir, "msg.gpg"))
	h.Run(nil, "gpgconf", "--kill", "gpg-agent") // nothing cached
	msg, err := os.ReadFile(filepath.Join(dir, "msg.gpg"))
	if err != nil {
		t.Fatal(err)
	}

	term, slave := newTerminal(t)
	in := newSlowInput(t, dir)
	c := pgpstreamCmd(t, "--homedir", h.Dir, "-o", "out.txt", "-d", in.path)
	c.Dir = dir
	c.Env = append(h.Env(), "GPG_TTY="+slave.Name())
	c.Stdin, c.Stderr = slave, slave
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	in.open(t)
	in.write(t, msg[:len(msg)/2])
	term.waitShown(t, "[pinentry done]")
	finishWhen(t, c, in, msg[len(msg)/2:], func() bool {
		_, after, _ := strings.Cut(term.shown(), "[pinentry done]")
		return strings.Contains(after, progressMark)
	})
	shown := term.shown()
	_, during, _ := strings.Cut(shown, "[pinentry asks]")
	during, after, _ := strings.Cut(during, "[pinentry done]")
	if strings.Contains(during, progressMark) {
		t.Errorf("the progress line was drawn while the pinentry asked: %q", shown)
	}
	if !strings.Contains(after, progressMark) {
		t.Errorf("no progress line after the pinentry: %q", shown)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "out.txt")); !bytes.Equal(got, plain) {
		t.Error("out.txt is not the plaintext")
	}
}

// Plaintext written to the terminal (no -o) gets no progress line in it.
func TestProgressNotOverOutput(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "home"), 0o700)
	msg, _ := symMessage(t, dir)
	os.WriteFile(filepath.Join(dir, "pw"), []byte("pw\n"), 0o600)
	term, slave := newTerminal(t)
	in := newSlowInput(t, dir)
	c := pgpstreamCmd(t, "--homedir", filepath.Join(dir, "home"), "--passphrase-file", "pw", "-d", in.path)
	c.Dir = dir
	c.Env = append(os.Environ(), "GNUPGHOME="+filepath.Join(dir, "no-gnupg"))
	c.Stdin, c.Stdout, c.Stderr = slave, slave, slave
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	in.open(t)
	in.write(t, msg[:len(msg)/2])
	finish(t, c, in, msg[len(msg)/2:])
	if shown := term.waitShown(t, "progress\r\n"); strings.Contains(shown, progressMark) {
		t.Errorf("the progress line was drawn into the plaintext on the terminal")
	}
}
