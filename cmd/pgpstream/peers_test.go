package main

import (
	"os/exec"
	"testing"

	"github.com/pgpstream/pgpstream/internal/testpeer"
)

// peerMissing skips the test because of what is missing, or fails it
// when PGPSTREAM_REQUIRE_PEERS says every peer must be there (CI sets it).
func peerMissing(t testing.TB, what string) {
	t.Helper()
	testpeer.Missing(t, what)
}

// lookTool is the path of the program name, else peerMissing.
func lookTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		peerMissing(t, name+" is not installed")
	}
	return p
}
