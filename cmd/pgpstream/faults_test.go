package main

// Fault injection through the real binary: special output targets, kill
// -9 at random points, signals and closed pipes on every output stream,
// a full file system. These run in CI (not skipped by -short) and take a
// few seconds.

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// faultFixture is a key and two messages to it: big (SEIPD v1, 24 MiB, so
// a decryption takes long enough to be interrupted) and small (SEIPD v1,
// under the hold-back) with its plaintext.
type faultFixture struct {
	bin, home     string
	big, small    string
	smallPlain    []byte
	tampered      string // small with a flipped ciphertext bit
	aeadTruncated string // an AEAD message in 64 KiB chunks missing its end
}

func newFaultFixture(t *testing.T) *faultFixture {
	t.Helper()
	bin := pgpstreamPath(t)
	dir := t.TempDir()
	f := &faultFixture{bin: bin, home: filepath.Join(dir, "home")}
	f.run(t, nil, "--batch", "--quick-gen-key", "Fault <fault@example.org>")
	f.big = filepath.Join(dir, "big.pgp")
	f.run(t, io.LimitReader(zeros{}, 24<<20), "--batch", "-e", "-r", "fault@example.org", "-o", f.big)
	f.smallPlain = bytes.Repeat([]byte("small plaintext\n"), 4096)
	f.small = filepath.Join(dir, "small.pgp")
	f.run(t, bytes.NewReader(f.smallPlain), "--batch", "-e", "-r", "fault@example.org", "-o", f.small)
	b, _ := os.ReadFile(f.small)
	b[len(b)-30] ^= 1
	f.tampered = filepath.Join(dir, "tampered.pgp")
	os.WriteFile(f.tampered, b, 0o644)
	aead := filepath.Join(dir, "aead.pgp")
	f.run(t, io.LimitReader(zeros{}, 1<<20), "--batch", "-e", "-r", "fault@example.org", "--force-aead", "--chunk-size", "16", "-o", aead)
	b, _ = os.ReadFile(aead)
	f.aeadTruncated = filepath.Join(dir, "aead-cut.pgp")
	os.WriteFile(f.aeadTruncated, b[:len(b)/2], 0o644)
	return f
}

func (f *faultFixture) command(args ...string) *exec.Cmd {
	return exec.Command(f.bin, append([]string{"--homedir", f.home}, args...)...)
}

func (f *faultFixture) run(t *testing.T, stdin io.Reader, args ...string) {
	t.Helper()
	cmd := f.command(args...)
	cmd.Stdin = stdin
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pgpstream %v: %v\n%s", args, err, out)
	}
}

