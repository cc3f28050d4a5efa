package main

import (
	"bytes"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/internal/testpeer"
)

// Every client reads --version its own way (see gnupgVersion); each
// parser, written as the client writes it, must find 2.2 in pgpstream's
// output, and finds in gpg's what gpg itself is.
func TestVersionAsClientsParseIt(t *testing.T) {
	parsers := map[string]func(string) string{
		// python-gnupg: VERSION_RE.match on the whole output.
		"python-gnupg": func(out string) string {
			m := regexp.MustCompile(`^(?i)gpg \(GnuPG(?:/MacGPG2)?\) (\d+(\.\d+)*)`).FindStringSubmatch(out)
			if m == nil {
				return ""
			}
			return m[1]
		},
		// duplicity: _version_re.search on each line.
		"duplicity": func(out string) string {
			re := regexp.MustCompile(`^gpg.*\(GnuPG(?:/MacGPG2)?\) (?P<maj>[0-9]+)\.(?P<min>[0-9]+)\.(?P<bug>[0-9]+)(-.+)?$`)
			for _, l := range strings.Split(out, "\n") {
				if m := re.FindStringSubmatch(l); m != nil {
					return m[1] + "." + m[2] + "." + m[3]
				}
			}
			return ""
		},
		// debsign: head -n 1 | cut -d' ' -f3.
		"debsign": func(out string) string {
			f := strings.Split(strings.SplitN(out, "\n", 2)[0], " ")
			if len(f) < 3 {
				return ""
			}
			return f[2]
		},
		// GPGME: the first line's text after its last space.
		"gpgme": func(out string) string {
			l := strings.SplitN(out, "\n", 2)[0]
			return l[strings.LastIndexByte(l, ' ')+1:]
		},
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"pgpstream", "--version"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("--version: exit %d: %s", code, stderr.String())
	}
	ours := stdout.String()
	var gpgOut string
	if b, err := exec.Command("gpg", "--version").Output(); err == nil {
		gpgOut = string(b)
	} else if testpeer.Required() {
		t.Fatalf("gpg --version: %v", err)
	}
	for name, parse := range parsers {
		if got := parse(ours); got != gnupgVersion {
			t.Errorf("%s reads version %q from pgpstream, want %s", name, got, gnupgVersion)
		}
		if gpgOut != "" && !strings.HasPrefix(parse(gpgOut), "2.") {
			t.Errorf("%s's parser, as written here, reads %q from gpg itself", name, parse(gpgOut))
		}
	}
	for _, want := range []string{"\nHome: ", "\nSupported algorithms:\n", "\nPubkey: ", "\nCipher: ", "\nHash: ", "\nCompression: ", "\npgpstream "} {
		if !strings.Contains(ours, want) {
			t.Errorf("--version has no %q line:\n%s", strings.TrimSpace(want), ours)
		}
	}
}

// Installed as gpg, pgpstream's messages begin with "gpg:", as the lines
// clients grep do, and so installed as gpg2 (which pass runs when there is
// one), as gpg's own do; under its own name, with "pgpstream:".
func TestMessagePrefixIsArgv0(t *testing.T) {
	for argv0, want := range map[string]string{
		"/usr/local/bin/gpg": "gpg: error: unknown option --frob\n",
		"/usr/bin/gpg2":      "gpg: error: unknown option --frob\n",
		"pgpstream.test":     "pgpstream.test: error: unknown option --frob\n",
		"pgpstream":          "pgpstream: error: unknown option --frob\n",
		"":                   "pgpstream: error: unknown option --frob\n",
	} {
		var stdout, stderr bytes.Buffer
		run([]string{argv0, "--frob"}, nil, &stdout, &stderr)
		if got := strings.SplitAfterN(stderr.String(), "\n", 2)[0]; got != want {
			t.Errorf("argv[0] %q: %q, want %q", argv0, got, want)
		}
	}
}

