package keyring

import (
	"os"
	"testing"

	"github.com/pgpstream/pgpstream/internal/testhook"
)

// TestMain lowers the S2K and Argon2 cost of the passphrases these tests
// set: what they check does not depend on the cost, and at the release
// cost each protected key spends most of its test hashing.
func TestMain(m *testing.M) {
	testhook.Cheap()
	os.Exit(m.Run())
}
