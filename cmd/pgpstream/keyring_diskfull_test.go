package main

import (
	"bytes"
	"crypto"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"
	"golang.org/x/sys/unix"

	"github.com/pgpstream/pgpstream/internal/testpeer"
)

// TestKeyringDiskFull fills a small tmpfs to every page count around the
// ring's size and runs --quick-gen-key and --import of a secret key into a
// home on it. Whatever the free space, the home still reads, keeps every
// key it had, leaves no temporary file, and never holds the new public key
// without its secret part (the secret ring is written first; a public
// ring that could not be written is rebuilt from the secret one). It runs
// twice: with a public ring larger than the secret one, where the window
// between the two writes is hit, and the other way round, where writing
// the public ring first (as pgpstream once did) left a public key whose
// secret was lost.
func TestKeyringDiskFull(t *testing.T) {
	keys := t.TempDir()
	var secret, public []string
	for i := 0; i < 40; i++ {
		s, p := makeKeyFiles(t, keys, fmt.Sprintf("base%d", i))
		secret, public = append(secret, s), append(public, p)
	}
	newKey, _ := makeKeyFiles(t, keys, "imported")
	t.Run("public ring larger", func(t *testing.T) {
		diskFull(t, append(public, secret[0]), newKey)
	})
	t.Run("secret ring larger", func(t *testing.T) {
		diskFull(t, secret, newKey)
	})
}

