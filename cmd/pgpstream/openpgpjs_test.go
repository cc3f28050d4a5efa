package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// openpgpjsDir holds OpenPGP.js (package.json pins the version, `npm ci`
// installs it in node_modules) and pgp.mjs, a small command line around it.
const openpgpjsDir = "../../testdata/openpgpjs"

// TestOpenPGPjs runs testdata/openpgpjs: OpenPGP.js, the implementation in
// browsers and web mail, makes keys and messages for pgpstream and reads
// what pgpstream writes. It reads and writes all of RFC 9580 (v6 keys,
// SEIPD v2 with OCB, GCM and EAX, Argon2) and still reads LibrePGP's tag
// 20, so it checks the parts of pgpstream that gpg 2.2 and sq 0.27 cannot.
//
// Scripts run `exec openpgpjs CMD ...`, a wrapper around `node pgp.mjs`
// put on their PATH. Without node or node_modules the test skips, unless
// PGPSTREAM_REQUIRE_PEERS is set (CI), where it fails.
func TestOpenPGPjs(t *testing.T) {
	dir, err := filepath.Abs(openpgpjsDir)
	if err != nil {
		t.Fatal(err)
	}
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not installed"
	} else if want, got := openpgpjsVersions(dir); got == "" {
		missing = "OpenPGP.js is not installed: run `npm ci --prefix testdata/openpgpjs` (make test does)"
	} else if got != want {
		// A node_modules left from an older pin would test the wrong peer.
		missing = "OpenPGP.js " + got + " is installed, package.json pins " + want + ": run `npm ci --prefix testdata/openpgpjs` (make test does)"
	}
	if missing != "" {
		peerMissing(t, missing)
	}

	bin := t.TempDir()
	wrapper := "#!/bin/sh\nexec node " + shellQuote(filepath.Join(dir, "pgp.mjs")) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "openpgpjs"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}

	p := scriptParams("testdata/openpgpjs")
	setup, cond := p.Setup, p.Condition
	p.Setup = func(e *testscript.Env) error {
		e.Setenv("PATH", bin+string(os.PathListSeparator)+e.Getenv("PATH"))
		return setup(e)
	}
	p.Condition = func(c string) (bool, error) {
		// The wrapper is on the scripts' PATH, not on this process's,
		// where the shared condition looks.
		if c == "peer:openpgpjs" {
			return true, nil
		}
		return cond(c)
	}
	testscript.Run(t, p)
}

// openpgpjsVersions returns the openpgp version package.json pins and the
// one in node_modules, "" for what cannot be read.
func openpgpjsVersions(dir string) (want, got string) {
	var pin struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	var installed struct {
		Version string `json:"version"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil && json.Unmarshal(b, &pin) == nil {
		want = pin.Dependencies["openpgp"]
	}
	if b, err := os.ReadFile(filepath.Join(dir, "node_modules", "openpgp", "package.json")); err == nil && json.Unmarshal(b, &installed) == nil {
		got = installed.Version
	}
	return want, got
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string {
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
		} else {
			out += string(r)
		}
	}
	return out + "'"
}
