package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// What --help, `pgpstream help TOPIC`, the manual (manpage.go) and the
// shell completions (completion.go) say is made here from the option
// table, so that an option added there appears in all of them.

// synopsis is the usage of the gpg grammar, one line per way to call it,
// without the program's name.
var synopsis = []string{
	"[options] --encrypt -r KEY [FILE]",
	"[options] --symmetric [FILE]",
	"[options] --decrypt [FILE]",
	"[options] --sign [-e -r KEY] [-u KEY] [FILE] | --detach-sign [FILE]",
	"[options] --clear-sign [-u KEY] [FILE] | --verify [SIG] [FILE]",
	"--list-packets [FILE] | --show-keys FILE... | --dearmor [FILE] | --enarmor [FILE]",
	"--import [FILE...] | --list-keys [PATTERN...] | --quick-gen-key UID [ALGO [USAGE [EXPIRE]]]",
	"--quick-set-expire|--quick-add-key|--quick-add-uid|--quick-revoke-uid|--passwd FPR ...",
	"--keyserver URL --recv-keys|--search-keys|--send-keys|--refresh-keys ... | --locate-keys EMAIL...",
	"[options] inspect [--json] [FILE]",
	"sop SUBCOMMAND [ARGS]   (the Stateless OpenPGP CLI; also as pgpstream-sop)",
	"bench|version|help [ARGS]",
}

const (
	summary = "OpenPGP encryption and decryption at the speed of the primitives, with gpg's command line"
	grammar = "Options come before the files, as in gpg: short ones bundle (-bsau KEY), " +
		"long ones may be shortened to a unique prefix (--arm), and gpg.conf in " +
		"the home is read first (--options FILE, --no-options)."
)

// section is one group of options, as --help and the manual head them.
type section struct {
	title string
	opts  []*optDef
}

// sectionTitles order the table's categories under the headings gpg
// uses ("Commands", "Options controlling the output", ...).
var sectionTitles = []struct{ cat, title string }{
	{catCommand, "Commands"},
	{catEncrypt, "Options controlling encryption and signing"},
	{catKeys, "Options controlling keys, passphrases and listings"},
	{catNet, "Options controlling key import and export"},
	{catIO, "Options controlling the input and output"},
	{catDiag, "Options controlling the diagnostic output"},
}

// noopTitle heads gpg's options that change nothing here.
const noopTitle = "Options of gpg that are accepted and change nothing"

// sections groups the option table for documentation: every entry that
// is not an alias, in table order within its section; hidden ones only
// when withHidden (the manual lists them, --help does not). A category
// sectionTitles does not know gets a section of its own, at the end
// before the accepted-and-ignored options, so nothing is left out.
func sections(withHidden bool) []section {
	byCat := map[string][]*optDef{}
	var extra []string
	var noops []*optDef
	for i := range optionTable {
		d := &optionTable[i]
		if d.alias != "" || (d.hidden && !withHidden) {
			continue
		}
		if d.kind == kNoop {
			noops = append(noops, d)
			continue
		}
		if _, ok := byCat[d.cat]; !ok && !knownCat(d.cat) {
			extra = append(extra, d.cat)
		}
		byCat[d.cat] = append(byCat[d.cat], d)
	}
	var out []section
	for _, t := range sectionTitles {
		if len(byCat[t.cat]) > 0 {
			out = append(out, section{t.title, byCat[t.cat]})
		}
	}
	for _, c := range extra {
		out = append(out, section{c, byCat[c]})
	}
	return append(out, section{noopTitle, noops})
}

func knownCat(cat string) bool {
	return slices.ContainsFunc(sectionTitles, func(t struct{ cat, title string }) bool { return t.cat == cat })
}

// aliasesOf are the other spellings of d's long name.
func aliasesOf(d *optDef) []string {
	var out []string
	for _, a := range optionTable {
		if a.alias == d.long {
			out = append(out, "--"+a.long)
		}
	}
	return out
}

// optionNames is how an option is written: "-r, --recipient KEY".
func optionNames(d *optDef) string {
	s := "--" + d.long
	if d.arg != "" {
		s += " " + d.arg
	}
	if d.short != 0 {
		return fmt.Sprintf("-%c, %s", d.short, s)
	}
	return s
}

// subcommand is one of pgpstream's own commands (a word, not an
// option): bench, version, inspect, help.
type subcommand struct {
	name, args, usage string
}

