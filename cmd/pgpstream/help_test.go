package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// --help is gpg's kind of help: sections with gpg's headings, each
// option once with its text, wrapped to 80 columns, none of urfave/cli's
// "(default: false)"; help, -h and --help are the same.
func TestHelpIsClean(t *testing.T) {
	help := string(mustRun(t, nil, "--help"))
	for _, args := range [][]string{{"-h"}, {"help"}, {"--armor", "help"}, {"-e", "--help"}} {
		if got := string(mustRun(t, nil, args...)); got != help {
			t.Errorf("pgpstream %s is not pgpstream --help:\n%s", strings.Join(args, " "), got)
		}
	}
	if strings.Contains(help, "(default: false)") {
		t.Error("--help still says (default: false)")
	}
	for i, l := range strings.Split(help, "\n") {
		if len(l) > helpWidth && !strings.HasPrefix(l, "pgpstream ") && !strings.HasPrefix(l, "       pgpstream ") {
			t.Errorf("--help line %d is %d columns: %q", i+1, len(l), l)
		}
	}
	for _, title := range []string{"Commands:", "Commands of pgpstream's own (a word after the options):",
		"Options controlling encryption and signing:", "Options controlling the input and output:",
		"Options controlling the diagnostic output:", noopTitle + ":"} {
		if !strings.Contains(help, "\n"+title+"\n") {
			t.Errorf("--help has no section %q", title)
		}
	}
	// A broken gpg.conf does not hide the help, as in gpg.
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/gpg.conf", []byte("cipher-algo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runInProcess(nil, "--homedir", dir, "--help"); code != 0 || string(out) != help {
		t.Errorf("--help with a broken gpg.conf: exit %d %s", code, stderr)
	}
}

// listedCommands are the commands --help lists: its Commands section's
// options and pgpstream's own commands.
func listedCommands(t *testing.T, help string) (options, own []string) {
	t.Helper()
	_, rest, _ := strings.Cut(help, "\nCommands:\n")
	gpgPart, ownPart, _ := strings.Cut(rest, "\nCommands of pgpstream's own (a word after the options):\n")
	ownPart, _, _ = strings.Cut(ownPart, "\n\n")
	for _, m := range regexp.MustCompile(`(?m)^ (?:-., |    )(--[a-z0-9-]+)`).FindAllStringSubmatch(gpgPart, -1) {
		options = append(options, m[1])
	}
	for _, m := range regexp.MustCompile(`(?m)^     ([a-z]+)`).FindAllStringSubmatch(ownPart, -1) {
		own = append(own, m[1])
	}
	if len(options) < 40 || len(own) < 4 {
		t.Fatalf("--help lists %d commands and %d of pgpstream's own:\n%s", len(options), len(own), help)
	}
	return options, own
}

// Every command --help lists has help of its own that works: `pgpstream
// help COMMAND` for each, and `pgpstream COMMAND --help` for pgpstream's
// own.
func TestHelpForEveryListedCommand(t *testing.T) {
	help := string(mustRun(t, nil, "--help"))
	options, own := listedCommands(t, help)
	for _, name := range options {
		d := byLong[strings.TrimPrefix(name, "--")]
		out := string(mustRun(t, nil, "help", name))
		if !strings.Contains(out, name) || !strings.Contains(strings.Join(strings.Fields(out), " "), d.usage) {
			t.Errorf("pgpstream help %s:\n%s", name, out)
		}
		if slices.Contains(own, d.long) {
			continue // help version is the subcommand's
		}
		if bare := string(mustRun(t, nil, "help", d.long)); bare != out {
			t.Errorf("pgpstream help %s differs from help %s:\n%s", d.long, name, bare)
		}
	}
	for _, name := range own {
		out := string(mustRun(t, nil, "help", name))
		if !strings.Contains(out, "pgpstream "+name) {
			t.Errorf("pgpstream help %s:\n%s", name, out)
		}
		if name == "help" {
			continue // help --help asks about the option --help
		}
		if again := string(mustRun(t, nil, name, "--help")); again != out {
			t.Errorf("pgpstream %s --help differs from pgpstream help %s:\n%s", name, name, again)
		}
	}
	for _, c := range []struct{ topic, want string }{
		{"-e", "--encrypt"}, {"clearsign", "Also spelled --clearsign"}, {"--arm", "--armor"},
		{"use-agent", "changes nothing"}, {"--help", "-h, --help"},
	} {
		if out := string(mustRun(t, nil, "help", c.topic)); !strings.Contains(out, c.want) {
			t.Errorf("pgpstream help %s: no %q:\n%s", c.topic, c.want, out)
		}
	}
	for _, bad := range [][]string{{"help", "--frob"}, {"help", "--edit-card"}, {"help", "a", "b"}, {"help", "-Q"}} {
		if code, _, stderr := runInProcess(nil, bad...); code != exitError || !strings.HasPrefix(stderr, "pgpstream: error: ") {
			t.Errorf("pgpstream %s: exit %d %s", strings.Join(bad, " "), code, stderr)
		}
	}
}

// The subcommands' help has no urfave/cli noise either.
func TestSubcommandHelpIsClean(t *testing.T) {
	for _, name := range []string{"bench", "version", "inspect", "sop", "help"} {
		out := string(mustRun(t, nil, "help", name))
		for _, noise := range []string{"(default: false)", "value [ ", " value "} {
			if strings.Contains(out, noise) {
				t.Errorf("pgpstream help %s says %q:\n%s", name, noise, out)
			}
		}
	}
}