func TestScanArgs(t *testing.T) {
	type tok struct{ name, value string }
	for _, c := range []struct {
		argv []string
		toks []tok
		args []string
	}{
		{[]string{"--status-fd=2", "-bsau", "KEY"}, []tok{{"status-fd", "2"}, {"detach-sign", ""}, {"sign", ""}, {"armor", ""}, {"local-user", "KEY"}}, nil},
		{[]string{"-uKEY", "-z6", "f"}, []tok{{"local-user", "KEY"}, {"compress-level", "6"}}, []string{"f"}},
		{[]string{"--arm", "--out", "x", "--", "-f"}, []tok{{"armor", ""}, {"output", "x"}}, []string{"-f"}},
		{[]string{"-r", "A", "f", "-r", "B"}, []tok{{"recipient", "A"}}, []string{"f", "-r", "B"}},
		{[]string{"--ignore-mdc", "--sign-with", "K", "-"}, []tok{{"allow-unprotected", ""}, {"local-user", "K"}}, []string{"-"}},
	} {
		toks, args, _, err := scanArgs(c.argv)
		if err != nil {
			t.Errorf("%q: %v", c.argv, err)
			continue
		}
		var got []tok
		for _, x := range toks {
			got = append(got, tok{x.def.long, x.value})
		}
		if !reflect.DeepEqual(got, c.toks) || !reflect.DeepEqual(args, c.args) {
			t.Errorf("%q: %v %q, want %v %q", c.argv, got, args, c.toks, c.args)
		}
	}
}

func TestCombineCommands(t *testing.T) {
	for _, c := range []struct {
		in   []command
		want command // commandNone with ok false: a conflict
		ok   bool
	}{
		{[]command{commandSign, commandDetachSign}, commandDetachSign, true},
		{[]command{commandSign, commandEncrypt}, commandEncrypt, true},
		{[]command{commandSign, commandSymmetric}, commandEncrypt, true},
		{[]command{commandEncrypt, commandSymmetric, commandSign}, commandEncrypt, true},
		{[]command{commandDetachSign, commandEncrypt}, commandEncrypt, true},
		{[]command{commandListKeys, commandFingerprint}, commandListKeys, true},
		{[]command{commandEncrypt, commandEncrypt}, commandEncrypt, true},
		{[]command{commandSign, commandListKeys}, commandNone, false},
		{[]command{commandDecrypt, commandEncrypt}, commandNone, false},
		{[]command{commandDetachSign, commandVerify}, commandNone, false},
	} {
		got, err := combineCommands(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%v: %q, %v; want %q (ok %v)", c.in, got, err, c.want, c.ok)
		}
	}
}

// The option table is the one list of commands: each command entry
// (not an alias, not a --*-files spelling) carries a constant of its own,
// every constant has its entry, and String gives the entry's long name.
func TestCommandTable(t *testing.T) {
	owner := map[command]string{}
	for _, d := range optionTable {
		if d.kind != kCommand || d.alias != "" {
			continue
		}
		if d.cmd == commandNone {
			if !strings.HasSuffix(d.long, "-files") {
				t.Errorf("--%s: a command entry without a constant", d.long)
			}
			continue
		}
		if prev, dup := owner[d.cmd]; dup {
			t.Errorf("--%s and --%s share a constant", prev, d.long)
		}
		owner[d.cmd] = d.long
		if d.cmd.String() != d.long {
			t.Errorf("--%s: String says %q", d.long, d.cmd.String())
		}
	}
	for c := commandNone + 1; c < numCommands; c++ {
		if owner[c] == "" {
			t.Errorf("command %d has no entry in the option table", c)
		}
	}
	if commandNone.String() != "" {
		t.Errorf("commandNone.String() = %q, want \"\"", commandNone.String())
	}
	for _, d := range optionTable {
		if d.kind == kCommand && d.alias != "" && byLong[d.long].cmd != byLong[d.alias].cmd {
			t.Errorf("alias --%s gives %v, --%s %v", d.long, byLong[d.long].cmd, d.alias, byLong[d.alias].cmd)
		}
	}
}

// Every short option pgpstream has is gpg's, and one that takes a value
// in gpg takes one here: a bundle must split the same way in both.
func TestShortOptionsAreGpgs(t *testing.T) {
	for c, d := range byShort {
		if strings.IndexByte(gpgShort, c) < 0 {
			t.Errorf("-%c is not a gpg short option", c)
		}
		if (d.arg != "") != (strings.IndexByte(gpgShortArg, c) >= 0) {
			t.Errorf("-%c: takes a value %v here, %v in gpg", c, d.arg != "", !(d.arg != ""))
		}
	}
	for _, d := range optionTable {
		if d.kind == kNoop && d.usage == "" {
			t.Errorf("--%s is accepted as changing nothing, with no reason given", d.long)
		}
	}
}