func diskFull(t *testing.T, base []string, newKey string) {
	mnt := t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m,mode=0700"); err != nil {
		if os.Getuid() == 0 && testpeer.Required() {
			t.Fatalf("mounting a tmpfs: %v (PGPSTREAM_REQUIRE_PEERS is set and this runs as root)", err)
		}
		t.Skipf("SKIPPED: the full-disk keyring test cannot mount a tmpfs (%v); it needs root", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	home := filepath.Join(mnt, "home")
	if code, _, errs := runCLI("--homedir", home, "--import", strings.Join(base, "\x00")); code != 0 {
		t.Fatalf("importing the base keys: %s", errs)
	}
	basePub, baseSec := listFprs(t, home)
	pages := 0
	for _, n := range []string{"pubring.pgp", "secring.pgp"} {
		fi, err := os.Stat(filepath.Join(home, n))
		if err != nil {
			t.Fatal(err)
		}
		pages = max(pages, int(fi.Size()/4096)+2)
	}
	// Every failure that leaves the secret ring written grows it, so the
	// free space is raised a page at a time until both writes fit.
	failed, window, rounds := 0, 0, 0
	for i := 0; i <= 4*pages; i++ {
		rounds++
		ok := 0
		for _, op := range []string{"gen-key", "import"} {
			uid := fmt.Sprintf("full%d-%s@example.org", i, op)
			args := []string{"--homedir", home, "--batch", "--quick-gen-key", "Full <" + uid + ">"}
			if op == "import" {
				args = []string{"--homedir", home, "--import", newKey}
				uid = "imported@example.org"
			}
			filler := fill(t, mnt, int64(i)*4096)
			code, _, errs := runCLI(args...)
			os.Remove(filler)
			if code != 0 {
				failed++
				if n := strings.Count(errs, "\n"); n != 1 || !strings.HasPrefix(errs, "pgpstream: error: ") || !strings.Contains(errs, "no space left") {
					t.Errorf("%d pages free, %s: want one error line about space, got %q", i, op, errs)
				}
			}
			pub, sec := listFprs(t, home)
			for f := range basePub {
				if !pub[f] {
					t.Fatalf("%d pages free, %s: key %s lost from the public ring", i, op, f)
				}
			}
			for f := range baseSec {
				if !sec[f] {
					t.Fatalf("%d pages free, %s: secret key %s lost", i, op, f)
				}
			}
			inPub, inSec := pub[uid], sec[uid]
			if inPub && !inSec {
				t.Fatalf("%d pages free, %s (exit %d): the new public key is in the ring without its secret part", i, op, code)
			}
			if code != 0 && inSec {
				window++ // the secret ring was written, the public one not
			}
			if code == 0 {
				ok++
			}
			if code == 0 && !(inPub && inSec) {
				t.Fatalf("%d pages free, %s: exit 0 but the key is not in both rings", i, op)
			}
			ents, _ := os.ReadDir(home)
			for _, e := range ents {
				if strings.HasSuffix(e.Name(), ".tmp") {
					t.Fatalf("%d pages free, %s: temporary file %s left", i, op, e.Name())
				}
			}
			if op == "import" && inSec {
				// Make room for the next round's import.
				runCLI("--homedir", home, "--batch", "--yes", "--delete-secret-and-public-key", fprOf(t, home, uid))
			}
		}
		if ok == 2 {
			break
		}
	}
	if failed == 0 || failed == 2*rounds {
		t.Fatalf("%d of %d writes ran out of space: the test did not cover both outcomes", failed, 2*rounds)
	}
	t.Logf("%d of %d writes ran out of space; %d left the secret ring written and the public ring not", failed, 2*rounds, window)
}

// makeKeyFiles writes a new key's transferable secret key and its
// certificate into dir and returns their paths.
func makeKeyFiles(t *testing.T, dir, name string) (secret, public string) {
	cfg := &gcpacket.Config{Algorithm: gcpacket.PubKeyAlgoEdDSA, Curve: gcpacket.Curve25519, DefaultHash: crypto.SHA256}
	e, err := v2.NewEntity(name, "", name+"@example.org", cfg)
	if err != nil {
		t.Fatal(err)
	}
	var sec, pub bytes.Buffer
	if err := e.SerializePrivateWithoutSigning(&sec, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Serialize(&pub); err != nil {
		t.Fatal(err)
	}
	secret, public = filepath.Join(dir, name+".sec"), filepath.Join(dir, name+".pub")
	if err := os.WriteFile(secret, sec.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(public, pub.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return secret, public
}

// runCLI runs pgpstream in this process. An argument holding NULs is
// split there, so a list of files passes as one.
func runCLI(args ...string) (int, string, string) {
	argv := []string{"pgpstream"}
	for _, a := range args {
		argv = append(argv, strings.Split(a, "\x00")...)
	}
	var out, errs bytes.Buffer
	code := run(argv, strings.NewReader(""), &out, &errs)
	return code, out.String(), errs.String()
}

// listFprs returns the fingerprints and addresses of the public and the
// secret keys in home; listing must succeed.
func listFprs(t *testing.T, home string) (pub, sec map[string]bool) {
	t.Helper()
	read := func(flag string) map[string]bool {
		code, out, errs := runCLI("--homedir", home, flag, "--with-colons")
		if code != 0 {
			t.Fatalf("the home no longer reads: %s", errs)
		}
		m := map[string]bool{}
		primary := false
		for _, line := range strings.Split(out, "\n") {
			f := strings.Split(line, ":")
			switch f[0] {
			case "pub", "sec":
				primary = true
			case "sub", "ssb":
				primary = false
			case "fpr":
				if primary {
					m[f[9]] = true
				}
			case "uid":
				if i := strings.LastIndexByte(f[9], '<'); i >= 0 {
					m[strings.TrimSuffix(f[9][i+1:], ">")] = true
				}
			}
		}
		return m
	}
	return read("--list-keys"), read("--list-secret-keys")
}

func fprOf(t *testing.T, home, uid string) string {
	_, out, _ := runCLI("--homedir", home, "--list-keys", "--with-colons", "<"+uid+">")
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Split(line, ":"); f[0] == "fpr" {
			return f[9]
		}
	}
	t.Fatalf("no fingerprint for %s", uid)
	return ""
}

// fill writes a file that leaves free bytes free on the file system of
// dir, and returns its name.
func fill(t *testing.T, dir string, free int64) string {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	n := int64(st.Bavail)*st.Bsize - free
	name := filepath.Join(dir, "filler")
	if n <= 0 {
		return name
	}
	if err := os.WriteFile(name, make([]byte, n), 0o600); err != nil {
		t.Fatalf("filling: %v", err)
	}
	return name
}
