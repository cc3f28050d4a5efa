// Package gpgargs is gpg's grammar for its command line and for
// gpg.conf, apart from what the options mean.
//
// The command line (GnuPG's common/argparse.c as gpg uses it): a long
// option is --NAME, --NAME=VALUE or --NAME VALUE, where NAME may be any
// prefix that stands for one option only; short options bundle (-bsau
// KEY), and one that takes a value takes the rest of the bundle (-uKEY)
// or the next argument; "--" ends the options, and so does the first
// argument that is not one, as in gpg (a later "--x" is an argument, with
// a note). gpg.conf: one option per line, its long name in full without
// the dashes, then white space and its value; '#' starts a comment; a
// line gpg's grammar rejects is a warning naming FILE:LINE and is
// skipped, since the file is shared with gpg.
//
// A Grammar knows each option's names, whether it takes a value and
// whether it is a command; the caller's table says what it does. Names
// gpg has and the caller lacks are known too: they count for prefixes
// (so an abbreviation means what it means to gpg) and are "not
// supported" rather than unknown.
package gpgargs

import (
	"fmt"
	"sort"
	"strings"
)

// A Spec is what the grammar needs of one option.
type Spec struct {
	Long  string
	Short byte   // 0: none
	Arg   string // the value's name (FILE, KEYID); "" when it takes none
	// Command options are not allowed in gpg.conf.
	Command bool
	// Early options (--homedir, --options) are read before gpg.conf,
	// so they have no effect in it.
	Early bool
	// Alias is the long name of the option this one is another
	// spelling of; tokens name that one.
	Alias string
}

// Grammar scans arguments and gpg.conf lines against a table of Specs.
type Grammar struct {
	specs    []Spec
	byLong   map[string]int
	byShort  map[byte]int
	names    []string // every long name a prefix may stand for, sorted
	gpgOnly  map[string]bool
	gpgShort string
}

// New makes the grammar of specs. gpgNames are gpg's long options (the
// caller's own may be among them), gpgShort gpg's short ones. An alias
// must name a spec with the same Arg; New panics otherwise, as a table
// error is the program's.
func New(specs []Spec, gpgNames []string, gpgShort string) *Grammar {
	g := &Grammar{specs: specs, byLong: map[string]int{}, byShort: map[byte]int{}, gpgOnly: map[string]bool{}, gpgShort: gpgShort}
	for i, s := range specs {
		g.byLong[s.Long] = i
	}
	for i, s := range specs {
		if s.Alias != "" {
			t, ok := g.byLong[s.Alias]
			if !ok || specs[t].Arg != s.Arg {
				panic("gpgargs: option alias --" + s.Long + " disagrees with --" + s.Alias)
			}
		}
		if s.Short != 0 {
			g.byShort[s.Short] = i
		}
	}
	seen := map[string]bool{}
	for _, n := range gpgNames {
		if _, ours := g.byLong[n]; !ours {
			g.gpgOnly[n] = true
		}
		seen[n] = true
	}
	for n := range g.byLong {
		seen[n] = true
	}
	for n := range seen {
		g.names = append(g.names, n)
	}
	sort.Strings(g.names)
	return g
}

// Kind says what is wrong with an option.
type Kind uint8

const (
	Unknown      Kind = iota + 1 // neither the caller's nor gpg's
	NotSupported                 // gpg's, not the caller's
	Ambiguous                    // a prefix of several options
	NeedsValue
	TakesNoValue
)

