// Package gnupgtest makes throwaway GnuPG homes with the real gpg for
// tests of the packages that read a GnuPG home or talk to its agent.
package gnupgtest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/internal/testpeer"
)

// Home is a temporary GNUPGHOME.
type Home struct {
	t   testing.TB
	Dir string
}

// Require skips the test when gpg, gpg-agent or gpgconf is missing,
// unless PGPSTREAM_REQUIRE_PEERS is set (CI), where it fails.
func Require(t testing.TB) {
	t.Helper()
	testpeer.Need(t, "gpg", "gpgconf", "gpg-agent")
}

// New makes an empty home under /tmp (the agent's socket path must stay
// under the 107 bytes of sun_path, which t.TempDir's long names can
// pass) and kills its agent when the test ends.
func New(t testing.TB) *Home {
	t.Helper()
	Require(t)
	dir, err := os.MkdirTemp("/tmp", "gh")
	if err != nil {
		t.Fatal(err)
	}
	h := &Home{t: t, Dir: dir}
	// gpg 2.2 allows loopback by default; say so for agents that do not.
	if err := os.WriteFile(dir+"/gpg-agent.conf", []byte("allow-loopback-pinentry\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// gpgconf --kill has been seen to hang on a loaded machine;
		// the test must not hang with it.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c := exec.CommandContext(ctx, "gpgconf", "--kill", "gpg-agent")
		c.Env = h.Env()
		c.WaitDelay = time.Second
		c.Run()
		os.RemoveAll(dir)
	})
	return h
}

// Env is the environment for gpg and pgpstream in this home.
func (h *Home) Env() []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GNUPGHOME=") && !strings.HasPrefix(e, "GPG_AGENT_INFO=") {
			env = append(env, e)
		}
	}
	return append(env, "GNUPGHOME="+h.Dir)
}

// Run runs a command (gpg, gpgconf) in the home and returns its
// standard output; a failure ends the test.
func (h *Home) Run(stdin []byte, name string, args ...string) []byte {
	h.t.Helper()
	out, err := h.Try(stdin, name, args...)
	if err != nil {
		h.t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return out
}

// Try is Run that returns the failure, with the command's standard
// error in it.
func (h *Home) Try(stdin []byte, name string, args ...string) ([]byte, error) {
	c := exec.Command(name, args...)
	c.Env = h.Env()
	c.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return out, &runError{err, stderr.String()}
	}
	return out, nil
}

type runError struct {
	err    error
	stderr string
}

func (e *runError) Error() string { return e.err.Error() + ": " + strings.TrimSpace(e.stderr) }
func (e *runError) Unwrap() error { return e.err }

// GenKey makes a key with gpg --quick-gen-key (passphrase "" for none)
// and, when subAlgo is set, an encryption subkey; it returns the primary
// fingerprint.
func (h *Home) GenKey(uid, algo, subAlgo, passphrase string) string {
	h.t.Helper()
	pass := []string{"--batch", "--pinentry-mode", "loopback", "--passphrase", passphrase}
	h.Run(nil, "gpg", append(pass, "--quick-gen-key", uid, algo, "default", "never")...)
	fpr := h.Fingerprints(uid)[0]
	if subAlgo != "" {
		h.Run(nil, "gpg", append(pass, "--quick-add-key", fpr, subAlgo, "encr", "never")...)
	}
	return fpr
}

// Fingerprints lists the fpr fields of gpg --list-keys --with-colons
// (primary keys and subkeys, in gpg's order) for the given names.
func (h *Home) Fingerprints(names ...string) []string {
	h.t.Helper()
	return h.colons("fpr", 9, names...)
}

// Keygrips lists the grp fields of gpg --list-keys --with-keygrip.
func (h *Home) Keygrips(names ...string) []string {
	h.t.Helper()
	return h.colons("grp", 9, append([]string{"--with-keygrip"}, names...)...)
}

func (h *Home) colons(kind string, field int, args ...string) []string {
	out := h.Run(nil, "gpg", append([]string{"--batch", "--with-colons", "--list-keys"}, args...)...)
	var r []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, ":")
		if len(f) > field && f[0] == kind {
			r = append(r, f[field])
		}
	}
	return r
}