// subcommands are the app's commands (app.go), documented from the same
// values urfave/cli renders for `pgpstream help bench`.
func subcommands() []subcommand {
	var out []subcommand
	for _, c := range appCommands(nil) {
		out = append(out, subcommand{c.Name, c.ArgsUsage, c.Usage})
	}
	return out
}

// helpWidth is the width --help is wrapped to; helpColumn where the
// descriptions start, as in gpg's --help.
const (
	helpWidth  = 80
	helpColumn = 32
)

// writeHelp is --help: the synopsis, then every command and option by
// section, each wrapped to 80 columns, and gpg's accepted-and-ignored
// options by name alone (`pgpstream help OPTION` says why each changes
// nothing).
func writeHelp(w io.Writer, prog string) {
	fmt.Fprintf(w, "%s %s: %s\n\n", prog, version, summary)
	for i, s := range synopsis {
		lead := "Usage:"
		if i > 0 {
			lead = ""
		}
		fmt.Fprintf(w, "%-6s %s %s\n", lead, prog, s)
	}
	fmt.Fprintf(w, "\n%s\n", wrapText(grammar, helpWidth, ""))
	for _, s := range sections(false) {
		fmt.Fprintf(w, "\n%s:\n", s.title)
		if s.title == noopTitle {
			var names []string
			for _, d := range s.opts {
				names = append(names, "--"+d.long)
			}
			fmt.Fprintln(w, wrapText(strings.Join(names, ", "), helpWidth, "  "))
			continue
		}
		for _, d := range s.opts {
			lead := "     " + optionNames(d)
			if d.short != 0 {
				lead = " " + optionNames(d)
			}
			fmt.Fprintln(w, helpEntry(lead, d.usage))
		}
		if s.title == "Commands" {
			fmt.Fprintf(w, "\nCommands of %s's own (a word after the options):\n", prog)
			for _, c := range subcommands() {
				fmt.Fprintln(w, helpEntry(strings.TrimRight("     "+c.name+" "+c.args, " "), c.usage))
			}
		}
	}
	fmt.Fprintf(w, "\n%s\n", wrapText("pgpstream help COMMAND or pgpstream help OPTION says more about one; "+
		"the manual, man pgpstream (pgpstream --print-manpage), says everything.", helpWidth, ""))
}

// helpEntry is one entry of --help: the names, then the text from
// helpColumn on, wrapped; names too long for the column get a line of
// their own.
func helpEntry(lead, text string) string {
	indent := strings.Repeat(" ", helpColumn)
	body := wrapText(text, helpWidth, indent)
	if len(lead) < helpColumn-1 {
		return lead + strings.Repeat(" ", helpColumn-len(lead)) + strings.TrimPrefix(body, indent)
	}
	return lead + "\n" + body
}

// wrapText breaks s into lines of at most width columns, each starting
// with indent; a word longer than a line stands alone on one.
func wrapText(s string, width int, indent string) string {
	var b strings.Builder
	line := indent
	for _, word := range strings.Fields(s) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	b.WriteString(line)
	return b.String()
}

// showHelp is `pgpstream help [TOPIC]` and `pgpstream --help [TOPIC]`:
// the whole help, or one subcommand's (urfave/cli renders it), or one
// option's.
func showHelp(st *state, topics []string) error {
	switch len(topics) {
	case 0:
		writeHelp(st.stdout, st.prog)
		return nil
	case 1:
	default:
		return usageError{msg: fmt.Sprintf("help takes one command or option, not %d", len(topics)), hints: []string{"pgpstream help --encrypt, pgpstream help bench"}}
	}
	topic := topics[0]
	if topic == "sop" {
		// sop has its own options and help (internal/sop).
		if code, _ := runSOP([]string{st.prog, "sop", "--help"}, st.stdin, st.stdout, st.stderr); code != 0 {
			return fmt.Errorf("sop --help: exit status %d", code)
		}
		return nil
	}
	for _, c := range appCommands(nil) {
		if c.Name == topic {
			app := newApp(st)
			app.Setup()
			return cli.ShowCommandHelp(cli.NewContext(app, nil, nil), topic)
		}
	}
	d, err := helpTopic(topic)
	if err != nil {
		return err
	}
	writeOptionHelp(st.stdout, d)
	return nil
}