// README's list of accepted no-op options is made from the option table;
// PGPSTREAM_UPDATE_README=1 rewrites it.
func TestREADMECompatList(t *testing.T) {
	const begin, end = "<!-- gpg-noop-options:begin -->\n", "<!-- gpg-noop-options:end -->"
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q ... %q section", begin, end)
	}
	want := compatMarkdown()
	if got := s[i+len(begin) : j]; got != want {
		if os.Getenv("PGPSTREAM_UPDATE_README") != "" {
			if err := os.WriteFile("../../README.md", []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("README's no-op option list is out of date; run PGPSTREAM_UPDATE_README=1 go test -run TestREADMECompatList ./cmd/pgpstream")
	}
}

// --import-options takes gpg's words (and their unique prefixes, no-
// forms, any case) and refuses others as gpg does; the words pgpstream
// acts on are set in importOpts, aliases included.
func TestImportOptionsWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want importOpts
		bad  bool
	}{
		{in: "import-show", want: importOpts{show: true}},
		{in: "show-only,self-sigs-only", want: importOpts{showOnly: true, selfSigsOnly: true}},
		{in: "IMPORT-LOCAL-SIGS no-allow-local-sigs", want: importOpts{}},
		{in: "no-import-local-sigs,allow-local", want: importOpts{localSigs: true}},
		{in: "self-sigs", want: importOpts{selfSigsOnly: true}},
		{in: "import-clean-sigs", want: importOpts{}},
		{in: "import-restore repair-keys", want: importOpts{}},
		{in: "foo", bad: true},
		{in: "import-show,foo", bad: true},
		{in: "import", bad: true},                             // a prefix of several
		{in: "show-only=1", want: importOpts{showOnly: true}}, // gpg ignores the value
	} {
		var got importOpts
		err := importOptionList.parse(&got, tc.in)
		if tc.bad {
			if err == nil || !strings.Contains(err.Error(), "invalid import options") {
				t.Errorf("%q: got %v, want an invalid-import-options error", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

// The other lists share the grammar; each keeps its own words, refusals
// and (for keyserver options) gpg's warning instead of an error.
func TestOptionLists(t *testing.T) {
	var e exportOpts
	if err := exportOptionList.parse(&e, "export-min include-local-sigs,export-attributes"); err != nil || !e.minimal || !e.localSigs {
		t.Errorf("export options: %+v, %v", e, err)
	}
	for _, bad := range []string{"bogus", "export-clean", "backup", "no-export-minimal,export-dane"} {
		if err := exportOptionList.parse(&exportOpts{}, bad); err == nil {
			t.Errorf("export options %q: accepted", bad)
		}
	}
	if err := exportOptionList.parse(&e, "no-export-clean"); err != nil {
		t.Errorf("no-export-clean: %v (off is what pgpstream does)", err)
	}
	var d displayOpts
	if got := splitList(`show-sig-subpackets="20,26", show-photos,,x`); !reflect.DeepEqual(got, []string{"show-sig-subpackets=20,26", "show-photos", "x"}) {
		t.Errorf("splitList: %q", got)
	}
	if err := listOptionList.parse(&d, `show-unusable-subkeys,no-show-photos show-sig-subpackets="20,26"`); err != nil {
		t.Errorf("list options: %v", err)
	}
	if err := listOptionList.parse(&d, "show-bogus"); err == nil || !strings.Contains(err.Error(), "invalid list options") {
		t.Errorf("list options show-bogus: %v", err)
	}
	if err := verifyOptionList.parse(&d, "show-sig-subpackets"); err == nil || !strings.Contains(err.Error(), "invalid verify options") {
		t.Errorf("verify options show-sig-subpackets (a list option only): %v", err)
	}
	var k ksOpts
	if err := keyserverOptionList.parse(&k, "timeout=7,no-honor-keyserver-url hkp-cacert=/x self-sigs-only bogus"); err != nil {
		t.Fatalf("keyserver options: %v", err)
	}
	if k.timeout != 7*time.Second || k.caCertFile != "/x" || len(k.notes) != 1 || !strings.Contains(k.notes[0], "'bogus' is unknown") {
		t.Errorf("keyserver options: %+v", k)
	}
	for _, bad := range []string{"timeout=x", "ca-cert-file", "http-proxy=http://p:3128"} {
		if err := keyserverOptionList.parse(&ksOpts{}, bad); err == nil {
			t.Errorf("keyserver options %q: accepted", bad)
		}
	}
}
