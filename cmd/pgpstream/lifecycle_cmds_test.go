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
		n := 1
		if len(args) == 3 {
			var err error
			if n, err = strconv.Atoi(args[2]); err != nil {
				ts.Fatalf("setfpr: %v", err)
			}
		}
		for _, line := range strings.Split(ts.ReadFile(args[1]), "\n") {
			f := strings.Split(line, ":")
			if f[0] != "fpr" || len(f) < 10 {
				continue
			}
			if n--; n == 0 {
				ts.Setenv(args[0], f[9])
				return
			}
		}
		ts.Fatalf("setfpr: no fpr record %s in %s", args[len(args)-1], args[1])
	}
}
