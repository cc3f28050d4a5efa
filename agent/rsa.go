package agent

import (
	"crypto"
	"errors"
)

// hashIDs maps crypto hashes to OpenPGP's (and libgcrypt's) numbers.
var hashIDs = map[crypto.Hash]int{crypto.SHA1: 2, crypto.SHA224: 11, crypto.SHA256: 8, crypto.SHA384: 9, crypto.SHA512: 10}

// pkcs1Message returns the message inside the PKCS#1 v1.5 encryption
// block PKDECRYPT gives for an RSA key. The agent gives the block as a
// number: 02 || nonzero padding || 00 || message, its leading zero byte
// dropped.
func pkcs1Message(v []byte) ([]byte, error) {
	if len(v) > 0 && v[0] == 0 {
		v = v[1:]
	}
	if len(v) < 10 || v[0] != 2 {
		return nil, errors.New("gpg-agent: PKDECRYPT result is not a PKCS#1 v1.5 block")
	}
	i := 1
	for i < len(v) && v[i] != 0 {
		i++
	}
	if i < 9 || i == len(v) {
		return nil, errors.New("gpg-agent: PKDECRYPT result is not a PKCS#1 v1.5 block")
	}
	return v[i+1:], nil
}