// helpTopic finds the option a help topic names: -x, --name, a unique
// prefix of it, or the name without dashes (help encrypt).
func helpTopic(topic string) (*optDef, error) {
	if len(topic) == 2 && topic[0] == '-' && topic[1] != '-' {
		if d := byShort[topic[1]]; d != nil {
			return canonical(d), nil
		}
		return nil, usageError{msg: fmt.Sprintf("no help for %s: no such option", topic), hints: []string{"see pgpstream --help"}}
	}
	name := strings.TrimPrefix(strings.TrimPrefix(topic, "-"), "-")
	if name == "" {
		return nil, usagef("no help for %q", topic)
	}
	return lookupLong(name)
}

// writeOptionHelp says what one option does, in the words of --help and
// the manual, and where both list it.
func writeOptionHelp(w io.Writer, d *optDef) {
	kind := ""
	switch d.kind {
	case kCommand:
		kind = "  (a command)"
	case kNoop:
		kind = "  (accepted from gpg; changes nothing here)"
	}
	fmt.Fprintf(w, "%s%s\n", optionNames(d), kind)
	fmt.Fprintln(w, wrapText(d.usage, helpWidth, "    "))
	if as := aliasesOf(d); len(as) > 0 {
		fmt.Fprintln(w, wrapText("Also spelled "+strings.Join(as, ", ")+".", helpWidth, "    "))
	}
	for _, s := range sections(true) {
		if slices.Contains(s.opts, d) {
			fmt.Fprintf(w, "    Listed under %q in --help and in the manual (man pgpstream).\n", s.title)
		}
	}
}

// helpCommand is `pgpstream help [COMMAND|OPTION]`. Its arguments are
// topics, never flags, so `help -e` asks about -e.
func helpCommand(st *state) *cli.Command {
	return &cli.Command{
		Name:            "help",
		Usage:           "show the help, or what one command or option does",
		ArgsUsage:       "[COMMAND|OPTION]",
		UsageText:       "pgpstream help [COMMAND|OPTION]",
		SkipFlagParsing: true,
		HideHelp:        true,
		Action:          func(c *cli.Context) error { return showHelp(st, c.Args().Slice()) },
	}
}

// sopCommand documents `pgpstream sop`, which runSOP dispatches before
// gpg's grammar sees the arguments: urfave/cli only lists it.
func sopCommand() *cli.Command {
	return &cli.Command{
		Name:      "sop",
		Usage:     "the Stateless OpenPGP CLI on the same engine (pgpstream sop --help; also as pgpstream-sop)",
		ArgsUsage: "SUBCOMMAND [ARGS]",
		UsageText: "pgpstream sop SUBCOMMAND [ARGS]",
	}
}

// inspectCommand documents `pgpstream [options] inspect`, which the gpg
// grammar runs (execute, splitInspect): urfave/cli only renders its help.
func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "say what an OpenPGP file is, who can decrypt it and whether that is safe, without decrypting",
		ArgsUsage: "[--json] [FILE]",
		UsageText: "pgpstream [options] inspect [--json] [FILE]",
		Description: `Reads FILE (or standard input) as far as its packets go without a key:
what it is (an encrypted, signed or compressed message, keys, a
signature), each recipient and whether a key of the home opens it, the
formats and algorithms it uses and a verdict on whether decrypting it is
safe. docs/INSPECT.md describes the report and its JSON form.`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "write the report as JSON"}},
	}
}

// flagLine renders a subcommand's flag for urfave/cli's help: the names
// and the value's name, then the text, without "(default: false)" and
// with "(repeatable)" for a list.
func flagLine(f cli.Flag) string {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return ""
	}
	var names []string
	for _, n := range df.Names() {
		if len(n) == 1 {
			names = append(names, "-"+n)
		} else {
			names = append(names, "--"+n)
		}
	}
	s := strings.Join(names, ", ")
	if df.TakesValue() {
		s += " " + placeholder(f, df.Names()[0])
	}
	usage := df.GetUsage()
	if sf, ok := f.(cli.DocGenerationSliceFlag); ok && sf.IsSliceFlag() {
		usage += " (repeatable)"
	}
	return s + "\t" + usage
}

// placeholder names a flag's value: FILE for a file, else the last word
// of its name (--cpu-mhz MHZ, --disable-hwf HWF).
func placeholder(f cli.Flag, name string) string {
	if sf, ok := f.(*cli.StringFlag); ok && sf.TakesFile {
		return "FILE"
	}
	return strings.ToUpper(name[strings.LastIndexByte(name, '-')+1:])
}
