package packet

import (
	"encoding/binary"
	"fmt"
)

// OnePassSignature announces a signature that follows the signed data
// (RFC 9580 §5.4), so a reader can start the right hash before the data
// arrives. The signatures come after the literal data in the reverse order
// of their one-pass packets.
type OnePassSignature struct {
	Version     int // 3 (for v4 signatures) or 6
	SigType     byte
	Hash        HashAlgo
	PubKeyAlgo  uint8
	KeyID       uint64 // version 3
	Salt        []byte // version 6: the salt the signature's hash starts with
	Fingerprint []byte // version 6: the signing key's fingerprint
	// Last is the "nested" octet: set when the next packet is not
	// another one-pass signature that this one also covers. Every
	// implementation in use treats all one-pass signatures as covering
	// only the literal data; so does pgpstream.
	Last bool
	// Nested is that octet as written (gpg lists it); Last is Nested != 0.
	Nested byte
}

// ParseOnePassSignature parses a one-pass signature packet body. When
// every field could be read but the body breaks a rule pgpstream holds
// it to (trailing octets, a v6 salt whose length does not fit the hash),
// it returns the filled OnePassSignature with a *StructuralError, for a
// reader that only describes the packet (package inspect); a truncated
// body or an unknown version gives nil.
func ParseOnePassSignature(b []byte, offset int64) (*OnePassSignature, error) {
	short := &TruncatedError{"one-pass signature", offset, "the rest of the one-pass signature"}
	if len(b) < 1 {
		return nil, short
	}
	o := &OnePassSignature{Version: int(b[0])}
	var end int
	switch o.Version {
	case 3:
		if len(b) < 13 {
			return nil, short
		}
		o.SigType, o.Hash, o.PubKeyAlgo = b[1], HashAlgo(b[2]), b[3]
		o.KeyID = binary.BigEndian.Uint64(b[4:])
		end = 13
	case 6:
		// type, hash, algorithm, salt length, salt, fingerprint, nested
		if len(b) < 5 {
			return nil, short
		}
		if len(b) < 5+int(b[4])+32+1 {
			if int(b[4]) != HashAlgo(b[2]).SaltSize() {
				return nil, &StructuralError{"one-pass signature", offset, fmt.Sprintf("salt of %d bytes does not fit %v", b[4], HashAlgo(b[2]))}
			}
			return nil, short
		}
		o.SigType, o.Hash, o.PubKeyAlgo = b[1], HashAlgo(b[2]), b[3]
		n := int(b[4])
		o.Salt = b[5 : 5+n]
		o.Fingerprint = b[5+n : 5+n+32]
		o.KeyID = KeyIDOf(o.Fingerprint)
		end = 5 + n + 32 + 1
	default:
		return nil, &UnsupportedError{"one-pass signature", offset, fmt.Sprintf("one-pass signature version %d", o.Version)}
	}
	o.Nested = b[end-1]
	o.Last = o.Nested != 0
	if o.Version == 6 && len(o.Salt) != o.Hash.SaltSize() {
		return o, &StructuralError{"one-pass signature", offset, fmt.Sprintf("salt of %d bytes does not fit %v", len(o.Salt), o.Hash)}
	}
	if len(b) != end {
		msg := "v6 body has trailing bytes"
		if o.Version == 3 {
			msg = "v3 body is not 13 bytes"
		}
		return o, &StructuralError{"one-pass signature", offset, msg}
	}
	return o, nil
}

// Append appends the packet body's encoding to dst.
func (o *OnePassSignature) Append(dst []byte) []byte {
	dst = append(dst, byte(o.Version), o.SigType, byte(o.Hash), o.PubKeyAlgo)
	if o.Version == 6 {
		dst = append(dst, byte(len(o.Salt)))
		dst = append(dst, o.Salt...)
		dst = append(dst, o.Fingerprint...)
	} else {
		dst = binary.BigEndian.AppendUint64(dst, o.KeyID)
	}
	last := byte(0)
	if o.Last {
		last = 1
	}
	return append(dst, last)
}
