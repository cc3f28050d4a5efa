package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>9)
	}
	return b
}

// TestRoundTrip covers the sizes around block and buffer boundaries, for
// keys and passphrases, armored and binary, every compression pgpstream
// writes, with the input from a file and from a pipe.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	mustRun(t, nil, "--homedir", home, "--batch", "--quick-gen-key", "RT <rt@example.org>")
	pw := filepath.Join(dir, "pw")
	os.WriteFile(pw, []byte("correct horse\n"), 0o600)

	sizes := []int{0, 1, 15, 16, 17, 65535, 65536, 1<<20 + 3}
	for _, size := range sizes {
		plain := pattern(size)
		in := filepath.Join(dir, fmt.Sprintf("in-%d", size))
		os.WriteFile(in, plain, 0o644)
		for _, mode := range []string{"key", "passphrase"} {
			for _, comp := range []string{"none", "zip", "zlib"} {
				for _, armor := range []bool{false, true} {
					for _, pipe := range []bool{false, true} {
						name := fmt.Sprintf("%d/%s/%s/armor=%v/pipe=%v", size, mode, comp, armor, pipe)
						args := []string{"--homedir", home, "--batch", "--yes", "--compress-algo", comp, "-o", "-"}
						if mode == "key" {
							args = append(args, "-e", "-r", "rt@example.org")
						} else {
							args = append(args, "-c", "--passphrase-file", pw)
						}
						if armor {
							args = append(args, "-a")
						}
						var stdin []byte
						if pipe {
							stdin = plain
						} else {
							args = append(args, in)
						}
						ct := mustRun(t, stdin, args...)
						if armor != bytes.HasPrefix(ct, []byte("-----BEGIN PGP MESSAGE-----")) {
							t.Fatalf("%s: armor %v but output starts %q", name, armor, ct[:min(len(ct), 20)])
						}
						got := mustRun(t, ct, "--homedir", home, "--batch", "--passphrase-file", pw, "-d")
						if !bytes.Equal(got, plain) {
							t.Fatalf("%s: got %d bytes back, want %d", name, len(got), len(plain))
						}
					}
				}
			}
		}
	}
}
