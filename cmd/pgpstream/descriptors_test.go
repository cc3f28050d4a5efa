package main

// Descriptors named on the command line (fds.go): refused when the caller
// did not open them, used in place when it did. Each runs pgpstream as a
// process of its own, whose descriptors the test decides.

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

// fdFixture is a passphrase message and a work directory to run in.
type fdFixture struct {
	dir, home string
	msg       string // -c with passphrase "pw"
	plain     []byte
}

func newFDFixture(t *testing.T) *fdFixture {
	t.Helper()
	f := &fdFixture{dir: t.TempDir(), plain: []byte("the plaintext\n")}
	f.home = filepath.Join(t.TempDir(), "home")
	f.msg = filepath.Join(t.TempDir(), "m.gpg")
	cmd := f.command(t, "--passphrase", "pw", "-c", "-o", f.msg)
	cmd.Stdin = bytes.NewReader(f.plain)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("making the message: %v\n%s", err, out)
	}
	return f
}

func (f *fdFixture) command(t *testing.T, args ...string) *exec.Cmd {
	cmd := pgpstreamCmd(t, append([]string{"--homedir", f.home, "--batch"}, args...)...)
	cmd.Dir = f.dir
	return cmd
}

func (f *fdFixture) files(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// closedFDCases name descriptor 3, which the caller leaves closed; the
// process has a file of its own there by then (the runtime's cgroup limit
// file, or its epoll). gist is what gpg 2.2.40 says.
var closedFDCases = []struct {
	name string   // as pgpstream's message names it
	args []string // after --batch, with m.gpg for the message
	gist string
}{
	{"--passphrase-fd 3", []string{"--passphrase-fd", "3", "-d", "m.gpg"}, "passphrase-fd is invalid: Bad file descriptor"},
	{"--logger-fd 3", []string{"--logger-fd", "3", "--passphrase", "pw", "-d", "m.gpg"}, "logger-fd is invalid: Bad file descriptor"},
	{"--status-fd 3", []string{"--status-fd", "3", "--passphrase", "pw", "-d", "m.gpg"}, "status-fd is invalid: Bad file descriptor"},
	{"--command-fd 3", []string{"--command-fd", "3", "--passphrase", "pw", "-d", "m.gpg"}, "command-fd is invalid: Bad file descriptor"},
	{"--override-session-key-fd 3", []string{"--override-session-key-fd", "3", "-d", "m.gpg"}, "override-session-key-fd is invalid: Bad file descriptor"},
	{"-&3", []string{"--enable-special-filenames", "--passphrase", "pw", "-o", "-&3", "-d", "m.gpg"}, "Bad file descriptor"},
	{"-&3", []string{"--enable-special-filenames", "--passphrase", "pw", "-d", "--", "-&3"}, "[fd 3]: read error: Bad file descriptor"},
}

func TestDescriptorNotOpenAtStart(t *testing.T) {
	f := newFDFixture(t)
	msg, err := os.ReadFile(f.msg)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(f.dir, "m.gpg"), msg, 0o644)
	before := f.files(t)
	more := []struct {
		name string
		args []string
	}{
		{"-&3", []string{"--enable-special-filenames", "--passphrase", "pw", "-c", "-o", "-&3", "m.gpg"}},
		{"-&3", []string{"--enable-special-filenames", "-e", "-f", "-&3", "-o", "out.gpg", "m.gpg"}},
		{"-&3", []string{"--enable-special-filenames", "--verify", "--", "-&3", "m.gpg"}},
		{"-&4", []string{"--enable-special-filenames", "--verify", "--", "m.gpg", "-&4"}},
	}
	for _, c := range closedFDCases {
		more = append(more, struct {
			name string
			args []string
		}{c.name, c.args})
	}
	for _, c := range more {
		cmd := f.command(t, c.args...)
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		code, stderr := exitCode(t, cmd)
		want := "^pgpstream: error: (recipient file -&3: )?" + regexp.QuoteMeta(c.name) + ` is invalid: bad file descriptor \(not open at start\)` + "\n$"
		if code != 2 || !regexp.MustCompile(want).MatchString(stderr) || stdout.Len() > 0 {
			t.Errorf("%v: exit %d, %d bytes out, stderr %q", c.args, code, stdout.Len(), stderr)
		}
		if got := f.files(t); !slices.Equal(got, before) {
			t.Errorf("%v: the directory holds %v, not %v", c.args, got, before)
		}
	}

	t.Run("gpg", func(t *testing.T) {
		h := gnupgtest.New(t)
		for _, c := range closedFDCases {
			cmd := exec.Command("gpg", append([]string{"--batch", "--pinentry-mode", "loopback"}, c.args...)...)
			cmd.Env, cmd.Dir = h.Env(), f.dir
			code, stderr := exitCode(t, cmd)
			if code != 2 || !strings.Contains(stderr, c.gist) {
				t.Errorf("gpg %v: exit %d, stderr %q", c.args, code, stderr)
			}
			if got := f.files(t); !slices.Equal(got, before) {
				t.Errorf("gpg %v: the directory holds %v", c.args, got)
			}
		}
	})
}