// Error is a mistake in the arguments.
type Error struct {
	Kind Kind
	Name string // the option as written: --NAME or -C
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// canonical follows an alias to the spec that acts.
func (g *Grammar) canonical(i int) int {
	if a := g.specs[i].Alias; a != "" {
		return g.byLong[a]
	}
	return i
}

// Exact finds a long option by its full name (an alias gives the option
// it spells).
func (g *Grammar) Exact(name string) (int, bool) {
	i, ok := g.byLong[name]
	if !ok {
		return 0, false
	}
	return g.canonical(i), true
}

// Short finds a short option.
func (g *Grammar) Short(c byte) (int, bool) {
	i, ok := g.byShort[c]
	if !ok {
		return 0, false
	}
	return g.canonical(i), true
}

// Lookup finds a long option by its name or a prefix that stands for one
// option only, as gpg does; several spellings of one option are one.
func (g *Grammar) Lookup(name string) (int, error) {
	if i, ok := g.Exact(name); ok {
		return i, nil
	}
	var first string
	targets := map[string]bool{}
	for _, n := range g.names[sort.SearchStrings(g.names, name):] {
		if !strings.HasPrefix(n, name) {
			break
		}
		if first == "" {
			first = n
		}
		t := n
		if i, ok := g.Exact(n); ok {
			t = g.specs[i].Long
		}
		targets[t] = true
	}
	switch {
	case len(targets) > 1:
		return 0, &Error{Kind: Ambiguous, Name: "--" + name, Msg: fmt.Sprintf("option --%s is ambiguous", name)}
	case first == "":
		return 0, &Error{Kind: Unknown, Name: "--" + name, Msg: fmt.Sprintf("unknown option --%s", name)}
	}
	if i, ok := g.Exact(first); ok {
		return i, nil
	}
	return 0, &Error{Kind: NotSupported, Name: "--" + first, Msg: "--" + first + " is not supported"}
}

// Token is one option as given: its spec (an alias resolved), its value,
// how it was written, and for gpg.conf where.
type Token struct {
	Opt   int
	Value string
	Name  string // as written, for messages: --long, -c, or gpg.conf's name
	Where string // "FILE:LINE" for gpg.conf, "" for the command line
}

// Scan splits argv (without argv[0]) into options and arguments. notes
// are gpg's notes on arguments that look like options after the first
// argument.
func (g *Grammar) Scan(argv []string) (toks []Token, args []string, notes []string, err error) {
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			return toks, append(args, argv[i+1:]...), notes, nil
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			d, err := g.Lookup(name)
			if err != nil {
				return nil, nil, nil, err
			}
			long := g.specs[d].Long
			if g.specs[d].Arg == "" {
				if hasValue {
					return nil, nil, nil, &Error{Kind: TakesNoValue, Name: "--" + long, Msg: fmt.Sprintf("--%s takes no value", long)}
				}
			} else if !hasValue {
				if i+1 >= len(argv) {
					return nil, nil, nil, &Error{Kind: NeedsValue, Name: "--" + long, Msg: fmt.Sprintf("--%s needs a value (%s)", long, g.specs[d].Arg)}
				}
				i++
				value = argv[i]
			}
			toks = append(toks, Token{Opt: d, Value: value, Name: "--" + long})
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				c := a[j]
				d, ok := g.Short(c)
				if !ok {
					name := fmt.Sprintf("-%c", c)
					if strings.IndexByte(g.gpgShort, c) >= 0 {
						return nil, nil, nil, &Error{Kind: NotSupported, Name: name, Msg: name + " is not supported"}
					}
					return nil, nil, nil, &Error{Kind: Unknown, Name: name, Msg: "unknown option " + name}
				}
				t := Token{Opt: d, Name: fmt.Sprintf("-%c", c)}
				if g.specs[d].Arg != "" {
					if j+1 < len(a) {
						t.Value = a[j+1:]
					} else if i+1 < len(argv) {
						i++
						t.Value = argv[i]
					} else {
						return nil, nil, nil, &Error{Kind: NeedsValue, Name: t.Name, Msg: fmt.Sprintf("%s needs a value (%s)", t.Name, g.specs[d].Arg)}
					}
					toks = append(toks, t)
					break
				}
				toks = append(toks, t)
			}
		default:
			rest := argv[i:]
			for _, r := range rest[1:] {
				if strings.HasPrefix(r, "--") {
					notes = append(notes, fmt.Sprintf("Note: '%s' is not considered an option", r))
				}
			}
			return toks, append(args, rest...), notes, nil
		}
	}
	return toks, args, notes, nil
}

// Conf reads gpg.conf's text, from the file path names. gpg.conf takes
// no abbreviations; a value may stand in double quotes.
func (g *Grammar) Conf(path string, text string) (toks []Token, warnings []string) {
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		where := fmt.Sprintf("%s:%d", path, n+1)
		name, value := line, ""
		if i := strings.IndexAny(line, " \t"); i >= 0 {
			name, value = line[:i], strings.TrimSpace(line[i+1:])
		}
		value = strings.Trim(value, `"`)
		name = strings.TrimPrefix(name, "--")
		d, ok := g.Exact(name)
		why := ""
		switch {
		case !ok && g.gpgOnly[name]:
			why = fmt.Sprintf("option \"%s\" is not supported", name)
		case !ok:
			why = fmt.Sprintf("invalid option \"%s\"", name)
		case g.specs[d].Command:
			why = fmt.Sprintf("\"%s\" is not allowed in a config file", name)
		case g.specs[d].Early:
			why = fmt.Sprintf("\"%s\" has no effect in a config file", name)
		case g.specs[d].Arg != "" && value == "":
			why = fmt.Sprintf("option \"%s\" needs a value", name)
		case g.specs[d].Arg == "" && value != "":
			why = fmt.Sprintf("option \"%s\" takes no value", name)
		}
		if why != "" {
			warnings = append(warnings, fmt.Sprintf("%s: %s; line ignored", where, why))
			continue
		}
		toks = append(toks, Token{Opt: d, Value: value, Name: name, Where: where})
	}
	return toks, warnings
}
