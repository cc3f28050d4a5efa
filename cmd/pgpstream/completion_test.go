package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// documents is what each place that documents the options says, for
// the current option table.
type documents struct {
	help, manual, bash, zsh, fish string
}

func currentDocuments(t *testing.T) documents {
	t.Helper()
	return documents{
		help:   string(mustRun(t, nil, "--help")),
		manual: string(mustRun(t, nil, "--print-manpage")),
		bash:   string(mustRun(t, nil, "--print-completion", "bash")),
		zsh:    string(mustRun(t, nil, "--print-completion", "zsh")),
		fish:   string(mustRun(t, nil, "--print-completion", "fish")),
	}
}

// checkDocumented fails unless d appears in --help, the manual and the
// three completions (the manual alone lists hidden options).
func (docs documents) checkDocumented(t *testing.T, d *optDef) {
	t.Helper()
	if !strings.Contains(docs.manual, `\fB`+esc("--"+d.long)+`\fR`) {
		t.Errorf("the manual does not list --%s", d.long)
	}
	if d.hidden {
		return
	}
	name := "--" + d.long
	if !strings.Contains(docs.help, " "+name+" ") && !strings.Contains(docs.help, " "+name+"\n") && !strings.Contains(docs.help, " "+name+",") {
		t.Errorf("--help does not list %s", name)
	}
	if !regexp.MustCompile(`[" ]` + regexp.QuoteMeta(name) + `[" ]`).MatchString(docs.bash) {
		t.Errorf("the bash completion does not offer %s", name)
	}
	if !strings.Contains(docs.zsh, "'"+name+"[") && !strings.Contains(docs.zsh, "'"+name+"=[") {
		t.Errorf("the zsh completion does not offer %s", name)
	}
	if !strings.Contains(docs.fish, " -l "+d.long+" ") {
		t.Errorf("the fish completion does not offer %s", name)
	}
}

// Every option of the table is in --help, the manual and the bash, zsh
// and fish completions, each made from the table: an option added to it
// (as this test adds one) appears in all of them with nothing else to
// edit.
func TestEveryOptionIsDocumented(t *testing.T) {
	docs := currentDocuments(t)
	for i := range optionTable {
		if d := &optionTable[i]; d.alias == "" {
			docs.checkDocumented(t, d)
		}
	}

	saved := optionTable
	t.Cleanup(func() { optionTable = saved })
	added := optDef{long: "zz-new-option", arg: "FILE", cat: catIO, usage: "an option only this test has"}
	optionTable = append(slices.Clip(saved), added)
	docs = currentDocuments(t)
	docs.checkDocumented(t, &optionTable[len(optionTable)-1])
	if !strings.Contains(docs.help, "an option only this test has") || !strings.Contains(docs.manual, "an option only this test has") {
		t.Error("the new option's text is missing from --help or the manual")
	}
}

// Each value a completion offers is one the option accepts.
func TestCompletionValuesAreAccepted(t *testing.T) {
	for name, values := range argValues {
		for _, v := range values {
			var args []string
			switch name {
			case "disable-hwf":
				continue // hwf.Names() itself; switching one off is process-wide
			case "print-completion":
				args = []string{"--print-completion", v}
			default:
				args = []string{"--no-options", "--" + name, v, "--gpgconf-test"}
			}
			if code, _, stderr := runInProcess(nil, args...); code != 0 {
				t.Errorf("pgpstream %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
		}
	}
	if code, _, stderr := runInProcess(nil, "--print-completion", "tcsh"); code != exitError || !strings.Contains(stderr, "bash, zsh and fish") {
		t.Errorf("--print-completion tcsh: exit %d %s", code, stderr)
	}
}

// completionScript writes a completion script into dir.
func completionScript(t *testing.T, shell, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "pgpstream."+shell)
	if err := os.WriteFile(path, mustRun(t, nil, "--print-completion", shell), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// completionDir is a directory with a file and a directory to complete.
func completionDir(t *testing.T) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "msg.pgp"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "keys"), 0o700)
	return dir
}

