package main

import (
	"os/exec"
	"regexp"

	"github.com/rogpeppe/go-internal/testscript"
)

// randomPacketFields are the lines of gpg --list-packets that differ
// between two exports of the same secret key: the S2K salt and the IV
// are drawn afresh each time.
var randomPacketFields = regexp.MustCompile(`(?m)(salt: )[0-9A-F]+|(protect IV: ).*$`)

func init() {
	// samepackets A B: gpg --list-packets says the same of files A and
	// B, salts and IVs aside.
	scriptCmds["samepackets"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: samepackets A B")
		}
		var dumps [2]string
		for i, f := range args {
			cmd := exec.Command("gpg", "--list-packets", ts.MkAbs(f))
			cmd.Env = append(cmd.Environ(), "GNUPGHOME="+ts.Getenv("GNUPGHOME"), "LC_ALL=C")
			out, err := cmd.Output()
			if err != nil {
				ts.Fatalf("gpg --list-packets %s: %v", f, err)
			}
			dumps[i] = randomPacketFields.ReplaceAllString(string(out), "${1}${2}X")
		}
		if same := dumps[0] == dumps[1]; same == neg {
			ts.Logf("%s:\n%s\n%s:\n%s", args[0], dumps[0], args[1], dumps[1])
			ts.Fatalf("samepackets %s %s: %v", args[0], args[1], same)
		}
	}
}
