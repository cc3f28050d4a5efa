package keyring

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// What a key server or a Web Key Directory answers may hold any key: a
// request names one, and only what it names is imported, so that a
// server cannot plant others. The choice is made here, on the packets
// the import reads anyway, rather than on a second parse (and a
// re-encoding) of the served data.

// ErrNotServed is returned (wrapped) when served key data holds no key
// that the request named.
var ErrNotServed = errors.New("the key served is not the one asked for")

// servedFilter keeps, of blocks, the public keys that opt.Named names, or
// those with a user ID whose address is opt.Address, with only those user
// IDs. Secret keys are never taken from a server.
func servedFilter(blocks []*block, opt ImportOptions) ([]*block, error) {
	var kept []*block
	for _, b := range blocks {
		if b.secret() {
			continue
		}
		if opt.Named != "" {
			if namesKey(b, opt.Named) {
				kept = append(kept, b)
			}
			continue
		}
		if b = withAddress(b, opt.Address); len(b.uids) > 0 {
			kept = append(kept, b)
		}
	}
	switch {
	case len(kept) > 0:
		return kept, nil
	case opt.Named != "":
		return nil, notServed("keyring: the server answered for key " + opt.Named + " with another key")
	default:
		return nil, notServed("keyring: the key served for " + opt.Address + " has no user ID with that address")
	}
}

// notServed is ErrNotServed said of one request.
type notServed string

func (e notServed) Error() string        { return string(e) }
func (e notServed) Is(target error) bool { return target == ErrNotServed }

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

// withAddress is b with only its user IDs whose address (go-crypto's
// reading of the user ID, compared in ASCII lower case) is email; user
// attributes go too.
func withAddress(b *block, email string) *block {
	out := *b
	out.uids = nil
	for _, u := range b.uids {
		if u.pkt.tag != tagUserID {
			continue
		}
		var raw bytes.Buffer
		u.pkt.writeTo(&raw)
		p, err := packet.Read(&raw)
		if id, ok := p.(*packet.UserId); err == nil && ok && asciiLower(id.Email) == email {
			out.uids = append(out.uids, u)
		}
	}
	return &out
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