// bash completes options, their values, files and directories, and
// pgpstream's own commands, as a user at a prompt would see them.
func TestBashCompletion(t *testing.T) {
	dir := completionDir(t)
	script := completionScript(t, "bash", dir)
	for _, c := range []struct {
		line []string // the words, the last one being completed
		want []string
	}{
		{[]string{"pgpstream", "--enc"}, []string{"--encrypt", "--encrypt-files", "--encrypt-to", "--encrypt-to-default-key"}},
		{[]string{"pgpstream", "--cipher-algo", ""}, []string{"AES128", "AES192", "AES256"}},
		{[]string{"pgpstream", "--cipher-algo", "=", "AES12"}, []string{"AES128"}},
		{[]string{"pgpstream", "--homedir", "k"}, []string{"keys"}},
		{[]string{"pgpstream", "-o", "m"}, []string{"msg.pgp"}},
		{[]string{"pgpstream", "-r", ""}, nil},
		{[]string{"pgpstream", "--print-completion", ""}, []string{"bash", "zsh", "fish"}},
		{[]string{"pgpstream", "ins"}, []string{"inspect"}},
		{[]string{"pgpstream", "help", "b"}, []string{"bench"}},
	} {
		cmd := exec.Command("bash", "--norc", "--noprofile", "-c", `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _pgpstream; printf '%s\n' "${COMPREPLY[@]}"`, "bash", script)
		cmd.Args = append(cmd.Args, c.line...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		got := strings.Fields(string(out))
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("bash completes %q to %q, want %q", c.line, got, want)
		}
	}
}

// The zsh script parses, and hands _arguments one spec per option
// spelling, with the argument's completion.
func TestZshCompletion(t *testing.T) {
	zsh := lookTool(t, "zsh")
	dir := t.TempDir()
	script := completionScript(t, "zsh", dir)
	if out, err := exec.Command(zsh, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v\n%s", err, out)
	}
	// _arguments and friends stubbed: what the script passes them, one
	// argument a line, is what zsh's completion system would read.
	out, err := exec.Command(zsh, "-f", "-c", `_arguments() { printf '%s\n' "$@" }; _describe() { :; }; _files() { :; }; source "$1"`, "zsh", script).CombinedOutput()
	if err != nil {
		t.Fatalf("zsh: %v\n%s", err, out)
	}
	specs := strings.Split(string(out), "\n")
	for _, want := range []string{
		"-e[encrypt to the recipients (-r, -f)]",
		"--cipher-algo=[cipher to write\\: AES128, AES192 or AES256 (default AES256)]:NAME:(AES128 AES192 AES256)",
		"-o+[write to FILE (- for standard output)]:FILE:_files",
		"--homedir=[key directory (default $PGPSTREAM_HOME, else $GNUPGHOME, else...]:DIR:_files -/",
		"--print-completion[SHELL\\: write the completion script for bash, zsh or fish (bash...]:SHELL:(bash zsh fish)",
		"--gnupg[pgpstream behaves as GnuPG's default mode]",
	} {
		if !slices.Contains(specs, want) {
			t.Errorf("zsh's _arguments gets no %q", want)
		}
	}
}

// fish completes as it would at its prompt (complete -C).
func TestFishCompletion(t *testing.T) {
	fish := lookTool(t, "fish")
	dir := completionDir(t)
	script := completionScript(t, "fish", dir)
	for _, c := range []struct {
		line string
		want []string
	}{
		{"pgpstream --list-c", []string{"--list-config"}},
		{"pgpstream --cipher-algo ", []string{"AES128", "AES192", "AES256"}},
		{"pgpstream --print-completion ", []string{"bash", "fish", "zsh"}},
		{"pgpstream -o m", []string{"msg.pgp"}},
		{"pgpstream help ", []string{"bench", "help", "inspect", "sop", "version"}},
		{"pgpstream ins", []string{"inspect"}},
	} {
		cmd := exec.Command(fish, "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, script, c.line)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("fish: %v\n%s", err, out)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l != "" {
				got = append(got, strings.SplitN(l, "\t", 2)[0])
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("fish completes %q to %q, want %q", c.line, got, c.want)
		}
	}
}
