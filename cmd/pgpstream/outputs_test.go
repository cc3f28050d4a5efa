package main

// Output files through the real binary: hard links written through, a
// replace that SIGKILL cannot tear, and no output file left behind a
// non-zero exit, whatever caused it.

import (
	"bufio"
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/s2k"

	"github.com/pgpstream/pgpstream/packet"
)

// TestHardLinksWrittenThrough: --yes over a file with two names writes
// the file, so both names see the new content, as gpg's do; a message
// that fails to authenticate leaves both with the old content.
func TestHardLinksWrittenThrough(t *testing.T) {
	f := newFaultFixture(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("old\n"), 0o640)
	os.Chmod(a, 0o640)
	if err := os.Link(a, b); err != nil {
		t.Fatal(err)
	}
	twoNames := func(want []byte) {
		t.Helper()
		fa, _ := os.Stat(a)
		fb, _ := os.Stat(b)
		if fa == nil || fb == nil || !os.SameFile(fa, fb) {
			t.Fatalf("a and b are no longer one file")
		}
		if got, _ := os.ReadFile(b); !bytes.Equal(got, want) {
			t.Fatalf("b holds %d bytes %.20q, want %d bytes %.20q", len(got), got, len(want), want)
		}
		if l := leftovers(t, dir, "a", "b"); len(l) > 0 {
			t.Fatalf("left %v", l)
		}
	}

	if code, stderr := exitCode(t, f.command("--batch", "--yes", "-d", "-o", a, f.tampered)); code != 2 {
		t.Fatalf("tampered: exit %d: %s", code, stderr)
	}
	twoNames([]byte("old\n"))

	if code, stderr := exitCode(t, f.command("--batch", "--yes", "-d", "-o", a, f.small)); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	twoNames(f.smallPlain)
	if fi, _ := os.Stat(a); fi.Mode().Perm() != 0o640 {
		t.Errorf("the file became %o, want 640", fi.Mode().Perm())
	}

	// Shorter content than the file had: the rest is cut.
	other := t.TempDir()
	short, armored := filepath.Join(other, "short"), filepath.Join(other, "short.asc")
	os.WriteFile(short, []byte("short"), 0o644)
	f.run(t, nil, "--batch", "--enarmor", "-o", armored, short)
	if code, stderr := exitCode(t, f.command("--batch", "--yes", "--dearmor", "-o", a, armored)); code != 0 {
		t.Fatalf("--dearmor: exit %d: %s", code, stderr)
	}
	twoNames([]byte("short"))

	// Secret keys: the file, under both names, is no longer readable
	// by others.
	if code, stderr := exitCode(t, f.command("--batch", "--yes", "--export-secret-keys", "-o", a)); code != 0 {
		t.Fatalf("--export-secret-keys: exit %d: %s", code, stderr)
	}
	if fi, _ := os.Stat(b); fi.Mode().Perm() != 0o600 || fi.Size() < 100 {
		t.Errorf("secret keys written through: %d bytes, mode %o; want 600", fi.Size(), fi.Mode().Perm())
	}

	// gpg, beside: both names see what gpg writes, and what pgpstream
	// writes from gpg's message.
	gpg := lookTool(t, "gpg")
	home := t.TempDir()
	defer stopAgent(home)
	p, msg := filepath.Join(other, "p"), filepath.Join(other, "m.gpg")
	os.WriteFile(p, []byte("from gpg\n"), 0o644)
	for _, args := range [][]string{{"-c", "-o", msg, p}, {"--yes", "-d", "-o", a, msg}} {
		cmd := exec.Command(gpg, append([]string{"--homedir", home, "--batch", "--pinentry-mode", "loopback", "--passphrase", "pw"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gpg %v: %v\n%s", args, err, out)
		}
	}
	twoNames([]byte("from gpg\n"))
	os.WriteFile(a, []byte("old\n"), 0o600)
	if code, stderr := exitCode(t, f.command("--batch", "--yes", "--passphrase", "pw", "-d", "-o", a, msg)); code != 0 {
		t.Fatalf("pgpstream on gpg's message: exit %d: %s", code, stderr)
	}
	twoNames([]byte("from gpg\n"))
}

// TestKillDuringReplace: SIGKILL at random moments of a --yes -o FILE
// decryption over an existing FILE, with one name or two. FILE is
// always either the complete old content or the complete new one, and
// its other name the same file; the only other thing that may be left
// is the complete new content under a temporary name (killed between
// naming it and the rename, or during the copy into a file with two
// names, whose content is then both old and new).
func TestKillDuringReplace(t *testing.T) {
	f := newFaultFixture(t)
	old := []byte("the old content\n")
	isNew := func(b []byte) bool { return len(b) == 24<<20 && bytes.Equal(b, make([]byte, len(b))) }
	for _, linked := range []bool{false, true} {
		// How long a whole run takes here, to kill anywhere in it.
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		os.WriteFile(out, old, 0o644)
		if linked {
			os.Link(out, filepath.Join(dir, "other"))
		}
		start := time.Now()
		f.run(t, nil, "--batch", "--yes", "-o", out, "-d", f.big)
		whole := time.Since(start)
		killed, torn := 0, 0
		for i := range 12 {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			os.WriteFile(out, old, 0o644)
			if linked {
				os.Link(out, filepath.Join(dir, "other"))
			}
			cmd := f.command("--batch", "--yes", "-o", out, "-d", f.big)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Duration(mrand.Int64N(int64(whole) * 5 / 4)))
			cmd.Process.Kill()
			cmd.Wait()
			if cmd.ProcessState.Sys().(syscall.WaitStatus).Signaled() {
				killed++
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("linked %v, #%d: out is gone: %v", linked, i, err)
			}
			var temps []string
			for _, name := range leftovers(t, dir, "out", "other") {
				if tb, _ := os.ReadFile(filepath.Join(dir, name)); !strings.HasPrefix(name, ".out.pgpstream-") || !isNew(tb) {
					t.Errorf("linked %v, #%d: left %s, %d bytes", linked, i, name, len(tb))
				}
				temps = append(temps, name)
			}
			if len(temps) > 0 {
				torn++
			}
			if !bytes.Equal(b, old) && !isNew(b) && (!linked || len(temps) == 0) {
				t.Errorf("linked %v, #%d: out holds %d bytes, neither the old content nor the new", linked, i, len(b))
			}
			if linked {
				fo, _ := os.Stat(out)
				fl, _ := os.Stat(filepath.Join(dir, "other"))
				if !os.SameFile(fo, fl) {
					t.Errorf("linked, #%d: out and its other name are now two files", i)
				}
			}
		}
		t.Logf("linked %v: %d of 12 runs killed, %d left the new content under a temporary name (a whole run takes %v)", linked, killed, torn, whole)
	}
}

// TestNoOutputAfterFailure: whatever makes the run exit non-zero, the
// output file it created is gone when it exits, and one it would have
// replaced is as it was.
func TestNoOutputAfterFailure(t *testing.T) {
	f := newFaultFixture(t)
	dir := t.TempDir()
	bigPlain := filepath.Join(dir, "big.bin")
	os.WriteFile(bigPlain, make([]byte, 24<<20), 0o644)
	text := filepath.Join(dir, "text.txt")
	os.WriteFile(text, bytes.Repeat([]byte("a line of text\n"), 1<<16), 0o644)
	armored := filepath.Join(dir, "big.asc")
	f.run(t, nil, "--batch", "-a", "-e", "-r", "fault@example.org", "-o", armored, bigPlain)

	// A status reader that reads one line and goes away: the lines
	// after it (DECRYPTION_OKAY, END_ENCRYPTION, ...) fail.
	t.Run("status reader leaves", func(t *testing.T) {
		for _, args := range [][]string{
			{"-d", f.big},
			{"-e", "-r", "fault@example.org", bigPlain},
			{"-s", bigPlain},
			{"-b", bigPlain},
			{"--clear-sign", text},
			{"--passphrase", "pw", "-c", bigPlain},
			{"--dearmor", armored},
			{"--enarmor", bigPlain},
			{"--export"},
		} {
			for range 3 {
				out := filepath.Join(t.TempDir(), "out")
				code, stderr := readerLeaves(t, f.command(append([]string{"--batch", "--status-fd", "1", "-o", out}, args...)...), true)
				checkOutcome(t, args, code, stderr, out)
			}
		}
	})

	// Standard error's reader goes away after the first line of -v.
	t.Run("stderr reader leaves", func(t *testing.T) {
		for range 3 {
			out := filepath.Join(t.TempDir(), "out")
			code, stderr := readerLeaves(t, f.command("--batch", "-v", "-o", out, "-d", f.big), false)
			checkOutcome(t, []string{"-v", "-d"}, code, stderr, out)
		}
	})

	// A status reader that exits at once: whenever the run fails, it
	// left no output. Repeated to meet the moment the reader goes.
	t.Run("status reader exits at once", func(t *testing.T) {
		start := time.Now()
		f.run(t, nil, "--batch", "--status-fd", "1", "-o", filepath.Join(t.TempDir(), "out"), "-d", f.small)
		whole := time.Since(start)
		failed := 0
		for range 40 {
			out := filepath.Join(t.TempDir(), "out")
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd := f.command("--batch", "--status-fd", "1", "-o", out, "-d", f.small)
			cmd.Stdout = w
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			// The reader exits anywhere from the start to the end.
			time.Sleep(time.Duration(mrand.Int64N(int64(whole))))
			r.Close()
			code := waitCode(t, cmd)
			if code != 0 {
				failed++
			}
			checkOutcome(t, []string{"-d"}, code, stderr.String(), out)
		}
		t.Logf("%d of 40 runs failed (a whole run takes %v)", failed, whole)
	})

	// A signature that is bad (exit 1) or cannot be checked (exit 2)
	// in an encrypted message: no output, and an existing file is
	// left as it was even with --yes.
	t.Run("signatures", func(t *testing.T) {
		plain := filepath.Join(dir, "plain.txt")
		os.WriteFile(plain, []byte("signed and encrypted\n"), 0o644)
		signed := filepath.Join(dir, "s.pgp")
		f.run(t, nil, "--batch", "-s", "-o", signed, plain)
		b, _ := os.ReadFile(signed)
		bad := filepath.Join(dir, "bad.pgp")
		os.WriteFile(bad, symmetricMessage(t, "pw", flipped(b, -3)), 0o644)
		good := filepath.Join(dir, "good.pgp")
		os.WriteFile(good, symmetricMessage(t, "pw", b), 0o644)
		out := filepath.Join(t.TempDir(), "out")
		if code, stderr := exitCode(t, f.command("--batch", "--passphrase", "pw", "-d", "-o", out, good)); code != 0 {
			t.Fatalf("the control: exit %d: %s", code, stderr)
		}
		os.Remove(out)
		code, stderr := exitCode(t, f.command("--batch", "--passphrase", "pw", "-d", "-o", out, bad))
		if code != 1 || !strings.Contains(stderr, "BAD signature") || !strings.Contains(stderr, "error: "+out+" was not written: a signature is bad") {
			t.Errorf("bad signature: exit %d: %s", code, stderr)
		}
		checkOutcome(t, []string{"bad signature"}, code, stderr, out)
		os.WriteFile(out, []byte("kept\n"), 0o644)
		if code, _ := exitCode(t, f.command("--batch", "--yes", "--passphrase", "pw", "-d", "-o", out, bad)); code != 1 {
			t.Errorf("bad signature, --yes: exit %d", code)
		}
		if got, _ := os.ReadFile(out); string(got) != "kept\n" {
			t.Errorf("bad signature, --yes: the existing file now holds %q", got)
		}
		os.Remove(out)
		empty := filepath.Join(t.TempDir(), "empty")
		code, stderr = exitCode(t, exec.Command(f.bin, "--homedir", empty, "--batch", "--passphrase", "pw", "-d", "-o", out, good))
		if code != 2 || !strings.Contains(stderr, "was not written: a signature could not be checked") {
			t.Errorf("no key for the signature: exit %d: %s", code, stderr)
		}
		checkOutcome(t, []string{"no key"}, code, stderr, out)

		// --multifile: each file is a run of its own.
		for _, m := range []string{good, bad} {
			os.Rename(m, m[:len(m)-4]+".gpg")
		}
		good, bad = good[:len(good)-4], bad[:len(bad)-4]
		code, stderr = exitCode(t, f.command("--batch", "--passphrase", "pw", "--multifile", "-d", good+".gpg", bad+".gpg"))
		if code != 1 {
			t.Errorf("--multifile: exit %d: %s", code, stderr)
		}
		if got, _ := os.ReadFile(good); string(got) != "signed and encrypted\n" {
			t.Errorf("--multifile: the good file's output holds %q", got)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Errorf("--multifile: the bad file's output was written")
		}
	})
}

// readerLeaves runs cmd with its standard output (status) or standard
// error (!status) into a pipe whose reader reads one line, then closes
// it; it returns the exit status and what standard error said.
func readerLeaves(t *testing.T, cmd *exec.Cmd, status bool) (int, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if status {
		cmd.Stdout, cmd.Stderr = w, &stderr
	} else {
		cmd.Stderr = w
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	line, _ := bufio.NewReader(r).ReadString('\n')
	r.Close()
	return waitCode(t, cmd), line + stderr.String()
}

// waitCode waits for a started cmd and returns its exit status; a death
// by signal is a test failure.
func waitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() {
			t.Fatalf("%v: killed by %v", cmd.Args, ws.Signal())
		}
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// checkOutcome: a run that failed left no output file, and one that
// succeeded left a whole one.
func checkOutcome(t *testing.T, args []string, code int, stderr, out string) {
	t.Helper()
	fi, err := os.Stat(out)
	switch {
	case code != 0 && err == nil:
		t.Errorf("%v: exit %d, and %s is there (%d bytes): %s", args, code, filepath.Base(out), fi.Size(), stderr)
	case code == 0 && (err != nil || fi.Size() == 0):
		t.Errorf("%v: exit 0, and no output: %v", args, err)
	}
	if l := leftovers(t, filepath.Dir(out), filepath.Base(out)); len(l) > 0 {
		t.Errorf("%v: left %v", args, l)
	}
}

func flipped(b []byte, off int) []byte {
	b = bytes.Clone(b)
	if off < 0 {
		off += len(b)
	}
	b[off] ^= 1
	return b
}

// symmetricMessage encrypts inner, packets as they are (not wrapped in a
// literal packet), to the passphrase: SKESK v4 whose S2K gives the
// session key, and SEIPD v1 (CFB with an MDC). It lets a test encrypt a
// signed message it damaged.
func symmetricMessage(t *testing.T, pass string, inner []byte) []byte {
	t.Helper()
	salt := make([]byte, 8)
	rand.Read(salt)
	key := make([]byte, 16)
	s2k.Iterated(key, sha256.New(), []byte(pass), salt, 65536)
	skesk := append([]byte{4, byte(packet.CipherAES128), 3, 8}, salt...)
	skesk = append(skesk, 96) // count 65536
	msg := packet.AppendHeader(nil, packet.TagSKESK, int64(len(skesk)))
	msg = append(msg, skesk...)

	prefix := make([]byte, 18)
	rand.Read(prefix[:16])
	prefix[16], prefix[17] = prefix[14], prefix[15]
	plain := append(append(prefix, inner...), 0xd3, 0x14)
	mdc := sha1.Sum(plain)
	plain = append(plain, mdc[:]...)
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	body := make([]byte, 1+len(plain))
	body[0] = 1
	cipher.NewCFBEncrypter(block, make([]byte, 16)).XORKeyStream(body[1:], plain)
	msg = packet.AppendHeader(msg, packet.TagSEIPD, int64(len(body)))
	return append(msg, body...)
}
