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
}

// ParseOnePassSignature parses a one-pass signature packet body.
func ParseOnePassSignature(b []byte, offset int64) (*OnePassSignature, error) {
	short := &TruncatedError{"one-pass signature", offset, "the rest of the one-pass signature"}
	if len(b) < 1 {
		return nil, short
	}
	o := &OnePassSignature{Version: int(b[0])}
	switch o.Version {
	case 3:
		if len(b) != 13 {
			if len(b) < 13 {
				return nil, short
			}
			return nil, &StructuralError{"one-pass signature", offset, "v3 body is not 13 bytes"}
		}
		o.SigType, o.Hash, o.PubKeyAlgo = b[1], HashAlgo(b[2]), b[3]
		o.KeyID = binary.BigEndian.Uint64(b[4:])
		o.Last = b[12] != 0
		return o, nil
	case 6:
		if len(b) < 5 {
			return nil, short
		}
		o.SigType, o.Hash, o.PubKeyAlgo = b[1], HashAlgo(b[2]), b[3]
		n := int(b[4])
		if n != o.Hash.SaltSize() {
			return nil, &StructuralError{"one-pass signature", offset, fmt.Sprintf("salt of %d bytes does not fit %v", n, o.Hash)}
		}
		if len(b) != 5+n+32+1 {
			if len(b) < 5+n+32+1 {
				return nil, short
			}
			return nil, &StructuralError{"one-pass signature", offset, "v6 body has trailing bytes"}
		}
		o.Salt = b[5 : 5+n]
		o.Fingerprint = b[5+n : 5+n+32]
		o.KeyID = KeyIDOf(o.Fingerprint)
		o.Last = b[5+n+32] != 0
		return o, nil
	}
	return nil, &UnsupportedError{"one-pass signature", offset, fmt.Sprintf("one-pass signature version %d", o.Version)}
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