// exitCode runs cmd and returns its exit status and standard error; a
// death by signal is a test failure.
func exitCode(t *testing.T, cmd *exec.Cmd) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	if cmd.Stderr == nil {
		cmd.Stderr = &stderr
	}
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() {
			t.Fatalf("%v: killed by %v; stderr %q", cmd.Args, ws.Signal(), stderr.String())
		}
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// TestOutputTargets: FIFOs, devices and symlinks are written in place, a
// symlink to a file writes the file, and modes are kept.
func TestOutputTargets(t *testing.T) {
	f := newFaultFixture(t)
	dir := t.TempDir()

	t.Run("dev-null", func(t *testing.T) {
		// No --yes needed, and /dev/null stays a device.
		code, stderr := exitCode(t, f.command("--batch", "-d", "-o", "/dev/null", f.small))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		fi, err := os.Lstat("/dev/null")
		if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("/dev/null is now %v (%v)", fi.Mode(), err)
		}
		// A symlink to it is written through, and stays a symlink.
		link := filepath.Join(dir, "null-link")
		os.Symlink("/dev/null", link)
		if code, stderr := exitCode(t, f.command("--batch", "-d", "-o", link, f.small)); code != 0 {
			t.Fatalf("symlink to /dev/null: exit %d: %s", code, stderr)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the symlink was replaced: %v", err)
		}
	})

	t.Run("dev-stdout", func(t *testing.T) {
		for _, target := range []string{"/dev/stdout", "/proc/self/fd/1"} {
			// Standard output a pipe, then a file the shell opened.
			cmd := f.command("--batch", "-d", "-o", target, f.small)
			var out bytes.Buffer
			cmd.Stdout = &out
			if code, stderr := exitCode(t, cmd); code != 0 || !bytes.Equal(out.Bytes(), f.smallPlain) {
				t.Fatalf("%s to a pipe: exit %d, %d bytes: %s", target, code, out.Len(), stderr)
			}
			name := filepath.Join(dir, "shell-opened")
			file, _ := os.Create(name)
			cmd = f.command("--batch", "-d", "-o", target, f.small)
			cmd.Stdout = file
			code, stderr := exitCode(t, cmd)
			file.Close()
			got, _ := os.ReadFile(name)
			if code != 0 || !bytes.Equal(got, f.smallPlain) {
				t.Fatalf("%s to a file: exit %d, %d bytes: %s", target, code, len(got), stderr)
			}
		}
	})

	t.Run("fifo", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		read := func() chan []byte {
			ch := make(chan []byte, 1)
			go func() {
				b, _ := os.ReadFile(fifo)
				ch <- b
			}()
			return ch
		}
		got := read()
		if code, stderr := exitCode(t, f.command("--batch", "-d", "-o", fifo, f.small)); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if b := <-got; !bytes.Equal(b, f.smallPlain) {
			t.Fatalf("the FIFO's reader got %d bytes, want %d", len(b), len(f.smallPlain))
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("the FIFO was replaced: %v", err)
		}
		// A tampered SEIPD v1 message under the hold-back: the reader
		// gets nothing, as on standard output.
		got = read()
		code, stderr := exitCode(t, f.command("--batch", "-d", "-o", fifo, f.tampered))
		if b := <-got; code != 2 || len(b) != 0 {
			t.Fatalf("tampered: exit %d, the reader got %d bytes: %s", code, len(b), stderr)
		}
		// A truncated AEAD message: only authenticated chunks reach
		// the reader, and the command fails.
		got = read()
		code, stderr = exitCode(t, f.command("--batch", "-d", "-o", fifo, f.aeadTruncated))
		b := <-got
		if code != 2 || len(b) == 0 || len(b) >= 1<<20 || !bytes.Equal(b, make([]byte, len(b))) || strings.Contains(stderr, "hint: more than") {
			t.Fatalf("truncated AEAD: exit %d, the reader got %d bytes: %s", code, len(b), stderr)
		}
	})

	t.Run("symlink-to-file", func(t *testing.T) {
		target := filepath.Join(dir, "target")
		os.WriteFile(target, []byte("old"), 0o600)
		os.Chmod(target, 0o600)
		link := filepath.Join(dir, "link")
		os.Symlink("target", link)
		if code, _ := exitCode(t, f.command("--batch", "-d", "-o", link, f.small)); code != 2 {
			t.Fatalf("without --yes: exit %d", code)
		}
		if code, stderr := exitCode(t, f.command("--batch", "--yes", "-d", "-o", link, f.small)); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the symlink was replaced: %v", err)
		}
		fi, _ := os.Stat(target)
		got, _ := os.ReadFile(target)
		if !bytes.Equal(got, f.smallPlain) || fi.Mode().Perm() != 0o600 {
			t.Fatalf("target: %d bytes, mode %v; want the plaintext, 0600", len(got), fi.Mode())
		}
		dangling := filepath.Join(dir, "dangling")
		os.Symlink("nowhere", dangling)
		if code, stderr := exitCode(t, f.command("--batch", "--yes", "-d", "-o", dangling, f.small)); code != 2 || !strings.Contains(stderr, "does not exist") {
			t.Fatalf("dangling symlink: exit %d: %s", code, stderr)
		}
		if _, err := os.Lstat(filepath.Join(dir, "nowhere")); err == nil {
			t.Fatal("a dangling symlink's target was created")
		}
	})

	t.Run("modes", func(t *testing.T) {
		for _, mode := range []os.FileMode{0o600, 0o640, 0o755} {
			name := filepath.Join(dir, fmt.Sprintf("mode-%o", mode))
			os.WriteFile(name, []byte("old"), mode)
			os.Chmod(name, mode)
			if code, stderr := exitCode(t, f.command("--batch", "--yes", "-d", "-o", name, f.small)); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if fi, _ := os.Stat(name); fi.Mode().Perm() != mode {
				t.Errorf("an existing %o file became %o", mode, fi.Mode().Perm())
			}
		}
		// Root keeps another user's file theirs.
		if os.Geteuid() == 0 {
			name := filepath.Join(dir, "owned")
			os.WriteFile(name, []byte("old"), 0o640)
			os.Chown(name, 1234, 2345)
			if code, stderr := exitCode(t, f.command("--batch", "--yes", "-d", "-o", name, f.small)); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			fi, _ := os.Stat(name)
			if st := fi.Sys().(*syscall.Stat_t); st.Uid != 1234 || st.Gid != 2345 || fi.Mode().Perm() != 0o640 {
				t.Errorf("a file of 1234:2345 mode 640 became %d:%d mode %o", st.Uid, st.Gid, fi.Mode().Perm())
			}
		}
		// A new file gets 0666 less the umask.
		name := filepath.Join(dir, "new")
		cmd := exec.Command("sh", "-c", `umask 027 && exec "$@"`, "sh", f.bin, "--homedir", f.home, "--batch", "-d", "-o", name, f.small)
		if code, stderr := exitCode(t, cmd); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o640 {
			t.Errorf("a new file under umask 027 is %o, want 640", fi.Mode().Perm())
		}
	})
}