// descriptorFile is a regular file holding head, positioned after it,
// for the child's descriptor 3: what a shell's 3<>FILE gives after a
// first read or write.
func descriptorFile(t *testing.T, head string) *os.File {
	t.Helper()
	file, err := os.OpenFile(filepath.Join(t.TempDir(), "fd3"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	if _, err := file.WriteString(head); err != nil {
		t.Fatal(err)
	}
	return file
}

func contents(t *testing.T, file *os.File) []byte {
	t.Helper()
	b, err := os.ReadFile(file.Name())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The caller's descriptors are used as they are: at the caller's offset,
// in place, with the rules of a stream.
func TestDescriptorUsedInPlace(t *testing.T) {
	f := newFDFixture(t)
	msg, err := os.ReadFile(f.msg)
	if err != nil {
		t.Fatal(err)
	}
	var gpgHome *gnupgtest.Home // made by the gpg subtest
	run := func(t *testing.T, tool string, extra []*os.File, stdin io.Reader, args ...string) (int, []byte, string) {
		t.Helper()
		var cmd *exec.Cmd
		if tool == "gpg" {
			cmd = exec.Command("gpg", append([]string{"--batch", "--pinentry-mode", "loopback"}, args...)...)
			cmd.Env, cmd.Dir = gpgHome.Env(), f.dir
		} else {
			cmd = f.command(t, args...)
		}
		cmd.ExtraFiles, cmd.Stdin = extra, stdin
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		code, stderr := exitCode(t, cmd)
		return code, stdout.Bytes(), stderr
	}
	for _, tool := range []string{"pgpstream", "gpg"} {
		t.Run(tool, func(t *testing.T) {
			if tool == "gpg" {
				gpgHome = gnupgtest.New(t)
			}
			// -o -&3 writes after what the caller wrote, creates no
			// file named -&3, and is not replaced by a temporary file.
			out := descriptorFile(t, "HEAD\n")
			fi, _ := out.Stat()
			if code, _, stderr := run(t, tool, []*os.File{out}, nil, "--enable-special-filenames", "--passphrase", "pw", "-o", "-&3", "-d", f.msg); code != 0 {
				t.Fatalf("-o -&3: exit %d: %s", code, stderr)
			}
			if got, want := contents(t, out), append([]byte("HEAD\n"), f.plain...); !bytes.Equal(got, want) {
				t.Errorf("-o -&3 wrote %q, want %q", got, want)
			}
			if fi2, err := os.Stat(out.Name()); err != nil || !os.SameFile(fi, fi2) {
				t.Errorf("-o -&3 replaced the file: %v", err)
			}
			if l := f.files(t); len(l) > 0 {
				t.Errorf("-o -&3 left %v", l)
			}

			// An input -&3 is read from the caller's offset.
			in := descriptorFile(t, "junk before the message")
			in.Write(msg)
			in.Seek(int64(len("junk before the message")), io.SeekStart)
			code, stdout, stderr := run(t, tool, []*os.File{in}, nil, "--enable-special-filenames", "--passphrase", "pw", "-d", "--", "-&3")
			if code != 0 || !bytes.Equal(stdout, f.plain) {
				t.Errorf("-d -&3: exit %d, %q: %s", code, stdout, stderr)
			}

			// The -fd options read and write the descriptor.
			pw := descriptorFile(t, "")
			pw.WriteString("pw\n")
			pw.Seek(0, io.SeekStart)
			status := descriptorFile(t, "")
			code, stdout, stderr = run(t, tool, []*os.File{pw, status}, nil, "--passphrase-fd", "3", "--status-fd", "4", "-d", f.msg)
			if code != 0 || !bytes.Equal(stdout, f.plain) || !bytes.Contains(contents(t, status), []byte("[GNUPG:] DECRYPTION_OKAY\n")) {
				t.Errorf("--passphrase-fd 3 --status-fd 4: exit %d, %q, status %q: %s", code, stdout, contents(t, status), stderr)
			}
		})
	}

	// A stream's rules: a message that fails its check releases nothing
	// of the plaintext under the hold-back, to a file descriptor as to
	// standard output.
	bad := bytes.Clone(msg)
	bad[len(bad)-10] ^= 1
	badPath := filepath.Join(t.TempDir(), "bad.gpg")
	os.WriteFile(badPath, bad, 0o644)
	out := descriptorFile(t, "HEAD\n")
	if code, _, stderr := run(t, "pgpstream", []*os.File{out}, nil, "--enable-special-filenames", "--passphrase", "pw", "-o", "-&3", "-d", badPath); code != 2 {
		t.Errorf("tampered to -o -&3: exit %d: %s", code, stderr)
	}
	if got := contents(t, out); string(got) != "HEAD\n" {
		t.Errorf("tampered to -o -&3: the file holds %q", got)
	}

	// -&1 is standard output, and -&0 standard input.
	code, stdout, stderr := run(t, "pgpstream", nil, bytes.NewReader(msg), "--enable-special-filenames", "--passphrase", "pw", "-o", "-&1", "-d", "--", "-&0")
	if code != 0 || !bytes.Equal(stdout, f.plain) {
		t.Errorf("-o -&1 -d -&0: exit %d, %q: %s", code, stdout, stderr)
	}
}

// The in-process runner has no process of its own: -&0 and -&1 are its
// standard input and output, and any other descriptor is checked against
// the test binary's start, which had none beyond standard error.
func TestDescriptorInProcess(t *testing.T) {
	f := newFDFixture(t)
	msg, err := os.ReadFile(f.msg)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(f.dir)
	code, out, stderr := runInProcess(msg, "--homedir", f.home, "--batch", "--enable-special-filenames", "--passphrase", "pw", "-o", "-&1", "-d", "--", "-&0")
	if code != 0 || !bytes.Equal(out, f.plain) {
		t.Errorf("-o -&1 -d -&0: exit %d, %q: %s", code, out, stderr)
	}
	code, _, stderr = runInProcess(nil, "--homedir", f.home, "--batch", "--passphrase-fd", "9", "-d", f.msg)
	if code != 2 || stderr != "pgpstream: error: --passphrase-fd 9 is invalid: bad file descriptor (not open at start)\n" {
		t.Errorf("--passphrase-fd 9: exit %d: %q", code, stderr)
	}
	if l := f.files(t); len(l) > 0 {
		t.Errorf("left %v", l)
	}
}

// startfds records the inherited descriptors before internal/poll and os
// open any: its init comes first in the binary too.
func TestStartFDsInitialisedFirst(t *testing.T) {
	cmd := pgpstreamCmd(t, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var trace bytes.Buffer
	cmd.Stderr = &trace
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	at := func(pkg string) int { return strings.Index(trace.String(), "init "+pkg+" @") }
	self := at("github.com/pgpstream/pgpstream/internal/startfds")
	if self < 0 || at("internal/poll") < self || at("os") < self {
		t.Errorf("startfds at %d, internal/poll at %d, os at %d in\n%s", self, at("internal/poll"), at("os"), trace.String())
	}
}

// -f -&3 reads the recipient's certificate, and --verify -&3 -&4 the
// signature and the data, from the caller's descriptors at their offsets.
func TestDescriptorRecipientAndVerifyFiles(t *testing.T) {
	f := newFDFixture(t)
	run := func(extra []*os.File, args ...string) []byte {
		t.Helper()
		cmd := f.command(t, args...)
		cmd.ExtraFiles = extra
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if code, stderr := exitCode(t, cmd); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return stdout.Bytes()
	}
	// b after what the caller read already, as the descriptor's
	// offset says.
	at := func(b []byte) *os.File {
		file := descriptorFile(t, "read before\n")
		file.Write(b)
		file.Seek(int64(len("read before\n")), io.SeekStart)
		return file
	}
	run(nil, "--quick-gen-key", "Fd <fd@example.org>")
	cert := run(nil, "--export", "fd@example.org")
	data := filepath.Join(t.TempDir(), "data")
	os.WriteFile(data, f.plain, 0o644)
	sig := run(nil, "-b", "-o", "-", data)

	enc := filepath.Join(t.TempDir(), "e.gpg")
	run([]*os.File{at(cert)}, "--enable-special-filenames", "-e", "-f", "-&3", "-o", enc, data)
	if got := run(nil, "-d", enc); !bytes.Equal(got, f.plain) {
		t.Errorf("encrypted to -f -&3: decrypts to %q", got)
	}
	run([]*os.File{at(sig), at(f.plain)}, "--enable-special-filenames", "--verify", "--", "-&3", "-&4")
	if l := f.files(t); len(l) > 0 {
		t.Errorf("left %v", l)
	}
}
