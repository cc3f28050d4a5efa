// Package sop is the Stateless OpenPGP Command Line Interface
// (draft-dkg-openpgp-stateless-cli-16) on pgpstream's library: the
// interface through which the OpenPGP interoperability test suite and
// other programs drive an OpenPGP implementation without a home. Keys,
// certificates and passwords come as files, @ENV: variables or @FD:
// descriptors; the data goes through filter's encode and decode chains
// like every pgpstream command's, so a sop caller gets the same fast
// path.
//
// Every failure exits with the draft's code for its class (errors.go)
// and one line on standard error naming that class.
package sop

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/pgpstream/pgpstream/internal/escape"
)

// SpecRevision is the draft this package implements, as version
// --sop-spec reports it: with the tilde the draft asks for while some of
// its subcommands are missing (see unsupported).
const SpecRevision = "~draft-dkg-openpgp-stateless-cli-16"

// Env is what one run gets from its process.
type Env struct {
	Prog           string // what messages begin with
	Version        string // pgpstream's version
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// LookupEnv reads @ENV: designators; nil is os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// FD is the caller's descriptor n (@FD:n above 2): one *os.File per
	// descriptor for the whole run, so that no file dropped and
	// collected closes it under a later use; an error when the caller
	// did not open it.
	FD func(n int) (*os.File, error)
}

// command is one subcommand: its synopsis, the options it takes, and
// what it does.
type command struct {
	name     string
	synopsis string
	flags    []flagSpec
	run      func(c *call) error
}

// flagSpec is an option: with a value (--name=VALUE) or a switch, and
// whether it may be given more than once.
type flagSpec struct {
	name  string
	value bool
	multi bool
}

// call is one invocation of a subcommand, its options parsed.
type call struct {
	env     Env
	cmd     *command
	values  map[string][]string
	set     map[string]bool
	order   []string // the options as given, for the last of --armor and --no-armor
	args    []string
	cleanup []func()
}

// unsupported are the draft's subcommands pgpstream does not have: they
// answer UNSUPPORTED_SUBCOMMAND with why, rather than an unknown-command
// message.
var unsupported = map[string]string{
	"update-key":      "pgpstream does not refresh keys (update-key)",
	"merge-certs":     "pgpstream does not merge certificates here (merge-certs); pgpstream --import merges them into a home",
	"certify-userid":  "pgpstream makes no third-party certifications (certify-userid)",
	"validate-userid": "pgpstream computes no web of trust (validate-userid)",
}

var commands map[string]*command

func init() {
	commands = map[string]*command{}
	for _, c := range []*command{
		versionCmd, listProfilesCmd,
		generateKeyCmd, changeKeyPasswordCmd, revokeKeyCmd, extractCertCmd,
		signCmd, verifyCmd, encryptCmd, decryptCmd,
		armorCmd, dearmorCmd,
		inlineSignCmd, inlineVerifyCmd, inlineDetachCmd,
	} {
		commands[c.name] = c
	}
}

// Run runs one sop command line, args being the subcommand and what
// follows it, and returns the exit code.
func Run(args []string, env Env) int {
	if env.LookupEnv == nil {
		env.LookupEnv = os.LookupEnv
	}
	err := dispatch(args, env)
	if err == nil {
		return int(codeOK)
	}
	code := codeOf(err)
	msg := strings.NewReplacer("\n", " ", "\r", " ").Replace(err.Error())
	io.WriteString(env.Stderr, env.Prog+": error: "+code.String()+": "+escape.Human(msg)+"\n")
	return int(code)
}