// tempFD waits until process pid holds a file open in dir, and returns
// that descriptor's link ("dir/#123 (deleted)" for an O_TMPFILE inode).
func tempFD(t *testing.T, pid int, dir string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		if os.IsPermission(err) {
			// Not root: the process made itself non-dumpable, which
			// hides its descriptors from its own user too.
			time.Sleep(300 * time.Millisecond)
			return ""
		}
		for _, e := range ents {
			l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name()))
			if err == nil && strings.HasPrefix(l, dir+"/") && !strings.HasSuffix(l, ".pgp") {
				return l
			}
		}
	}
	t.Fatalf("pid %d never opened its output in %s", pid, dir)
	return ""
}

// slowDecrypt starts a decryption of msg to dir/out.bin, fed half the
// message so that it is surely mid-stream, and waits until the output is
// open. It returns the command and the rest of the message's writer.
func (f *faultFixture) slowDecrypt(t *testing.T, dir string, extra ...string) (*exec.Cmd, io.WriteCloser, *bytes.Buffer) {
	t.Helper()
	msg, _ := os.ReadFile(f.big)
	cmd := f.command(append([]string{"--batch", "-o", filepath.Join(dir, "out.bin"), "-d"}, extra...)...)
	stdin, _ := cmd.StdinPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go stdin.Write(msg[:len(msg)/2])
	l := tempFD(t, cmd.Process.Pid, dir)
	// The point of O_TMPFILE: while it is written, the plaintext has no
	// name in the directory.
	if l != "" && !strings.HasSuffix(l, "(deleted)") {
		t.Errorf("the output being written is named %s", l)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("while writing, the directory holds %v", l)
	}
	return cmd, stdin, &stderr
}

// TestKillLeavesNothing: SIGKILL at random points of a decryption to -o
// FILE leaves no file in the directory.
func TestKillLeavesNothing(t *testing.T) {
	f := newFaultFixture(t)
	for i := range 6 {
		dir := t.TempDir()
		var cmd *exec.Cmd
		if i%2 == 0 {
			// Mid-stream, after the output was opened.
			var stdin io.WriteCloser
			cmd, stdin, _ = f.slowDecrypt(t, dir)
			time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
			defer stdin.Close()
		} else {
			// Anywhere from the start to the end of a full-speed run.
			cmd = f.command("--batch", "-o", filepath.Join(dir, "out.bin"), "-d", f.big)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Duration(rand.IntN(80)) * time.Millisecond)
		}
		cmd.Process.Kill()
		cmd.Wait()
		if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() {
			// It finished first; the output is then complete.
			continue
		}
		// Killed after the commit (during the directory's fsync, or on
		// the way out), the output is there, and whole.
		if b, err := os.ReadFile(filepath.Join(dir, "out.bin")); err == nil {
			if len(b) != 24<<20 || !bytes.Equal(b, make([]byte, len(b))) {
				t.Errorf("kill -9 #%d left out.bin with %d bytes, not the whole plaintext", i, len(b))
			}
		}
		if l := leftovers(t, dir, "out.bin"); len(l) > 0 {
			t.Errorf("kill -9 #%d left %v", i, l)
		}
	}
}

// TestSignalsLeaveNothing: SIGINT, SIGTERM, SIGHUP and SIGQUIT mid-stream
// end the command with one line, exit 2, no Go stack dump, no file.
func TestSignalsLeaveNothing(t *testing.T) {
	f := newFaultFixture(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		dir := t.TempDir()
		cmd, stdin, stderr := f.slowDecrypt(t, dir)
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		stdin.Close()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 {
			t.Errorf("%v: %v, want exit status 2", sig, err)
		}
		if l := leftovers(t, dir); len(l) > 0 {
			t.Errorf("%v: left %v", sig, l)
		}
		if s := stderr.String(); !strings.HasPrefix(s, "pgpstream: error: interrupted by ") || strings.Count(s, "\n") != 1 || strings.Contains(s, "goroutine") {
			t.Errorf("%v: stderr %q", sig, s)
		}
	}
}

