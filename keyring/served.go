package keyring

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// What a key server or a Web Key Directory answers may hold any key: a
// request names one, and only what it names is imported, so that a
// server cannot plant others. The choice is made here, on the packets
// the import reads anyway, rather than on a second parse (and a
// re-encoding) of the served data.
//
// (A Web Key Directory's answer is filtered by address in keyserver,
// which also drops the user IDs with other addresses.)

// ErrNotServed is returned (wrapped) when served key data holds no key
// that the request named.
var ErrNotServed = errors.New("the server answered with another key")

// servedFilter keeps, of blocks, the public keys that opt.Named names.
func servedFilter(blocks []*block, opt ImportOptions) ([]*block, error) {
	var kept []*block
	for _, b := range blocks {
		if !b.secret() && namesKey(b, opt.Named) {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("keyring: key %s: %w", opt.Named, ErrNotServed)
	}
	return kept, nil
}

// namesKey reports whether the primary key or a subkey of b has a
// fingerprint ending in want (hex digits, upper case: a key ID or a whole
// fingerprint).
func namesKey(b *block, want string) bool {
	for _, c := range append([]component{b.primary}, b.subs...) {
		fp, err := fingerprintOf(c.pkt)
		if err == nil && strings.HasSuffix(strings.ToUpper(hex.EncodeToString(fp)), want) {
			return true
		}
	}
	return false
}
