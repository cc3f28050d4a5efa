package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary run as pgpstream inside scripts.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"pgpstream":  func() { os.Exit(processMain()) },
		"lockholder": lockHolder,
	})
}

// scriptParams is the shared setup of every script: a private HOME and
// keyring, and conditions naming the peers that are installed.
func scriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir: dir,
		Setup: func(e *testscript.Env) error {
			e.Setenv("PGPSTREAM_HOME", e.WorkDir+"/.pgpstream")
			e.Setenv("GNUPGHOME", e.WorkDir+"/.gnupg")
			if v := os.Getenv("PGPSTREAM_REQUIRE_PEERS"); v != "" {
				e.Setenv("PGPSTREAM_REQUIRE_PEERS", v)
			}
			return os.MkdirAll(e.WorkDir+"/.gnupg", 0o700)
		},
		Condition: func(cond string) (bool, error) {
			// [peer:gpg] is true when gpg is installed; when
			// PGPSTREAM_REQUIRE_PEERS is set (CI), a missing peer is a
			// failure rather than a skip.
			if name, ok := strings.CutPrefix(cond, "peer:"); ok {
				if _, err := exec.LookPath(name); err == nil {
					return true, nil
				}
				if os.Getenv("PGPSTREAM_REQUIRE_PEERS") != "" {
					return false, &missingPeer{name}
				}
				return false, nil
			}
			return false, &unknownCond{cond}
		},
		Cmds:                scriptCmds,
		RequireExplicitExec: true,
	}
}

type missingPeer struct{ name string }

func (m *missingPeer) Error() string {
	return m.name + " is not installed and PGPSTREAM_REQUIRE_PEERS is set"
}

type unknownCond struct{ cond string }

func (u *unknownCond) Error() string { return "unknown condition " + u.cond }

func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script"))
}
