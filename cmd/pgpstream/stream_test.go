package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// pgpstreamBinary builds the command once for the tests that need a
// process of their own (peak RSS is per process).
var pgpstreamBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "pgpstream-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "pgpstream")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// runBin runs the binary with stdin and stdout as given and returns its
// peak RSS in KiB, as GNU time reports it.
//
// Not wait4's ru_maxrss of our own child: Go starts children with vfork,
// and Linux carries the parent's high-water mark into the child's
// ru_maxrss across exec, so a test process that has grown would be
// measured instead. GNU time forks a child from its own small process,
// whose figure is the command's alone.
func runBin(t *testing.T, stdin io.Reader, stdout io.Writer, args ...string) int64 {
	t.Helper()
	bin, err := pgpstreamBinary()
	if err != nil {
		t.Fatal(err)
	}
	gnuTime, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		t.Skip("needs GNU time (/usr/bin/time, Debian package time) to measure peak RSS")
	}
	report := filepath.Join(t.TempDir(), "rss")
	cmd := exec.Command(gnuTime, append([]string{"-f", "%M", "-o", report, bin}, args...)...)
	cmd.Stdin, cmd.Stdout = stdin, stdout
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pgpstream %v: %v\n%s", args, err, stderr.Bytes())
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	kib, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatalf("GNU time reported %q", b)
	}
	return kib
}

// TestStreamingMemory streams messages of two sizes through encryption
// (from a pipe, length unknown) and decryption (to a pipe) and checks that
// peak RSS does not grow with the message: every stage works in fixed
// buffers, AEAD in a few chunks per worker. The data also round-trips (a
// SHA-256 over the output).
func TestStreamingMemory(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command to build pgpstream")
	}
	sizes := []int64{64 << 20, 1 << 30, 4 << 30}
	if testing.Short() {
		sizes = []int64{16 << 20, 256 << 20}
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	runBin(t, nil, io.Discard, "--homedir", home, "--batch", "--quick-gen-key", "Stream <stream@example.org>")

	formats := []struct {
		name string
		args []string
	}{
		{"SEIPD v1", nil},
		{"SEIPD v2 OCB, 4 MiB chunks", []string{"--force-aead"}},
		{"tag 20 OCB, 4 MiB chunks", []string{"--force-aead", "--rfc4880bis"}},
	}
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			rss := map[int64][2]int64{}
			for _, size := range sizes {
				msg := filepath.Join(dir, fmt.Sprint(size)+".pgp")
				args := append([]string{"--homedir", home, "--batch", "--yes", "--encrypt", "--recipient", "stream@example.org",
					"--cipher-algo", "aes128", "--compress-algo", "none", "--output", msg}, f.args...)
				enc := runBin(t, io.LimitReader(zeros{}, size), io.Discard, args...)
				h := sha256.New()
				counter := &countWriter{w: h}
				dec := runBin(t, nil, counter, "--homedir", home, "--batch", "--decrypt", msg)
				os.Remove(msg)
				if counter.n != size {
					t.Fatalf("%d bytes: decrypted %d", size, counter.n)
				}
				if !bytes.Equal(h.Sum(nil), zeroDigest(size)) {
					t.Fatalf("%d bytes: plaintext differs", size)
				}
				rss[size] = [2]int64{enc, dec}
				// The bound pgpstream promises, worker pool and 4 MiB
				// AEAD chunks included.
				const boundKiB = 32 << 10
				if enc > boundKiB || dec > boundKiB {
					t.Errorf("%d MiB: peak RSS encrypt %d KiB, decrypt %d KiB; the bound is %d KiB", size>>20, enc, dec, boundKiB)
				}
				t.Logf("%4d MiB: peak RSS encrypt %d KiB, decrypt %d KiB", size>>20, enc, dec)
			}
			// The decrypt side holds back up to 8 MiB for standard
			// output, which every size fills; beyond that nothing may
			// grow with the message.
			const slackKiB = 4 << 10
			small := sizes[0]
			for _, big := range sizes[1:] {
				for i, name := range []string{"encrypt", "decrypt"} {
					if grow := rss[big][i] - rss[small][i]; grow > slackKiB {
						t.Errorf("%s: peak RSS grew by %d KiB from %d MiB to %d MiB", name, grow, small>>20, big>>20)
					}
				}
			}
		})
	}
}

// zeroDigest is the SHA-256 of size zero bytes.
func zeroDigest(size int64) []byte {
	h := sha256.New()
	io.Copy(h, io.LimitReader(zeros{}, size))
	return h.Sum(nil)
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.w.Write(p)
}
