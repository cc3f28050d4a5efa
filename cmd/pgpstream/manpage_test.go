package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
)

// writeManpage writes --print-manpage's output to a file, dated as a
// release build dates it.
func writeManpage(t *testing.T) string {
	t.Helper()
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	out := mustRun(t, nil, "--print-manpage")
	path := filepath.Join(t.TempDir(), "pgpstream.1")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runQuiet runs a formatter and fails on any word it says on standard
// error, or on an exit status other than 0: a warning is a defect of the
// page.
func runQuiet(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(lookTool(t, name), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return out.String()
}

// The manual renders without a warning from groff (all warnings on),
// from man-db's man as a user runs it, and from mandoc's lint, and fits
// 80 columns.
func TestManpageRenders(t *testing.T) {
	page := writeManpage(t)
	runQuiet(t, nil, "groff", "-man", "-Tutf8", "-ww", "-z", page)
	shown := runQuiet(t, []string{"MANWIDTH=80"}, "man", "--warnings", "-l", page)
	for i, l := range strings.Split(shown, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("man -l line %d is %d columns: %q", i+1, n, l)
		}
		if strings.ContainsRune(l, '\u2010') {
			t.Errorf("man -l line %d hyphenates a word: %q", i+1, l)
		}
	}
	for _, want := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "HOW TO SPECIFY A USER ID",
		"EXAMPLES", "FILES", "ENVIRONMENT", "EXIT STATUS", "STATUS LINES", "SAFETY", "DIFFERENCES FROM GPG", "SEE ALSO"} {
		if !strings.Contains(shown, "\n"+want+"\n") {
			t.Errorf("the manual has no %s section", want)
		}
	}
	if !strings.Contains(shown, "       --cipher-algo NAME\n") || !strings.Contains(shown, "2023-11-14") {
		t.Errorf("the manual does not show --cipher-algo NAME or its date:\n%s", shown)
	}
	if lint := runQuiet(t, nil, "mandoc", "-Tlint", "-Wstyle", page); lint != "" {
		t.Errorf("mandoc -Tlint:\n%s", lint)
	}
}

// The status-line reference is package status's list: every keyword
// pgpstream writes is described, and nothing else.
func TestManpageStatusKeywords(t *testing.T) {
	page := string(mustRun(t, nil, "--print-manpage"))
	seen := map[string]bool{}
	for _, l := range status.All {
		kw := l.Keyword()
		seen[kw] = true
		if statusDocs[kw] == "" {
			t.Errorf("status line %s is not described (statusDocs)", kw)
		}
		if !strings.Contains(page, ".TP\n\\fB"+esc(kw)+"\\fR") {
			t.Errorf("the manual's STATUS LINES has no %s", kw)
		}
	}
	for kw := range statusDocs {
		if !seen[kw] {
			t.Errorf("statusDocs describes %s, which pgpstream does not write", kw)
		}
	}
}

// The ENVIRONMENT section names every variable the program reads.
func TestManpageEnvironment(t *testing.T) {
	getenv := regexp.MustCompile(`(?:Getenv|firstEnv)\(((?:"[A-Z_]+",? ?)+)\)`)
	var documented []string
	for _, e := range manEnvVars {
		documented = append(documented, strings.Split(e[0], ", ")...)
	}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || rel == "testdata" || rel == "bin" || rel == filepath.Join("internal", "gnupgtest")) {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range getenv.FindAllStringSubmatch(string(src), -1) {
			for _, name := range regexp.MustCompile(`[A-Z_]+`).FindAllString(m[1], -1) {
				if !slices.Contains(documented, name) {
					t.Errorf("%s reads $%s, which the manual's ENVIRONMENT does not name", rel, name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// make install puts the binary, the manual and the three completions
// under DESTDIR/PREFIX, where man, bash-completion, zsh and fish find
// them; the binary says the version git describe gives.
func TestMakeInstall(t *testing.T) {
	makeProg := lookTool(t, "make")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	cmd := exec.Command(makeProg, "-C", root, "--no-print-directory", "install", "PREFIX=/opt/pgp", "DESTDIR="+dest, "VERSION=9.8.7-test")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	for _, f := range []string{"bin/pgpstream", "share/man/man1/pgpstream.1", "share/bash-completion/completions/pgpstream",
		"share/zsh/site-functions/_pgpstream", "share/fish/vendor_completions.d/pgpstream.fish"} {
		if _, err := os.Stat(filepath.Join(dest, "opt/pgp", f)); err != nil {
			t.Errorf("make install: %v", err)
		}
	}
	out, err := exec.Command(filepath.Join(dest, "opt/pgp/bin/pgpstream"), "--version").Output()
	if err != nil || !strings.Contains(string(out), "\npgpstream 9.8.7-test (") {
		t.Errorf("the installed pgpstream --version: %v\n%s", err, out)
	}
	page := filepath.Join(dest, "opt/pgp/share/man/man1/pgpstream.1")
	if shown := runQuiet(t, []string{"MANWIDTH=80"}, "man", "--warnings", "-l", page); !strings.Contains(shown, "pgpstream 9.8.7-test") {
		t.Errorf("the installed manual does not name its version:\n%s", shown)
	}
}
