package main

import (
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// setfpr NAME FILE [N]: set $NAME to the Nth (default 1st) fpr record
	// of a --with-colons listing in FILE, so scripts can name generated
	// keys by fingerprint as gpg's --quick-* commands want.
	scriptCmds["setfpr"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 2 || len(args) > 3 {
			ts.Fatalf("usage: setfpr NAME FILE [N]")
		}
		ts.Setenv(args[0], nthFpr(ts, "setfpr", args[1:]))
	}
	// setkeyid NAME FILE [N]: the same, with the long key ID (the
	// fingerprint's last 16 digits, for a v4 key), which gpg's messages
	// name keys by.
	scriptCmds["setkeyid"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 2 || len(args) > 3 {
			ts.Fatalf("usage: setkeyid NAME FILE [N]")
		}
		fpr := nthFpr(ts, "setkeyid", args[1:])
		if len(fpr) != 40 {
			ts.Fatalf("setkeyid: %s is not a v4 fingerprint", fpr)
		}
		ts.Setenv(args[0], fpr[24:])
	}
}

// nthFpr returns the Nth (args[1], default 1st) fpr record of the
// --with-colons listing in the file args[0], for the script command cmd.
func nthFpr(ts *testscript.TestScript, cmd string, args []string) string {
	n := 1
	if len(args) == 2 {
		var err error
		if n, err = strconv.Atoi(args[1]); err != nil {
			ts.Fatalf("%s: %v", cmd, err)
		}
	}
	for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		f := strings.Split(line, ":")
		if f[0] != "fpr" || len(f) < 10 {
			continue
		}
		if n--; n == 0 {
			return f[9]
		}
	}
	ts.Fatalf("%s: no fpr record %s in %s", cmd, args[len(args)-1], args[0])
	return ""
}
