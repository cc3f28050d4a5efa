package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
)

// newApp is the urfave/cli application: it runs pgpstream's own
// commands (bench, version, help) and renders their help. The gpg
// command line itself is parsed by parseOptions (see options.go), and
// --help is written from the option table (help.go).
func newApp(st *state) *cli.App {
	cli.FlagStringer = flagLine
	var help strings.Builder
	writeHelp(&help, st.prog)
	app := &cli.App{
		Name:                   st.prog,
		Usage:                  summary,
		CustomAppHelpTemplate:  help.String(),
		HideVersion:            true,
		UseShortOptionHandling: true,
		Writer:                 st.stdout,
		ErrWriter:              st.stderr,
		Reader:                 st.stdin,
		ExitErrHandler:         func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			msg := err.Error()
			if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
				// The flag package names every option with one dash.
				if len(name) > 1 {
					name = "-" + name
				}
				msg = "unknown option -" + name
			}
			return usageError{msg: msg, hints: []string{"see pgpstream --help"}}
		},
		DisableSliceFlagSeparator: true,
		Flags:                     appFlags(),
		Before:                    hwfBefore(st),
		Action: func(c *cli.Context) error {
			return usageError{msg: "no command given", hints: []string{"use --encrypt, --symmetric, --decrypt, --import or --list-keys; see pgpstream --help"}}
		},
		Commands: appCommands(st),
	}
	return app
}

// appCommands are pgpstream's own commands, a word after the options.
// inspect is run by the gpg grammar (execute); it is here for its help.
// With st nil they are for documentation only (help.go).
func appCommands(st *state) []*cli.Command {
	return []*cli.Command{benchCommand(st), versionCommand(st), inspectCommand(), sopCommand(), helpCommand(st)}
}

// appFlags turns the option table into urfave/cli flags, so that gpg's
// options before a subcommand parse, and the ones the subcommands share
// (--disable-hwf, profiling) reach them.
func appFlags() []cli.Flag {
	var out []cli.Flag
	for _, d := range optionTable {
		if d.hidden || d.cmd == commandHelp {
			continue
		}
		var aliases []string
		if d.short != 0 {
			aliases = []string{string(d.short)}
		}
		switch {
		case d.long == "disable-hwf":
			out = append(out, &cli.StringSliceFlag{Name: d.long, Usage: d.usage})
		case d.arg != "":
			out = append(out, &cli.StringFlag{Name: d.long, Aliases: aliases, Usage: d.usage, TakesFile: d.arg == "FILE"})
		default:
			out = append(out, &cli.BoolFlag{Name: d.long, Aliases: aliases, Usage: d.usage})
		}
	}
	return out
}

// execute runs one command line: a subcommand through urfave/cli, else
// gpg's grammar into options and the command they name.
func execute(st *state, args []string) error {
	if topics, ok := helpAsked(args); ok {
		return showHelp(st, topics)
	}
	if isSubcommand(args) {
		return newApp(st).Run(args)
	}
	opts, inspectArgs, isInspect := splitInspect(args[1:])
	if isInspect {
		o, err := parseOptions(opts)
		if err != nil {
			return err
		}
		if err := st.apply(o); err != nil {
			return err
		}
		return cmdInspect(st, o, inspectArgs)
	}
	o, err := parseOptions(args[1:])
	if err != nil {
		return err
	}
	if err := st.apply(o); err != nil {
		return err
	}
	if err := applyHWF(st, o.disableHWF); err != nil {
		return err
	}
	stop, err := startProfile(st, func(name string) string { return o.profiles[name] }, o.verbose)
	if err != nil {
		return err
	}
	err = dispatch(st, o)
	if perr := stop(); perr != nil && err == nil {
		err = perr
	}
	return err
}

// helpAsked reports whether argv holds --help (or -h), and the topics
// after the options: gpg prints its help whatever else the command line
// says, before gpg.conf is read, so a broken one does not hide it.
func helpAsked(args []string) (topics []string, ok bool) {
	toks, rest, _, err := scanArgs(args[1:])
	if err != nil {
		return nil, false
	}
	for _, t := range toks {
		if t.def.cmd == commandHelp {
			return rest, true
		}
	}
	return nil, false
}

// isSubcommand reports whether argv names bench, version or help as its
// first argument, after options and before any gpg command.
func isSubcommand(args []string) bool {
	toks, rest, _, err := scanArgs(args[1:])
	if err != nil || len(rest) == 0 || (rest[0] != "bench" && rest[0] != "version" && rest[0] != "help") {
		return false
	}
	for _, t := range toks {
		if t.def.kind == kCommand {
			return false
		}
	}
	return true
}

