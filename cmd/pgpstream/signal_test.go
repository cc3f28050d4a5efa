package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// leftovers lists the files in dir other than the ones named.
func leftovers(t *testing.T, dir string, keep ...string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
outer:
	for _, e := range ents {
		for _, k := range keep {
			if e.Name() == k {
				continue outer
			}
		}
		out = append(out, e.Name())
	}
	return out
}

// bigMessage writes an encrypted message of size bytes to dir/msg.pgp
// and returns the homedir holding its key.
func bigMessage(t *testing.T, dir string, size int64) string {
	home := filepath.Join(t.TempDir(), "home")
	runBin(t, nil, io.Discard, "--homedir", home, "--batch", "--quick-gen-key", "Sig <sig@example.org>")
	runBin(t, io.LimitReader(zeros{}, size), io.Discard, "--homedir", home, "--batch", "--yes",
		"-e", "-r", "sig@example.org", "--compress-algo", "none", "-o", filepath.Join(dir, "msg.pgp"))
	return home
}

// TestBrokenPipe: a reader that goes away mid-stream ends pgpstream with
// a non-zero status and no files.
func TestBrokenPipe(t *testing.T) {
	dir := t.TempDir()
	home := bigMessage(t, dir, 32<<20)
	cmd := pgpstreamCmd(t, "--homedir", home, "--batch", "-d", filepath.Join(dir, "msg.pgp"))
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10<<20) // past the 8 MiB hold-back, so output has begun
	io.ReadFull(stdout, buf)
	stdout.Close()
	if err := cmd.Wait(); err == nil {
		t.Error("exit status 0 after the reader went away")
	}
	if l := leftovers(t, dir, "msg.pgp"); len(l) > 0 {
		t.Errorf("left %v behind", l)
	}
}

// TestWriteErrors: a full disk (standard output on /dev/full) and a file
// size limit (RLIMIT_FSIZE) are clear errors, and nothing is left under
// the output name.
func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	home := bigMessage(t, dir, 16<<20)
	if full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0); err == nil {
		cmd := pgpstreamCmd(t, "--homedir", home, "--batch", "-d", filepath.Join(dir, "msg.pgp"))
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = full, &stderr
		err := cmd.Run()
		full.Close()
		out := stderr.Bytes()
		if err == nil || !strings.Contains(string(out), "no space left on device") {
			t.Errorf("/dev/full: err %v, output %q", err, out)
		}
	}
	// A 1 MiB file size limit, set in a shell around the command.
	sh := exec.Command("sh", "-c", `ulimit -f 1024 && exec "$0" "$@"`, pgpstreamPath(t), "--homedir", home, "--batch",
		"-o", filepath.Join(dir, "out.bin"), "-d", filepath.Join(dir, "msg.pgp"))
	out, err := sh.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "pgpstream: error: ") || !strings.Contains(string(out), "file too large") {
		t.Errorf("file size limit: err %v, output %q", err, out)
	}
	if l := leftovers(t, dir, "msg.pgp"); len(l) > 0 {
		t.Errorf("file size limit: left %v behind", l)
	}
}
