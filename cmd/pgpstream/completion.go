package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/pgpstream/pgpstream/internal/hwf"
)

// Shell completions for bash, zsh and fish, made from the option table
// as --help and the manual are: `pgpstream --print-completion SHELL`.

// argValues are the values an option's argument (or, for a command, its
// first argument) is completed from, where they are a closed set. A test
// runs each one through the parser, so none is offered that fails.
var argValues = map[string][]string{
	"cipher-algo":         {"AES128", "AES192", "AES256"},
	"compress-algo":       {"none", "zip", "zlib"},
	"digest-algo":         {"SHA256", "SHA384", "SHA512", "SHA224", "SHA3-256", "SHA3-512", "SHA1"},
	"aead-algo":           {"OCB", "EAX", "GCM"},
	"pinentry-mode":       {"default", "ask", "loopback", "cancel", "error"},
	"trust-model":         {"pgp", "classic", "tofu", "tofu+pgp", "direct", "always", "auto"},
	"tofu-default-policy": {"auto", "good", "unknown", "bad", "ask"},
	"keyid-format":        {"none", "short", "0xshort", "long", "0xlong"},
	"key-version":         {"4", "6"},
	"print-completion":    {"bash", "zsh", "fish"},
	"disable-hwf":         hwf.Names(),
}

// completionShells are the shells --print-completion writes for.
var completionShells = map[string]func(io.Writer, []*optDef){
	"bash": bashCompletion,
	"zsh":  zshCompletion,
	"fish": fishCompletion,
}

// cmdPrintCompletion is --print-completion SHELL.
func cmdPrintCompletion(st *state, o *options) error {
	if len(o.args) != 1 {
		return usageError{msg: "--print-completion needs the shell: bash, zsh or fish", hints: []string{"source <(pgpstream --print-completion bash)"}}
	}
	write := completionShells[o.args[0]]
	if write == nil {
		return usagef("--print-completion %s: pgpstream completes for bash, zsh and fish", o.args[0])
	}
	write(st.stdout, completedOptions())
	return nil
}

// completedOptions are the options --help lists, in its order.
func completedOptions() []*optDef {
	var out []*optDef
	for _, s := range sections(false) {
		out = append(out, s.opts...)
	}
	return out
}

// argKind says how an option's argument is completed.
type argKind int

const (
	argNone   argKind = iota // no argument
	argFree                  // anything: a key, a number; nothing to offer
	argFile                  // a file name
	argDir                   // a directory
	argChoice                // one of argValues
)

func argKindOf(d *optDef) argKind {
	switch {
	case len(argValues[d.long]) > 0:
		return argChoice
	case d.arg == "":
		return argNone
	case d.arg == "FILE":
		return argFile
	case d.arg == "DIR":
		return argDir
	}
	return argFree
}

// commandArgName is what a command's first argument is called: the
// first word of its text when that names its arguments, as in "SHELL:
// write ..."; else "argument".
func commandArgName(d *optDef) string {
	head, _, ok := strings.Cut(d.usage, ": ")
	if f := strings.Fields(head); ok && len(f) > 0 && f[0] == strings.ToUpper(f[0]) {
		return f[0]
	}
	return "argument"
}

// shortDesc is an option's text cut to fit a completion menu's line.
func shortDesc(s string) string {
	const max = 70
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max-3], ' ')
	if cut < 20 {
		cut = max - 3
	}
	return strings.TrimRight(s[:cut], " ,;:(") + "..."
}

func bashCompletion(w io.Writer, opts []*optDef) {
	var words, files, dirs, free []string
	values := map[string][]string{}
	for _, d := range opts {
		names := []string{"--" + d.long}
		if d.short != 0 {
			names = append(names, fmt.Sprintf("-%c", d.short))
		}
		words = append(words, names...)
		switch argKindOf(d) {
		case argFile:
			files = append(files, names...)
		case argDir:
			dirs = append(dirs, names...)
		case argFree:
			free = append(free, names...)
		case argChoice:
			values[strings.Join(names, "|")] = argValues[d.long]
		}
	}
	fmt.Fprint(w, `# bash completion for pgpstream, written by pgpstream --print-completion bash
_pgpstream() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev= i
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD-1]}
	# --opt=VALUE: bash splits the = off as a word of its own.
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		prev=${COMP_WORDS[COMP_CWORD-2]}
	fi
	case $prev in
`)
	bashArm(w, files, `COMPREPLY=($(compgen -f -- "$cur"))`)
	bashArm(w, dirs, `COMPREPLY=($(compgen -d -- "$cur"))`)
	bashArm(w, free, `COMPREPLY=()`)
	for _, d := range opts {
		if argKindOf(d) != argChoice {
			continue
		}
		names := "--" + d.long
		if d.short != 0 {
			names += fmt.Sprintf("|-%c", d.short)
		}
		bashArm(w, []string{names}, fmt.Sprintf(`COMPREPLY=($(compgen -W %q -- "$cur"))`, strings.Join(argValues[d.long], " ")))
	}
	var subs []string
	for _, c := range subcommands() {
		subs = append(subs, c.name)
	}
	fmt.Fprintf(w, `	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W %q -- "$cur"))
		return
	fi
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == help ]]; then
			COMPREPLY=($(compgen -W %q -- "$cur"))
			return
		fi
	done
	COMPREPLY=($(compgen -W %q -- "$cur") $(compgen -f -- "$cur"))
}
complete -o filenames -o bashdefault -F _pgpstream pgpstream
`, strings.Join(words, " "), strings.Join(subs, " "), strings.Join(subs, " "))
}