func dispatch(args []string, env Env) error {
	if len(args) == 0 {
		return fail(codeUnsupportedSubcommand, "no subcommand given; see %s --help", env.Prog)
	}
	name := args[0]
	switch name {
	case "--help", "-h", "help":
		return usage(env)
	}
	if why, ok := unsupported[name]; ok {
		return fail(codeUnsupportedSubcommand, "%s", why)
	}
	cmd := commands[name]
	if cmd == nil {
		return fail(codeUnsupportedSubcommand, "unknown subcommand %q; see %s --help", name, env.Prog)
	}
	c, err := parse(cmd, args[1:], env)
	if err != nil {
		return err
	}
	if c == nil { // --help
		_, err := fmt.Fprintf(env.Stdout, "Usage: %s %s\n", env.Prog, cmd.synopsis)
		return err
	}
	defer c.close()
	return cmd.run(c)
}

func usage(env Env) error {
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s SUBCOMMAND [OPTIONS] [ARGS]\n\nThe Stateless OpenPGP Command Line Interface (%s) on pgpstream.\n\nSubcommands:\n", env.Prog, strings.TrimPrefix(SpecRevision, "~"))
	for _, n := range names {
		fmt.Fprintf(&b, "  %s %s\n", env.Prog, commands[n].synopsis)
	}
	fmt.Fprintf(&b, "\nNot supported (exit 69): %s.\n", strings.Join(sortedKeys(unsupported), ", "))
	_, err := io.WriteString(env.Stdout, b.String())
	return err
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// common options every subcommand takes: --debug (the draft's; errors
// already say what they can) and --help.
var debugFlag = flagSpec{name: "debug"}

// parse reads a subcommand's options and arguments. Options are --name
// or --name=VALUE (also --name VALUE) and may stand among the arguments
// until "--". An option the subcommand does not take is
// UNSUPPORTED_OPTION, a value missing MISSING_ARG, as the draft says.
// It returns nil for --help.
func parse(cmd *command, argv []string, env Env) (*call, error) {
	c := &call{env: env, cmd: cmd, values: map[string][]string{}, set: map[string]bool{}}
	specs := map[string]flagSpec{debugFlag.name: debugFlag}
	for _, f := range cmd.flags {
		specs[f.name] = f
	}
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			c.args = append(c.args, argv[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "--") || a == "-" {
			c.args = append(c.args, a)
			continue
		}
		if a == "--help" {
			return nil, nil
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		f, ok := specs[name]
		if !ok {
			return nil, fail(codeUnsupportedOption, "%s %s: unsupported option --%s", env.Prog, cmd.name, name)
		}
		switch {
		case !f.value && hasValue:
			return nil, fail(codeUnsupportedOption, "%s: --%s takes no value", cmd.name, name)
		case f.value && !hasValue:
			if i+1 >= len(argv) {
				return nil, fail(codeMissingArg, "%s: --%s needs a value", cmd.name, name)
			}
			i++
			value = argv[i]
		}
		if f.value && !f.multi && len(c.values[name]) > 0 {
			return nil, fail(codeIncompatibleOptions, "%s: --%s given twice", cmd.name, name)
		}
		c.set[name] = true
		if f.value {
			c.values[name] = append(c.values[name], value)
		}
		c.order = append(c.order, name)
	}
	return c, nil
}

// value is the value of a single-valued option, "" if not given.
func (c *call) value(name string) string {
	if v := c.values[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// armored says whether the output is armored: by default, unless the
// last of --armor and --no-armor says otherwise.
func (c *call) armored() bool {
	out := true
	for _, n := range c.order {
		switch n {
		case "armor":
			out = true
		case "no-armor":
			out = false
		}
	}
	return out
}

func (c *call) onClose(f func()) { c.cleanup = append(c.cleanup, f) }

func (c *call) close() {
	for i := len(c.cleanup) - 1; i >= 0; i-- {
		c.cleanup[i]()
	}
}

// noArgs refuses arguments where the subcommand takes none.
func (c *call) noArgs() error {
	if len(c.args) > 0 {
		return fail(codeUnsupportedOption, "%s takes no arguments (got %q)", c.cmd.name, c.args[0])
	}
	return nil
}

// armorFlags are --armor and --no-armor, for subcommands whose output
// may be either.
var armorFlags = []flagSpec{{name: "armor"}, {name: "no-armor"}}
