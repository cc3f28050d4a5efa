package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/pgpstream/pgpstream/internal/bounded"
)

// endless says how a case makes its file endless.
type endless int

const (
	viaFIFO   endless = iota // a FIFO fed with zeros by a writer, up to twice the limit and 64 MiB more
	viaSparse                // a sparse regular file of 4 GiB: no disk used
	viaDevice                // a symlink to /dev/zero
	viaStdin                 // standard input, fed as viaFIFO
)

// TestEndlessHomeFiles gives every file that configures or describes the
// home, and the files a user names that are read whole, without end: each
// is one line, exit 2, within the memory of its limit, and read no
// further than the limit.
func TestEndlessHomeFiles(t *testing.T) {
	paramsPadded := "Key-Type: default\nSubkey-Type: default\nName-Real: Padded\n%no-protection\n" + strings.Repeat("# padding\n", 200_000) + "%commit\n"
	for _, c := range []struct {
		name  string
		gnupg bool   // the home is a GnuPG home
		file  string // the endless file, in the home ("" for stdin; a leading / for the test's directory)
		how   endless
		stdin string // what standard input holds instead, when it is not endless
		limit bounded.Limit
		args  []string
		want  string
	}{
		{"gpg.conf, FIFO", false, "gpg.conf", viaFIFO, "", bounded.Config, []string{"-k"}, `reading options: .*/gpg.conf: larger than 1 MiB`},
		{"gpg.conf, sparse", false, "gpg.conf", viaSparse, "", bounded.Config, []string{"-k"}, `reading options: .*/gpg.conf: larger than 1 MiB`},
		{"--options, /dev/zero", false, "/opts.conf", viaDevice, "", bounded.Config, []string{"--options", "$FILE", "-k"}, `reading options: .*/opts.conf: larger than 1 MiB`},
		{"common.conf, /dev/zero", true, "common.conf", viaDevice, "", bounded.Config, []string{"-k"}, `.*/common.conf: larger than 1 MiB`},
		{"trustdb.gpg, FIFO", true, "trustdb.gpg", viaFIFO, "", bounded.TrustDB, []string{"-k"}, `.*/trustdb.gpg: larger than 64 MiB`},
		{"trustdb.gpg, sparse", true, "trustdb.gpg", viaSparse, "", bounded.TrustDB, []string{"-k"}, `.*/trustdb.gpg: larger than 64 MiB`},
		{"pubring.kbx, FIFO", true, "pubring.kbx", viaFIFO, "", bounded.KeyData, []string{"-k"}, `.*/pubring.kbx: larger than 256 MiB`},
		{"pubring.kbx, sparse", true, "pubring.kbx", viaSparse, "", bounded.KeyData, []string{"-k"}, `.*/pubring.kbx: larger than 256 MiB`},
		{"pubring.gpg, /dev/zero", true, "pubring.gpg", viaDevice, "", bounded.KeyData, []string{"-k"}, `.*/pubring.gpg: larger than 256 MiB`},
		{"pubring.pgp, sparse", false, "pubring.pgp", viaSparse, "", bounded.KeyData, []string{"-k"}, `.*/pubring.pgp: larger than 256 MiB`},
		{"secring.pgp, FIFO", false, "secring.pgp", viaFIFO, "", bounded.KeyData, []string{"-K"}, `.*/secring.pgp: larger than 256 MiB`},
		{"ownertrust.txt, sparse", false, "ownertrust.txt", viaSparse, "", bounded.OwnerTrust, []string{"-k"}, `.*/ownertrust.txt: larger than 16 MiB`},
		{"--passphrase-file, FIFO", false, "/pw", viaFIFO, "", bounded.Line, []string{"--batch", "--passphrase-file", "$FILE", "-c", "-o", "/dev/null", "$PLAIN"}, `reading the passphrase: .*/pw: a line longer than 64 KiB`},
		{"--passphrase-file, sparse", false, "/pw", viaSparse, "", bounded.Line, []string{"--batch", "--passphrase-file", "$FILE", "-c", "-o", "/dev/null", "$PLAIN"}, `reading the passphrase: .*/pw: a line longer than 64 KiB`},
		{"--passwd --passphrase-file, /dev/zero", false, "/pw", viaDevice, "", 2 * bounded.Line, []string{"--batch", "--passphrase-file", "$FILE", "--passwd", "$KEY"}, `reading the passphrases: .*/pw: a line longer than 64 KiB`},
		{"--import-ownertrust, stdin", false, "", viaStdin, "", bounded.OwnerTrust, []string{"--import-ownertrust"}, `--import-ownertrust: standard input: larger than 16 MiB`},
		{"--import-ownertrust FILE, /dev/zero", false, "/ot.txt", viaDevice, "", bounded.OwnerTrust, []string{"--import-ownertrust", "$FILE"}, `--import-ownertrust: .*/ot.txt: larger than 16 MiB`},
		{"--import, stdin", false, "", viaStdin, "", bounded.KeyData, []string{"--import"}, `importing from standard input: keyring: reading keys: key input: larger than 256 MiB`},
		{"--gen-key parameters past 1 MiB", false, "", 0, paramsPadded, bounded.Params, []string{"--batch", "--gen-key"}, `\[stdin\]: larger than 1 MiB`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			if err := os.Mkdir(home, 0o700); err != nil {
				t.Fatal(err)
			}
			if c.gnupg {
				// An empty keybox makes it a GnuPG home, as gpg leaves one.
				if err := os.WriteFile(filepath.Join(home, "pubring.kbx"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(home, c.file)
			if strings.HasPrefix(c.file, "/") {
				path = filepath.Join(dir, c.file)
			}
			feedMax := 2*int64(c.limit) + 64<<20
			var fed *fifoFeeder
			switch {
			case c.file == "":
			case c.how == viaFIFO:
				os.Remove(path)
				if err := syscall.Mkfifo(path, 0o600); err != nil {
					t.Fatal(err)
				}
				fed = feedFIFO(path, feedMax)
			case c.how == viaSparse:
				os.Remove(path)
				f, err := os.Create(path)
				if err != nil {
					t.Fatal(err)
				}
				if err := f.Truncate(4 << 30); err != nil {
					t.Fatal(err)
				}
				f.Close()
			case c.how == viaDevice:
				os.Remove(path)
				if err := os.Symlink("/dev/zero", path); err != nil {
					t.Fatal(err)
				}
			}
			plain := filepath.Join(dir, "plain.txt")
			if err := os.WriteFile(plain, []byte("plain\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var fpr string
			if slices.Contains(c.args, "$KEY") {
				fpr = genKey(t, home)
			}
			args := []string{"--homedir", home}
			for _, a := range c.args {
				args = append(args, strings.NewReplacer("$FILE", path, "$PLAIN", plain, "$KEY", fpr).Replace(a))
			}
			var stdin *readCounter
			switch {
			case c.stdin != "":
				stdin = &readCounter{r: strings.NewReader(c.stdin)}
			case c.how == viaStdin:
				stdin = &readCounter{r: io.LimitReader(zeros{}, feedMax)}
			}
			var in io.Reader
			if stdin != nil {
				in = stdin
			}
			code, stderr, rss := runMeasured(t, in, args...)
			if fed != nil {
				fed.stop()
			}
			if code != 2 || strings.Count(stderr, "\n") != 1 || !regexp.MustCompile(`^pgpstream: error: `+c.want+"\n$").MatchString(stderr) {
				t.Fatalf("exit %d, stderr %.300q; want exit 2 and one line matching %q", code, stderr, c.want)
			}
			if bound := (int64(c.limit) + 48<<20) >> 10; rss > bound {
				t.Errorf("peak RSS %d KiB, over the limit and 48 MiB (%d KiB)", rss, bound)
			}
			// The FIFO's writer and standard input's copier have a pipe
			// buffer and a write in flight beyond what was read.
			const slack = 2 << 20
			if fed != nil && fed.written > int64(c.limit)+slack {
				t.Errorf("read %d bytes of the FIFO, more than the limit of %d", fed.written, c.limit)
			}
			if c.how == viaStdin && stdin.n > int64(c.limit)+slack {
				t.Errorf("read %d bytes of standard input, more than the limit of %d", stdin.n, c.limit)
			}
			t.Logf("peak RSS %d KiB", rss)
		})
	}
}

// genKey makes a key in home and returns its fingerprint.
func genKey(t *testing.T, home string) string {
	t.Helper()
	cmd := pgpstreamCmd(t, "--homedir", home, "--batch", "--quick-gen-key", "Bounded <bounded@example.org>")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("--quick-gen-key: %v\n%s", err, out)
	}
	out, err := pgpstreamCmd(t, "--homedir", home, "--with-colons", "-k").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Split(line, ":"); f[0] == "fpr" && len(f) > 9 {
			return f[9]
		}
	}
	t.Fatalf("no fingerprint in %s", out)
	return ""
}

// runMeasured runs pgpstream in a process of its own and returns its
// exit status, standard error and peak RSS in KiB.
func runMeasured(t *testing.T, stdin io.Reader, args ...string) (int, string, int64) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "rss")
	cmd := pgpstreamCmd(t, args...)
	cmd.Env = append(os.Environ(), peakRSSEnv+"="+report)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	code, stderr := exitCode(t, cmd)
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("exit %d, no peak RSS reported (a crash?): %v; stderr %.600q", code, err, stderr)
	}
	kib, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return code, stderr, kib
}

type readCounter struct {
	r io.Reader
	n int64
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// fifoFeeder writes zeros into a FIFO until the reader closes it or max
// bytes are written.
type fifoFeeder struct {
	path    string
	written int64
	done    chan struct{}
}

func feedFIFO(path string, max int64) *fifoFeeder {
	f := &fifoFeeder{path: path, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		buf := make([]byte, 1<<20)
		for f.written < max {
			n, err := w.Write(buf[:min(int64(len(buf)), max-f.written)])
			f.written += int64(n)
			if err != nil {
				return
			}
		}
	}()
	return f
}

// stop waits for the writer, first opening the FIFO for reading (and
// closing it) so that a writer pgpstream never met is let go.
func (f *fifoFeeder) stop() {
	if r, err := os.OpenFile(f.path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		r.Close()
	}
	<-f.done
}
