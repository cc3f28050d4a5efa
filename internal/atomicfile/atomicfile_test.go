package atomicfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Each test runs with O_TMPFILE and with the named temporary file a file
// system without it gets.
func bothWays(t *testing.T, f func(t *testing.T)) {
	for _, named := range []bool{false, true} {
		name := "tmpfile"
		if named {
			name = "named"
		}
		t.Run(name, func(t *testing.T) {
			noTmpfile = named
			t.Cleanup(func() { noTmpfile = false })
			f(t)
		})
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range ents {
		n = append(n, e.Name())
	}
	return n
}

func write(t *testing.T, target string, durable bool, data string) *File {
	t.Helper()
	f, err := Create(target, durable)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(data)[:len(data)/2]); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteVectors([][]byte{[]byte(data)[len(data)/2:]}); err != nil {
		t.Fatal(err)
	}
	return f
}

func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A new file has no name in the directory until it is installed.
func TestNewFileAppearsOnInstall(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "out")
		f := write(t, target, false, "hello, world")
		if _, err := os.Lstat(target); !os.IsNotExist(err) {
			t.Fatalf("target exists before Install: %v", err)
		}
		if err := f.Seal(nil, 0o640); err != nil {
			t.Fatal(err)
		}
		created, err := f.Install(false)
		if err != nil || !created {
			t.Fatalf("Install: created %v, %v", created, err)
		}
		if got := content(t, target); got != "hello, world" {
			t.Errorf("content %q", got)
		}
		if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
			t.Errorf("mode %v, want 0640", fi.Mode())
		}
		if n := names(t, dir); !slices.Equal(n, []string{"out"}) {
			t.Errorf("directory holds %q", n)
		}
	})
}

// Discard leaves nothing behind, and a later Install is refused.
func TestDiscardLeavesNothing(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		dir := t.TempDir()
		f := write(t, filepath.Join(dir, "out"), true, "secret")
		f.Discard()
		if n := names(t, dir); len(n) != 0 {
			t.Errorf("directory holds %q after Discard", n)
		}
		if _, err := f.Install(true); err == nil {
			t.Error("Install after Discard succeeded")
		}
	})
}

// Without replace, a target that appeared while writing is kept, and the
// new file dropped.
func TestInstallNeverReplacesUnasked(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "out")
		f := write(t, target, false, "new")
		if err := os.WriteFile(target, []byte("theirs"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := f.Seal(nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Install(false); err == nil || !strings.Contains(err.Error(), "appeared while writing") {
			t.Fatalf("Install over a file that appeared: %v", err)
		}
		if got := content(t, target); got != "theirs" {
			t.Errorf("the file that appeared now holds %q", got)
		}
		if n := names(t, dir); !slices.Equal(n, []string{"out"}) {
			t.Errorf("directory holds %q", n)
		}
	})
}

// Replacing: the old content stays until Install, then the new one is
// there, with no temporary name left.
func TestReplace(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "out")
		if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		old, _ := os.Stat(target)
		f := write(t, target, true, "new content")
		if err := f.Seal(old, 0o600); err != nil {
			t.Fatal(err)
		}
		if got := content(t, target); got != "old" {
			t.Fatalf("before Install the target holds %q", got)
		}
		created, err := f.Install(true)
		if err != nil || created {
			t.Fatalf("Install: created %v, %v", created, err)
		}
		if got := content(t, target); got != "new content" {
			t.Errorf("content %q", got)
		}
		if n := names(t, dir); !slices.Equal(n, []string{"out"}) {
			t.Errorf("directory holds %q", n)
		}
	})
}

// A target with another hard link is written through: both names see the
// new content, and it takes the mode given.
func TestWriteThroughHardLink(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "out")
		other := filepath.Join(dir, "other")
		if err := os.WriteFile(target, []byte("old content, longer than the new"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(target, other); err != nil {
			t.Fatal(err)
		}
		old, _ := os.Stat(target)
		existing, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f := write(t, target, true, "new")
		f.WriteThrough(existing)
		if err := f.Seal(old, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Install(true); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{target, other} {
			if got := content(t, p); got != "new" {
				t.Errorf("%s holds %q", filepath.Base(p), got)
			}
		}
		if fi, _ := os.Stat(other); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want 0600", fi.Mode())
		}
		if n := names(t, dir); !slices.Equal(n, []string{"other", "out"}) {
			t.Errorf("directory holds %q", n)
		}
	})
}

// RemoveNamed removes the named temporary files of files not installed
// (what a signal handler does); a file made with O_TMPFILE has none.
func TestRemoveNamed(t *testing.T) {
	noTmpfile = true
	t.Cleanup(func() { noTmpfile = false })
	dir := t.TempDir()
	write(t, filepath.Join(dir, "out"), false, "partial")
	if n := names(t, dir); len(n) != 1 || !strings.HasPrefix(n[0], ".out.pgpstream-") {
		t.Fatalf("directory holds %q, want one temporary file", n)
	}
	RemoveNamed()
	if n := names(t, dir); len(n) != 0 {
		t.Errorf("directory holds %q after RemoveNamed", n)
	}
}

// WriteFile makes and replaces a file whole, with its mode.
func TestWriteFile(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "pubring.pgp")
		for _, data := range []string{"first", "second, longer"} {
			if err := WriteFile(path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := content(t, path); got != data {
				t.Errorf("content %q, want %q", got, data)
			}
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v", fi.Mode())
		}
		if n := names(t, dir); !slices.Equal(n, []string{"pubring.pgp"}) {
			t.Errorf("directory holds %q", n)
		}
	})
}

// A directory that cannot be written gives an error and no file.
func TestWriteFileFails(t *testing.T) {
	if err := WriteFile(filepath.Join(t.TempDir(), "missing", "file"), []byte("x"), 0o600); err == nil {
		t.Error("WriteFile into a missing directory succeeded")
	}
}
