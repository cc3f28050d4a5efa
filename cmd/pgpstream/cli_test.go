package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pgpstream/pgpstream/internal/testhook"
	"github.com/pgpstream/pgpstream/internal/testpeer"
)

// TestMain lets the test binary run as pgpstream inside scripts and in
// the tests that need a process of their own. Either way passphrases are
// set at the lowest S2K and Argon2 cost (a release build cannot do that).
func TestMain(m *testing.M) {
	testhook.Cheap()
	testscript.Main(m, map[string]func(){
		"pgpstream": func() {
			code := processMain()
			if path := os.Getenv(peakRSSEnv); path != "" {
				writePeakRSS(path)
			}
			os.Exit(code)
		},
		// The same binary as the Stateless OpenPGP CLI alone, as make
		// links bin/pgpstream-sop.
		sopName:      func() { os.Exit(processMain()) },
		"lockholder": lockHolder,
	})
}

// scriptParams is the shared setup of every script: a private HOME and
// keyring, $TESTDATA naming the repository's testdata (peer-made keys and
// messages, vectors), and conditions naming the peers that are installed.
func scriptParams(dir string) testscript.Params {
	testdata, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		panic(err)
	}
	return testscript.Params{
		Dir: dir,
		Setup: func(e *testscript.Env) error {
			e.Setenv("TESTDATA", testdata)
			e.Setenv("PGPSTREAM_HOME", e.WorkDir+"/.pgpstream")
			e.Setenv("GNUPGHOME", e.WorkDir+"/.gnupg")
			if v := os.Getenv(testpeer.Env); v != "" {
				e.Setenv(testpeer.Env, v)
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
				if testpeer.Required() {
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

// runInProcess runs pgpstream in the test process, for Go tests that
// check what a script cannot (exit codes, byte-exact output over many
// sizes): the one in-process helper; pgpstreamCmd is the one for a
// process of its own.
func runInProcess(stdin []byte, args ...string) (code int, stdout []byte, stderr string) {
	var o, e bytes.Buffer
	code = run(append([]string{"pgpstream"}, args...), bytes.NewReader(stdin), &o, &e)
	return code, o.Bytes(), e.String()
}

// mustRun is runInProcess that fails the test on a non-zero exit.
func mustRun(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	code, out, stderr := runInProcess(stdin, args...)
	if code != 0 {
		t.Fatalf("pgpstream %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	return out
}

func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script"))
}
