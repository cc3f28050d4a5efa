package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestEditKeyTerminal runs --edit-key on a terminal (a pseudo-terminal
// made by script(1)), as a person does: the key is shown as gpg's menu
// shows it, commands are typed at the prompt, questions asked there, and
// "save" writes the certification.
func TestEditKeyTerminal(t *testing.T) {
	script := lookTool(t, "script")
	lookTool(t, "gpg")
	bin, err := clientBinary()
	if err != nil {
		t.Fatal(err)
	}
	f := newEditFixture(t)
	g, ours := f.homes(t)
	run := func(prog, home string, answers ...string) string {
		t.Helper()
		line := strings.Join([]string{prog, "--homedir", home, "--pinentry-mode", "loopback", "--passphrase", "''", "--edit-key", f.bob}, " ")
		cmd := exec.Command(script, "-qec", line, "/dev/null")
		cmd.Stdin = strings.NewReader(strings.Join(answers, "\n") + "\n")
		cmd.Env = append(os.Environ(), "TERM=dumb")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s --edit-key: %v\n%s", prog, err, out)
		}
		return regexp.MustCompile("\x1b\\[[0-9;?]*[a-zA-Z]|\r").ReplaceAllString(string(out), "")
	}
	ourTTY := run(bin, ours, "sign", "y", "save")
	gpgTTY := run("gpg", g.Dir, "sign", "y", "save")
	for _, want := range []string{"pgpstream> ", "Really sign? (y/N) ", "[ unknown] (1). Bob <bob@example.org>", "Are you sure that you want to sign this key with your"} {
		if !strings.Contains(ourTTY, want) {
			t.Errorf("the terminal does not show %q:\n%s", want, ourTTY)
		}
	}
	// The key as the menu first shows it, the same in both.
	menu := func(s string) string {
		i := strings.Index(s, "pub  ")
		j := strings.Index(s[max(i, 0):], "\n\n")
		if i < 0 || j < 0 {
			t.Fatalf("no key shown:\n%s", s)
		}
		return s[i : i+j]
	}
	if a, b := menu(gpgTTY), menu(ourTTY); a != b {
		t.Errorf("the menu shows\n%s\nwith pgpstream, and with gpg\n%s", b, a)
	}
	sigs := mustRun(t, nil, "--homedir", ours, "--list-sigs", "--with-colons", f.bob)
	if !strings.Contains(string(sigs), ":10x::"+f.alice+":") {
		t.Errorf("no certification by Alice after save:\n%s", sigs)
	}
}