// TestClosedStreams: a reader of standard output, standard error or the
// status descriptor that goes away ends the command with exit status 2
// (never death by SIGPIPE), and no output file is left.
func TestClosedStreams(t *testing.T) {
	f := newFaultFixture(t)
	closedPipe := func() *os.File {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		return w
	}

	t.Run("stdout", func(t *testing.T) {
		w := closedPipe()
		defer w.Close()
		cmd := f.command("--batch", "-d", f.small)
		cmd.Stdout = w
		code, stderr := exitCode(t, cmd)
		if code != 2 || !strings.HasPrefix(stderr, "pgpstream: error: ") || !strings.Contains(stderr, "broken pipe") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	// Standard error, with and without status lines on it, and a status
	// descriptor of its own: the output to -o FILE is never committed.
	for _, c := range []struct {
		name  string
		args  []string
		onFD3 bool
	}{
		{"stderr", []string{"-v"}, false},
		{"status-fd 2", []string{"--status-fd", "2"}, false},
		{"status-fd 3", []string{"--status-fd", "3"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, msg := range []string{f.small, f.big} {
				dir := t.TempDir()
				w := closedPipe()
				cmd := f.command(append(append([]string{"--batch"}, c.args...), "-o", filepath.Join(dir, "out"), "-d", msg)...)
				var stderr bytes.Buffer
				if c.onFD3 {
					cmd.ExtraFiles = []*os.File{w}
					cmd.Stderr = &stderr
				} else {
					cmd.Stderr = w
				}
				code, _ := exitCode(t, cmd)
				w.Close()
				if code != 2 {
					t.Errorf("%s: exit %d, stderr %q", filepath.Base(msg), code, stderr.String())
				}
				if c.onFD3 && !strings.Contains(stderr.String(), "pgpstream: error: writing to --status-fd 3: ") {
					t.Errorf("%s: stderr %q", filepath.Base(msg), stderr.String())
				}
				if l := leftovers(t, dir); len(l) > 0 {
					t.Errorf("%s: left %v", filepath.Base(msg), l)
				}
			}
		})
	}
}

// requireRoot skips a test that needs root, unless CI requires every
// test to run.
func requireRoot(t *testing.T, what string) {
	if os.Geteuid() == 0 {
		return
	}
	peerMissing(t, what+" needs root")
}

// TestFullFileSystem: ENOSPC mid-write on a 1 MiB tmpfs is a one-line
// error, exit 2, and the file system is left empty, its space returned.
func TestFullFileSystem(t *testing.T) {
	requireRoot(t, "mounting a small tmpfs")
	f := newFaultFixture(t)
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount: %v %s", err, out)
	}
	defer exec.Command("umount", mnt).Run()
	for _, c := range []struct {
		args []string
		fits bool
	}{
		{[]string{"-d", f.big}, false},
		{[]string{"-d", f.small}, true}, // 64 KiB: the control
		{[]string{"--yes", "-e", "-r", "fault@example.org", f.big}, false},
		{[]string{"--yes", "-d", f.big}, false}, // replacing the control's file
	} {
		args := c.args
		name := filepath.Join(mnt, "out")
		code, stderr := exitCode(t, f.command(append([]string{"--batch", "-o", name}, args...)...))
		if c.fits {
			if code != 0 {
				t.Errorf("%v: exit %d: %s", args, code, stderr)
			}
			continue
		}
		if code != 2 || !strings.HasPrefix(stderr, "pgpstream: error: ") || !strings.Contains(stderr, "no space left on device") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
		if l := leftovers(t, mnt, "out"); len(l) > 0 {
			t.Errorf("%v: left %v", args, l)
		}
		if b, err := os.ReadFile(name); err == nil && !bytes.Equal(b, f.smallPlain) {
			t.Errorf("%v: out now holds %d bytes, not the control's output", args, len(b))
		}
	}
	os.Remove(filepath.Join(mnt, "out"))
	var s syscall.Statfs_t
	syscall.Statfs(mnt, &s)
	if s.Bfree != s.Blocks {
		t.Errorf("after the failures the tmpfs has %d of %d blocks free", s.Bfree, s.Blocks)
	}
}

// TestNoCoreDumps: while it waits for its input, holding nothing yet, a
// pgpstream process already has a core size limit of 0.
func TestNoCoreDumps(t *testing.T) {
	f := newFaultFixture(t)
	cmd := f.command("--batch", "-d")
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	var limits []byte
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		limits, _ = os.ReadFile(fmt.Sprintf("/proc/%d/limits", cmd.Process.Pid))
		if bytes.Contains(limits, []byte("Max core file size        0                    0")) {
			return
		}
	}
	t.Errorf("core dumps are not disabled:\n%s", limits)
}

