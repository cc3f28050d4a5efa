package agent

import (
	"bytes"
	"errors"
	"testing"
)

// canon builds a canonical S-expression from parts: strings starting
// with "(" or ")" are written as they are, others as atoms.
func canon(parts ...string) []byte {
	var b []byte
	for _, p := range parts {
		if p == "(" || p == ")" {
			b = append(b, p...)
			continue
		}
		b = AppendAtom(b, []byte(p))
	}
	return b
}

func TestParseTransferKey(t *testing.T) {
	salt, iv := "SALTsalt", "0123456789abcdef"
	transfer := canon("(", "openpgp-private-key", "(", "version", "4", ")", "(", "algo", "ecc", ")",
		"(", "curve", "Ed25519", ")", "(", "skey", "_", "\x40Q", "e", "ENCRYPTED", ")",
		"(", "protection", "sha1", "aes", iv, "3", "sha1", salt, "255", ")", ")")
	clear := canon("(", "private-key", "(", "rsa", "(", "n", "\x00N", ")", "(", "e", "E", ")",
		"(", "d", "D", ")", "(", "p", "P", ")", "(", "q", "Q", ")", "(", "u", "U", ")", ")", ")")
	for _, c := range []struct {
		name string
		in   []byte
		want func(*TransferKey) bool
		fail bool
	}{
		{"transfer", transfer, func(k *TransferKey) bool {
			return k.Algo == "ecc" && k.Curve == "Ed25519" && len(k.Public) == 1 && string(k.Public[0]) == "\x40Q" &&
				string(k.Protected) == "ENCRYPTED" && k.Secret == nil && k.Cipher == "aes" && string(k.IV) == iv &&
				k.S2KMode == 3 && k.S2KHash == "sha1" && string(k.Salt) == salt && k.S2KCount == 255
		}, false},
		{"clear", clear, func(k *TransferKey) bool {
			return k.Algo == "rsa" && len(k.Public) == 2 && len(k.Secret) == 4 && bytes.Equal(k.Secret[3], []byte("U")) && k.Protected == nil
		}, false},
		{"count not coded", bytes.Replace(transfer, []byte("3:255"), []byte("8:65011712"), 1), nil, true},
		{"v3 sum protection", bytes.Replace(transfer, []byte("4:sha13:aes"), []byte("3:sum3:aes"), 1), nil, true},
		{"no protected part", bytes.Replace(transfer, []byte("1:e9:ENCRYPTED"), nil, 1), nil, true},
		{"unknown algorithm", bytes.Replace(transfer, []byte("3:ecc"), []byte("5:ed448"), 1), nil, true},
		{"rsa without u", bytes.Replace(clear, []byte("(1:u1:U)"), nil, 1), nil, true},
		{"something else", canon("(", "public-key", ")"), nil, true},
	} {
		s, err := ParseSexp(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		k, err := ParseTransferKey(s)
		if c.fail {
			if !errors.Is(err, ErrUnsupportedKey) {
				t.Errorf("%s: %v, want ErrUnsupportedKey", c.name, err)
			}
			continue
		}
		if err != nil || !c.want(k) {
			t.Errorf("%s: %+v, %v", c.name, k, err)
		}
	}
}