// apply sets what the options say about the invocation itself: how
// much to say, and where messages go (--logger-fd, --logger-file).
func (s *state) apply(o *options) error {
	s.quiet, s.verbose = o.quiet, o.verbose
	s.keyidFormat = o.keyidFormat
	switch {
	case o.loggerFd == 1:
		s.stderr = s.stdout
	case o.loggerFd > 2:
		f, err := callerFile(fmt.Sprintf("--logger-fd %d", o.loggerFd), o.loggerFd)
		if err != nil {
			return err
		}
		s.stderr = s.watch(f, fmt.Sprintf("--logger-fd %d", o.loggerFd))
	case o.loggerFile == "-":
		// gpg's name for standard error (GnuPG's tests pass
		// --log-file - to read the messages from a pipe).
	case o.loggerFile != "":
		f, err := os.OpenFile(o.loggerFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("--logger-file: %w", err)
		}
		// Not closed on cleanup: the last error is written after it.
		// The process's exit closes it.
		s.stderr = s.watch(f, "--logger-file")
	}
	startClock(s, o.fakedTime)
	for _, n := range o.notes {
		s.say("%s", n)
	}
	for _, w := range o.confWarnings {
		s.warnf("%s", w)
	}
	s.infof("home %s (from %s)", o.home, o.homeFrom)
	return nil
}

// progName is the name messages carry. Installed under any other name
// (gpg, gpg2: clients such as pass run gpg2 when there is one), messages
// begin "gpg: ", as gpg's do whatever it is called, since that is what
// clients grep ("gpg: public key is ID"). A name beginning with
// pgpstream (pgpstream, pgpstream-sop, the test binary) is kept;
// "pgpstream" is the fallback for an empty argv[0].
func progName(args []string) string {
	if len(args) == 0 || args[0] == "" {
		return "pgpstream"
	}
	if base := filepath.Base(args[0]); strings.HasPrefix(base, "pgpstream") {
		return base
	}
	return "gpg"
}

func dispatch(st *state, o *options) error {
	if err := readPassphraseFd(st, o); err != nil {
		return err
	}
	if err := readSessionKeyFd(st, o); err != nil {
		return err
	}
	if o.commandFd > 0 || o.commandFile != "" {
		// As gpg, a command fd or file that cannot be read is an error
		// before the command runs, not when its first question comes.
		if _, err := askerOf(st, o); err != nil {
			return err
		}
	}
	if fn := networkCommands[o.cmd]; fn != nil {
		return fn(st, o)
	}
	if o.multifile {
		return multifile(st, o)
	}
	switch o.cmd {
	case commandNone:
		return usageError{msg: "no command given", hints: []string{"use --encrypt, --symmetric, --decrypt, --import or --list-keys; see pgpstream --help"}}
	case commandEncrypt, commandSymmetric:
		return cmdEncrypt(st, o)
	case commandDecrypt:
		return cmdDecrypt(st, o)
	case commandSign:
		return cmdSign(st, o, false)
	case commandDetachSign:
		return cmdSign(st, o, true)
	case commandVerify:
		return cmdVerify(st, o)
	case commandImport:
		if o.importOpts.showOnly {
			return cmdShowKeys(st, o)
		}
		if o.dryRun {
			return cmdImportDryRun(st, o)
		}
		return cmdImport(st, o)
	case commandListKeys:
		return cmdList(st, o, false)
	case commandListSecretKeys:
		return cmdList(st, o, true)
	case commandShowKeys:
		return cmdShowKeys(st, o)
	case commandListPackets:
		return cmdListPackets(st, o)
	case commandClearSign:
		return cmdClearSign(st, o)
	case commandStore:
		return cmdStore(st, o)
	case commandDearmor:
		return cmdDearmor(st, o)
	case commandEnarmor:
		return cmdEnarmor(st, o)
	case commandExport:
		return cmdExport(st, o, false, false)
	case commandExportSecretKeys:
		return cmdExport(st, o, true, false)
	case commandExportSecretSubkeys:
		return cmdExport(st, o, true, true)
	case commandQuickGenKey:
		return cmdGenKey(st, o)
	case commandDeleteKeys:
		return cmdDelete(st, o, "public")
	case commandDeleteSecretKeys:
		return cmdDelete(st, o, "secret")
	case commandDeleteSecretAndPublicKey:
		return cmdDelete(st, o, "both")
	case commandVersion:
		return printGnuPGVersion(st, o)
	case commandListConfig:
		return listConfig(st, o)
	case commandGpgconfTest:
		return nil
	case commandDumpOptions:
		return dumpOptions(st)
	case commandGenKey:
		return cmdGenKeyBatch(st, o)
	case commandPrintMD:
		return cmdPrintMD(st, o, false)
	case commandPrintMDs:
		return cmdPrintMD(st, o, true)
	case commandGenRandom:
		return cmdGenRandom(st, o)
	case commandImportOwnertrust:
		return cmdImportOwnerTrust(st, o)
	case commandExportOwnertrust:
		return cmdExportOwnerTrust(st, o)
	case commandQuickSetOwnertrust:
		return cmdQuickSetOwnerTrust(st, o)
	case commandTOFUPolicy:
		return cmdTOFUPolicy(st, o)
	case commandDumpOptionTable:
		return dumpOptionTable(st)
	case commandGpgconfList:
		return gpgconfList(st)
	case commandPrintManpage:
		return cmdPrintManpage(st)
	case commandPrintCompletion:
		return cmdPrintCompletion(st, o)
	}
	if ok, err := dispatchLifecycle(st, o); ok {
		return err
	}
	if ok, err := dispatchKeyCommands(st, o); ok {
		return err
	}
	return usagef("unknown command %q", o.cmd.String())
}