// TestOutputDurability: a file is flushed to disk (fsync) before it takes
// its name, and its directory after, where a crash could otherwise lose
// what the user had: an existing file replaced with --yes, or copied into
// when it has other hard links (the copy flushed, and only then its own
// name removed). A new file is not flushed, and its disk writes are not
// forced either, unless --fsync (or fsync in gpg.conf) asks; when it is,
// the writes start while decrypting (sync_file_range), not all at the
// end. Read from the system calls, with strace.
func TestOutputDurability(t *testing.T) {
	strace := lookTool(t, "strace")
	f := newFaultFixture(t)
	conf := filepath.Join(t.TempDir(), "options.conf")
	os.WriteFile(conf, []byte("# pgpstream's own option\nfsync\n"), 0o644)
	for _, c := range []struct {
		name         string
		args         []string
		existing     bool // out exists before the run
		linked       bool // and has a second name
		prefix, want string
	}{
		{name: "new", want: "O_TMPFILE linkat"},
		{name: "new --fsync", args: []string{"--fsync"}, prefix: "O_TMPFILE sync_file_range sync_file_range", want: "fsync linkat fsync"},
		{name: "new, fsync in gpg.conf", args: []string{"--options", conf}, prefix: "O_TMPFILE sync_file_range sync_file_range", want: "fsync linkat fsync"},
		// The unnamed file is linked to a temporary name, renamed
		// over out.
		{name: "replaced", args: []string{"--yes"}, existing: true, prefix: "O_TMPFILE sync_file_range sync_file_range", want: "fsync linkat rename fsync"},
		// Named beside out and flushed with its directory; copied into
		// out, which is flushed; the name removed.
		{name: "written through", args: []string{"--yes"}, existing: true, linked: true, prefix: "O_TMPFILE sync_file_range sync_file_range", want: "fsync linkat fsync ftruncate fsync unlink fsync"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			trace := filepath.Join(t.TempDir(), "trace")
			out := filepath.Join(dir, "out")
			if c.existing {
				os.WriteFile(out, []byte("old"), 0o644)
			}
			if c.linked {
				os.Link(out, filepath.Join(dir, "other"))
			}
			args := []string{"-f", "-o", trace, "-e", "trace=openat,sync_file_range,fsync,linkat,rename,renameat,renameat2,ftruncate,unlink,unlinkat",
				f.bin, "--homedir", f.home, "--batch"}
			args = append(append(args, c.args...), "-d", "-o", out, f.big)
			if b, err := exec.Command(strace, args...).CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, b)
			}
			if b, _ := os.ReadFile(out); len(b) != 24<<20 {
				t.Fatalf("out holds %d bytes", len(b))
			}
			got := syscallsIn(t, trace)
			if !strings.HasPrefix(got, c.prefix) || !strings.HasSuffix(got, c.want) || (c.prefix == "" && got != c.want) {
				t.Errorf("system calls in order: %s\nwant %s ... %s", got, c.prefix, c.want)
			}
		})
	}
}

// syscallsIn lists, in order, the calls of an strace log that make an
// output durable.
func syscallsIn(t *testing.T, trace string) string {
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	pending := map[string]int{} // pid -> index in calls of its unfinished call
	for _, line := range strings.Split(string(b), "\n") {
		// A call that another thread interrupts is split into an
		// "unfinished" line, which names it, and a "resumed" line,
		// which holds its result: count the first, and take it back
		// when the second says it failed. A call that failed (unlink
		// of a name that is not there, linkat of a name that exists)
		// is not counted.
		pid, _, _ := strings.Cut(line, " ")
		if strings.Contains(line, " resumed>") {
			if i, ok := pending[pid]; ok && strings.Contains(line, "= -1 ") {
				calls[i] = ""
			}
			delete(pending, pid)
			continue
		}
		if strings.Contains(line, "= -1 ") {
			continue
		}
		for _, c := range []string{"O_TMPFILE", "sync_file_range(", "fsync(", "unlink", "linkat(", "rename", "ftruncate("} {
			if strings.Contains(line, c) {
				if strings.Contains(line, "<unfinished ...>") {
					pending[pid] = len(calls)
				}
				calls = append(calls, strings.TrimSuffix(c, "("))
				break
			}
		}
	}
	calls = slices.DeleteFunc(calls, func(c string) bool { return c == "" })
	return strings.Join(calls, " ")
}
