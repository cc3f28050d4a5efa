package main

import (
	"bufio"
	"fmt"
	"strings"
)

// multifile is gpg's --multifile: --encrypt, --decrypt and --verify take
// each file argument as a message of its own, or, with no argument, each
// line of standard input as a file name. Encryption writes FILE.gpg (or
// FILE.asc), decryption FILE without its suffix, and verification nothing.
// As in gpg, a file that fails is reported and the others are still done;
// the exit status says that one failed.
func multifile(st *state, o *options) error {
	run := map[command]func(*state, *options) error{commandEncrypt: cmdEncrypt, commandDecrypt: cmdDecrypt, commandVerify: cmdVerify}[o.cmd]
	if run == nil || (o.cmd == commandEncrypt && (o.symmetric || o.signing())) {
		return usagef("--multifile works with --encrypt, --decrypt and --verify only")
	}
	if !o.output.none() {
		return usagef("--output cannot name the outputs of --multifile: each file has its own")
	}
	files := o.args
	if len(files) == 0 {
		sc := bufio.NewScanner(st.stdin)
		for sc.Scan() {
			if name := strings.TrimRight(sc.Text(), "\r"); name != "" {
				files = append(files, name)
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("reading file names from standard input: %w", err)
		}
	}
	failed := 0
	for _, name := range files {
		one := *o
		one.args = []string{name}
		one.multifile = false
		err := error(nil)
		if o.cmd == commandDecrypt {
			var out string
			out, err = decryptedName(name)
			one.output = pathArg(out)
		}
		if err == nil {
			// Each file is a run of its own: its output is written
			// when it succeeds, whatever the others do.
			saved := st.exit
			st.exit = exitOK
			err = st.finishOutputs(run(st, &one))
			st.exit = max(saved, st.exit)
		}
		if err != nil {
			st.errorf("%s: %v", name, err)
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d files failed", failed, len(files))
	}
	return nil
}

// decryptedName is where --multifile --decrypt writes FILE: FILE without
// the suffix gpg strips. gpg asks for a name when there is none to strip;
// pgpstream asks nothing and refuses the file.
func decryptedName(name string) (string, error) {
	for _, suf := range []string{".gpg", ".pgp", ".asc", ".sig"} {
		if len(name) > len(suf) && strings.HasSuffix(strings.ToLower(name), suf) {
			return name[:len(name)-len(suf)], nil
		}
	}
	return "", fmt.Errorf("no output name: the file name does not end in .gpg, .pgp, .asc or .sig")
}
