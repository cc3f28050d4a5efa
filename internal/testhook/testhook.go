// Package testhook holds the knobs that only test binaries turn, as age
// lowers scrypt's work factor in its tests. Nothing in a release build sets
// them: they are set by TestMain functions in _test.go files, which go build
// never compiles, and no flag, environment variable or file reaches them.
package testhook

import (
	"context"
	"net"

	"github.com/ProtonMail/go-crypto/openpgp/s2k"
)

var (
	// S2KCount, when non-zero, replaces the iterated S2K byte count
	// written for a passphrase (GnuPG's default, 65011712, costs tenths
	// of a second each time a passphrase is set or used).
	S2KCount int
	// Argon2, when non-nil, replaces the Argon2 cost written for a
	// passphrase (v6 SKESKs, v6 secret keys).
	Argon2 *s2k.Argon2Config
)

// Cheap sets the lowest costs go-crypto writes: 65536 bytes of iterated
// S2K (a thousandth of GnuPG's default), one Argon2 pass over 64 KiB. A
// passphrase test then spends well under a millisecond on what would
// otherwise take most of its time.
func Cheap() {
	S2KCount = 65536
	Argon2 = &s2k.Argon2Config{NumberOfPasses: 1, DegreeOfParallelism: 1, Memory: 64}
}

// Dial, when non-nil, replaces the dialer of the keyserver and WKD
// clients, so tests can send openpgpkey.example.org to a server on
// 127.0.0.1 without touching DNS.
var Dial func(ctx context.Context, network, addr string) (net.Conn, error)
