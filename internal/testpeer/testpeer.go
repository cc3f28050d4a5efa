// Package testpeer is the one rule for a test whose peer (gpg, rnp, sq,
// qemu, a client program) is missing: skip, saying so, or fail when
// PGPSTREAM_REQUIRE_PEERS is set, as CI sets it, so that a run that
// tested nothing cannot pass there.
package testpeer

import (
	"os"
	"os/exec"
	"testing"
)

// Env is the variable that makes a missing peer a failure.
const Env = "PGPSTREAM_REQUIRE_PEERS"

// Required reports whether every peer must be present.
func Required() bool { return os.Getenv(Env) != "" }

// Missing ends the test for a peer that is not there: what says which
// and why.
func Missing(t testing.TB, what string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s, and %s is set", what, Env)
	}
	t.Skipf("%s (set %s=1 to make this a failure)", what, Env)
}

// Need ends the test unless every program is on PATH.
func Need(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			Missing(t, p+" is not installed")
		}
	}
}
