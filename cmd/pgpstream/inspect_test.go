package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// envmatch NAME N REGEXP FILE: set NAME to the first group of the
	// N-th (from 1) match of REGEXP in FILE (stdout and stderr included).
	scriptCmds["envmatch"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 4 {
			ts.Fatalf("usage: envmatch NAME N REGEXP FILE")
		}
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		re, err := regexp.Compile(args[2])
		ts.Check(err)
		m := re.FindAllStringSubmatch(ts.ReadFile(args[3]), -1)
		if len(m) < n || len(m[n-1]) < 2 {
			ts.Fatalf("%s has %d matches of %s, wanted %d", args[3], len(m), args[2], n)
		}
		ts.Setenv(args[0], m[n-1][1])
	}
	// grepfile REGEXP IN OUT: write the lines of IN that match REGEXP to
	// OUT, to compare the parts of two listings that must agree.
	scriptCmds["grepfile"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 3 {
			ts.Fatalf("usage: grepfile REGEXP IN OUT")
		}
		re, err := regexp.Compile(args[0])
		ts.Check(err)
		var out []string
		for _, l := range strings.SplitAfter(ts.ReadFile(args[1]), "\n") {
			if re.MatchString(l) {
				out = append(out, l)
			}
		}
		if len(out) == 0 && !neg {
			ts.Fatalf("no line of %s matches %s", args[1], args[0])
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(strings.Join(out, "")), 0o644))
	}
}
