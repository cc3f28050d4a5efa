package main

import (
	"io"
	"os"
	"strconv"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/sop"
)

// sopName is the name under which pgpstream is the Stateless OpenPGP CLI
// alone (make links bin/pgpstream-sop to bin/pgpstream), for the programs
// that take a sop binary to drive.
const sopName = "pgpstream-sop"

// runSOP runs the Stateless OpenPGP CLI when args ask for it: "pgpstream
// sop SUBCOMMAND ..." or pgpstream run as pgpstream-sop. It has its own
// options and exit codes (internal/sop), so it is dispatched before gpg's
// grammar sees the arguments.
func runSOP(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, bool) {
	prog := progName(args)
	var rest []string
	switch {
	case prog == sopName:
		rest = args[1:]
	case len(args) > 1 && args[1] == "sop":
		prog, rest = prog+" sop", args[2:]
	default:
		return 0, false
	}
	fd := func(n int) (*os.File, error) { return callerFile("@FD:"+strconv.Itoa(n), n) }
	return sop.Run(rest, sop.Env{Prog: prog, Version: version, Stdin: stdin, Stdout: stdout, Stderr: stderr, FD: fd}), true
}
