package agent

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"hash"

	"github.com/ProtonMail/go-crypto/openpgp/aes/keywrap"
)

// ECDHSessionKey finishes the decryption of an ECDH PKESK (RFC 6637 §8)
// from the shared point gpg-agent's PKDECRYPT returned: it derives the
// key-wrapping key from the point's x coordinate and the recipient key's
// KDF parameters, and unwraps the session key. keyBody is the body of the
// recipient's (sub)key packet, v4, fingerprint its fingerprint. It
// returns the cipher algorithm octet, the session key and its two-octet
// checksum, as an RSA PKESK holds them.
func ECDHSessionKey(keyBody, fingerprint, shared, wrapped []byte) ([]byte, error) {
	if len(keyBody) < 7 || keyBody[0] != 4 || keyBody[5] != 18 {
		return nil, errors.New("ecdh: not a v4 ECDH key packet")
	}
	f := keyBody[6:]
	oidLen := int(f[0])
	if oidLen == 0 || oidLen == 0xff || len(f) < 1+oidLen+2 {
		return nil, errors.New("ecdh: bad curve OID")
	}
	oid := f[:1+oidLen]
	rest := f[1+oidLen:]
	qLen := (int(rest[0])<<8 | int(rest[1]) + 7) / 8
	if len(rest) < 2+qLen+4 {
		return nil, errors.New("ecdh: truncated key")
	}
	kdf := rest[2+qLen:]
	if kdf[0] < 3 || kdf[1] != 1 {
		return nil, errors.New("ecdh: unknown KDF parameters")
	}
	var h hash.Hash
	switch kdf[2] {
	case 8:
		h = sha256.New()
	case 9:
		h = sha512.New384()
	case 10:
		h = sha512.New()
	default:
		return nil, fmt.Errorf("ecdh: KDF hash %d", kdf[2])
	}
	keySize := map[byte]int{7: 16, 8: 24, 9: 32}[kdf[3]]
	if keySize == 0 {
		return nil, fmt.Errorf("ecdh: key-wrapping cipher %d", kdf[3])
	}
	// The x coordinate: Curve25519's point is 0x40||x, a NIST point
	// 04||x||y.
	var x []byte
	switch {
	case len(shared) == 33 && shared[0] == 0x40:
		x = shared[1:]
	case len(shared)%2 == 1 && shared[0] == 0x04:
		x = shared[1 : 1+len(shared)/2]
	default:
		return nil, fmt.Errorf("ecdh: shared point of %d bytes", len(shared))
	}
	param := bytes.Clone(oid)
	param = append(param, 18, 3, 1, kdf[2], kdf[3])
	param = append(param, "Anonymous Sender    "...)
	param = append(param, fingerprint...)
	h.Write([]byte{0, 0, 0, 1})
	h.Write(x)
	h.Write(param)
	m, err := keywrap.Unwrap(h.Sum(nil)[:keySize], wrapped)
	if err != nil {
		return nil, fmt.Errorf("ecdh: %w", err)
	}
	// m is the session key block and PKCS#5 padding.
	if len(m) == 0 || int(m[len(m)-1]) > len(m) || m[len(m)-1] == 0 {
		return nil, errors.New("ecdh: bad padding")
	}
	return m[:len(m)-int(m[len(m)-1])], nil
}
