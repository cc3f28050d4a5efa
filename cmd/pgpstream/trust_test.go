package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestUntrustedPrompt runs encryption to a key of unknown validity on a
// terminal (a pseudo-terminal made by script(1)), without --batch, with
// gpg and with pgpstream: both show the key and ask "Use this key
// anyway? (y/N)"; y encrypts, n refuses and writes nothing. What they
// print up to the question must be the same, line for line.
func TestUntrustedPrompt(t *testing.T) {
	script := lookTool(t, "script") // util-linux: the pseudo-terminal to ask on
	realGPG := lookTool(t, "gpg")
	bin, err := clientBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bobHome, gpgHome, ourHome := filepath.Join(dir, "bob"), filepath.Join(dir, "gpg"), filepath.Join(dir, "ours")
	for _, h := range []string{bobHome, gpgHome, ourHome} {
		if err := os.Mkdir(h, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	defer stopAgent(bobHome)
	defer stopAgent(gpgHome)
	gpg := func(home string, stdin []byte, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(realGPG, append([]string{"--homedir", home, "--batch"}, args...)...)
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("gpg %s: %v", strings.Join(args, " "), err)
		}
		return out
	}
	gpg(bobHome, nil, "--passphrase", "", "--pinentry-mode", "loopback", "--quick-gen-key", "Bob <bob@example.org>", "future-default", "default", "never")
	bob := gpg(bobHome, nil, "--export")
	gpg(gpgHome, bob, "--import")
	mustRun(t, bob, "--homedir", ourHome, "--import")
	plain := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(plain, []byte("for Bob\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// ask runs prog on a terminal, answering the question with answer; it
	// returns what the terminal showed and whether prog exited 0.
	ask := func(prog, home, out, answer string) (string, bool) {
		t.Helper()
		line := strings.Join([]string{prog, "--homedir", home, "-e", "-r", "bob@example.org", "-o", out, plain}, " ")
		cmd := exec.Command(script, "-qec", line, "/dev/null")
		cmd.Stdin = strings.NewReader(answer + "\n")
		cmd.Env = append(os.Environ(), "TERM=dumb")
		tty, err := cmd.CombinedOutput()
		return string(tty), err == nil
	}
	// shown is the part of a transcript from the validity note to the
	// question, without terminal control sequences, the name messages
	// begin with, or the echoed answer.
	ctl := regexp.MustCompile("\x1b\\[[0-9;?]*[a-zA-Z]|\r")
	shown := func(tty, prog string) string {
		s := ctl.ReplaceAllString(tty, "")
		i := strings.Index(s, "There is no assurance")
		j := strings.Index(s, "(y/N) ")
		if i < 0 || j < i {
			t.Fatalf("%s asked nothing:\n%s", prog, tty)
		}
		return s[i : j+len("(y/N) ")]
	}

	gpgTTY, ok := ask(realGPG, gpgHome, filepath.Join(dir, "gpg-y.gpg"), "y")
	if !ok {
		t.Fatalf("gpg, answered y, failed:\n%s", gpgTTY)
	}
	ourTTY, ok := ask(bin, ourHome, filepath.Join(dir, "ours-y.gpg"), "y")
	if !ok {
		t.Fatalf("pgpstream, answered y, failed:\n%s", ourTTY)
	}
	if g, o := shown(gpgTTY, "gpg"), shown(ourTTY, "pgpstream"); g != o {
		t.Errorf("the terminal shows\n%s\nwith pgpstream, and with gpg\n%s", o, g)
	}
	for _, name := range []string{"gpg-y.gpg", "ours-y.gpg"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("answered y, no message: %v", err)
		}
	}

	for _, answer := range []string{"n", "", "maybe"} {
		ourTTY, ok = ask(bin, ourHome, filepath.Join(dir, "ours-n.gpg"), answer)
		if ok {
			t.Errorf("pgpstream, answered %q, encrypted:\n%s", answer, ourTTY)
		}
		if !strings.Contains(ourTTY, "error: recipient \"bob@example.org\": Unusable public key") {
			t.Errorf("pgpstream, answered %q, says:\n%s", answer, ourTTY)
		}
		if _, err := os.Stat(filepath.Join(dir, "ours-n.gpg")); err == nil {
			t.Errorf("answered %q, a message was written", answer)
		}
	}
	gpgTTY, ok = ask(realGPG, gpgHome, filepath.Join(dir, "gpg-n.gpg"), "n")
	if ok {
		t.Errorf("gpg, answered n, encrypted:\n%s", gpgTTY)
	}
}
