package gpgargs

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

var specs = []Spec{
	{Long: "armor", Short: 'a'},
	{Long: "armour", Alias: "armor"},
	{Long: "sign", Short: 's', Command: true},
	{Long: "local-user", Short: 'u', Arg: "KEYID"},
	{Long: "output", Short: 'o', Arg: "FILE"},
	{Long: "homedir", Arg: "DIR", Early: true},
	{Long: "list-keys", Short: 'k', Command: true},
	{Long: "list-packets", Command: true},
}

func grammar() *Grammar {
	return New(specs, []string{"armor", "sign", "list-sigs", "list-only", "photo-viewer"}, "asukoK")
}

func names(ts []Token) []string {
	var out []string
	for _, t := range ts {
		out = append(out, specs[t.Opt].Long+"="+t.Value)
	}
	return out
}

func TestScan(t *testing.T) {
	g := grammar()
	for _, tc := range []struct {
		argv       []string
		toks, args []string
		notes      int
		kind       Kind
	}{
		{argv: []string{"-bsau", "KEY"}, kind: Unknown}, // -b is no option here, nor gpg's
		{argv: []string{"-sau", "KEY", "f"}, toks: []string{"sign=", "armor=", "local-user=KEY"}, args: []string{"f"}},
		{argv: []string{"-uKEY", "-o-"}, toks: []string{"local-user=KEY", "output=-"}},
		{argv: []string{"--armour", "--out=x", "--", "--sign"}, toks: []string{"armor=", "output=x"}, args: []string{"--sign"}},
		{argv: []string{"--list-k", "a", "--armor"}, toks: []string{"list-keys="}, args: []string{"a", "--armor"}, notes: 1},
		{argv: []string{"--list"}, kind: Ambiguous},
		{argv: []string{"--list-p"}, toks: []string{"list-packets="}},
		{argv: []string{"--list-s"}, kind: NotSupported}, // gpg's list-sigs only
		{argv: []string{"--photo"}, kind: NotSupported},
		{argv: []string{"--bogus"}, kind: Unknown},
		{argv: []string{"-K"}, kind: NotSupported},
		{argv: []string{"--armor=1"}, kind: TakesNoValue},
		{argv: []string{"--output"}, kind: NeedsValue},
		{argv: []string{"-o"}, kind: NeedsValue},
	} {
		toks, args, notes, err := g.Scan(tc.argv)
		if tc.kind != 0 {
			var e *Error
			if !errors.As(err, &e) || e.Kind != tc.kind {
				t.Errorf("%q: got %v, want error kind %d", tc.argv, err, tc.kind)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(names(toks), tc.toks) || !reflect.DeepEqual(args, tc.args) || len(notes) != tc.notes {
			t.Errorf("%q: got %q %q %q %v; want %q %q", tc.argv, names(toks), args, notes, err, tc.toks, tc.args)
		}
	}
}

func TestNeedsValueNamesIt(t *testing.T) {
	_, _, _, err := grammar().Scan([]string{"--local-user"})
	if err == nil || err.Error() != "--local-user needs a value (KEYID)" {
		t.Errorf("got %v", err)
	}
}

func TestConf(t *testing.T) {
	text := strings.Join([]string{
		"# a comment",
		"armor",
		"local-user \"KEY ID\"",
		"--output out",
		"arm",        // no abbreviations in gpg.conf
		"list-sigs",  // gpg's
		"sign",       // a command
		"homedir /x", // read before the file
		"output",     // no value
		"armor yes",  // a value it takes none
		"photo-viewer x",
	}, "\n")
	toks, warnings := grammar().Conf("gpg.conf", text)
	if got, want := names(toks), []string{"armor=", "local-user=KEY ID", "output=out"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tokens %q, want %q", got, want)
	}
	if toks[1].Where != "gpg.conf:3" || toks[1].Name != "local-user" {
		t.Errorf("token %+v", toks[1])
	}
	want := []string{
		`gpg.conf:5: invalid option "arm"; line ignored`,
		`gpg.conf:6: option "list-sigs" is not supported; line ignored`,
		`gpg.conf:7: "sign" is not allowed in a config file; line ignored`,
		`gpg.conf:8: "homedir" has no effect in a config file; line ignored`,
		`gpg.conf:9: option "output" needs a value; line ignored`,
		`gpg.conf:10: option "armor" takes no value; line ignored`,
		`gpg.conf:11: option "photo-viewer" is not supported; line ignored`,
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
}

func TestAliasMustAgree(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("an alias taking a value for an option taking none was accepted")
		}
	}()
	New([]Spec{{Long: "a"}, {Long: "b", Alias: "a", Arg: "X"}}, nil, "")
}