// bashArm is one arm of the case on the previous word.
func bashArm(w io.Writer, names []string, reply string) {
	if len(names) > 0 {
		fmt.Fprintf(w, "\t%s)\n\t\t%s\n\t\treturn\n\t\t;;\n", strings.Join(names, "|"), reply)
	}
}

// zshQuote is s in single quotes, for zsh and fish alike.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// zshDesc is text for an _arguments description, inside [...].
func zshDesc(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, ":", `\:`).Replace(shortDesc(s))
}

func zshCompletion(w io.Writer, opts []*optDef) {
	fmt.Fprint(w, "#compdef pgpstream\n# zsh completion for pgpstream, written by pgpstream --print-completion zsh\n\n_pgpstream() {\n\tlocal -a specs\n\tspecs=(\n")
	for _, d := range opts {
		action := ""
		switch argKindOf(d) {
		case argFree:
			action = ":" + d.arg + ": "
		case argFile:
			action = ":" + d.arg + ":_files"
		case argDir:
			action = ":" + d.arg + ":_files -/"
		case argChoice:
			// A command's first argument completes as an option's
			// would, in the next word (--print-completion zsh).
			name := d.arg
			if name == "" {
				name = commandArgName(d)
			}
			action = ":" + name + ":(" + strings.Join(argValues[d.long], " ") + ")"
		}
		desc := "[" + zshDesc(d.usage) + "]"
		long, short := "--"+d.long, ""
		if d.short != 0 {
			short = fmt.Sprintf("-%c", d.short)
		}
		if action != "" && d.arg != "" {
			long += "="
			if short != "" {
				short += "+"
			}
		}
		fmt.Fprintf(w, "\t\t%s\n", zshQuote(long+desc+action))
		if short != "" {
			fmt.Fprintf(w, "\t\t%s\n", zshQuote(short+desc+action))
		}
	}
	fmt.Fprint(w, "\t)\n\t_arguments -s -S $specs '1: :_pgpstream_first' '*:file:_files'\n}\n\n")
	fmt.Fprint(w, "# The first word after the options: one of pgpstream's own commands, or a file.\n_pgpstream_first() {\n\tlocal -a cmds\n\tcmds=(\n")
	for _, c := range subcommands() {
		fmt.Fprintf(w, "\t\t%s\n", zshQuote(c.name+":"+shortDesc(c.usage)))
	}
	fmt.Fprint(w, "\t)\n\t_describe -t commands 'pgpstream command' cmds\n\t_files\n}\n\n_pgpstream \"$@\"\n")
}

// fishQuote is s in fish's single quotes, where \ and ' are escaped.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

func fishCompletion(w io.Writer, opts []*optDef) {
	fmt.Fprint(w, "# fish completion for pgpstream, written by pgpstream --print-completion fish\n")
	for _, d := range opts {
		line := "complete -c pgpstream"
		if d.short != 0 {
			line += fmt.Sprintf(" -s %c", d.short)
		}
		line += " -l " + d.long
		switch argKindOf(d) {
		case argFree:
			line += " -x"
		case argFile:
			line += " -r -F"
		case argDir:
			line += " -x -a '(__fish_complete_directories (commandline -ct))'"
		case argChoice:
			if d.arg != "" {
				line += " -x -a " + fishQuote(strings.Join(argValues[d.long], " "))
			}
		}
		fmt.Fprintf(w, "%s -d %s\n", line, fishQuote(shortDesc(d.usage)))
		if argKindOf(d) == argChoice && d.arg == "" {
			// A command whose first argument is one of a set.
			fmt.Fprintf(w, "complete -c pgpstream -n %s -x -a %s\n",
				fishQuote("__fish_seen_argument -l "+d.long), fishQuote(strings.Join(argValues[d.long], " ")))
		}
	}
	// pgpstream's own commands stand where a file would, and not after a
	// gpg command.
	var seen []string
	for _, d := range opts {
		if d.kind == kCommand {
			if d.short != 0 {
				seen = append(seen, fmt.Sprintf("-s %c", d.short))
			}
			seen = append(seen, "-l "+d.long)
		}
	}
	fmt.Fprintf(w, "function __pgpstream_no_command\n\t__fish_use_subcommand; and not __fish_seen_argument %s\nend\n", strings.Join(seen, " "))
	var subs []string
	for _, c := range subcommands() {
		subs = append(subs, c.name)
		fmt.Fprintf(w, "complete -c pgpstream -n __pgpstream_no_command -a %s -d %s\n", c.name, fishQuote(shortDesc(c.usage)))
	}
	fmt.Fprintf(w, "complete -c pgpstream -n %s -x -a %s\n", fishQuote("__fish_seen_subcommand_from help"), fishQuote(strings.Join(subs, " ")))
}
