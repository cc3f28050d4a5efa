package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewKeyPassphraseMismatch: two different answers to a new key's
// passphrase on the terminal are an error, and nothing is made: no key
// in the ring, no file in the home. (The key used to be made without
// any protection, exit 0.)
func TestNewKeyPassphraseMismatch(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	os.Mkdir(home, 0o700)
	term, slave := newTerminal(t)
	c, stderr := onTerminal(t, dir, slave, "--quick-gen-key", "M <m@example.org>")
	term.await(t, "Passphrase: ", "one\r")
	term.await(t, "Repeat passphrase: ", "two\r")
	err := c.Wait()
	if err == nil || c.ProcessState.ExitCode() != 2 {
		t.Fatalf("mismatch: %v, want exit status 2; %s", err, stderr)
	}
	if s := stderr.String(); s != "pgpstream: error: no key was made: the passphrases do not match\n" {
		t.Errorf("stderr %q", s)
	}
	if ents, _ := os.ReadDir(home); len(ents) > 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the home now holds %s", strings.Join(names, " "))
	}
	code, out, e := runInProcess(nil, "--homedir", home, "--with-colons", "-K")
	if code != 0 || strings.Contains(string(out), "sec:") {
		t.Errorf("secret keys after the mismatch: exit %d: %s %s", code, out, e)
	}
}
