package main

// Output files through the real binary: hard links written through, and
// a replace that SIGKILL cannot tear.

import (
	"bytes"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
