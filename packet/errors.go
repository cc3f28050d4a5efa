// Package packet reads and writes OpenPGP packets (RFC 9580 §4-5): the
// framing (headers, definite, partial and indeterminate lengths) in
// header.go, body.go and partial.go, and one file per packet kind for the
// bodies. It parses from peeked bytes of an iobuf.Reader and never reads a
// byte at a time.
package packet

import (
	"errors"
	"fmt"
)

// StructuralError reports input that does not have the shape OpenPGP
// requires: which packet, at which offset, and what was expected.
type StructuralError struct {
	Packet string // e.g. "SEIPD", "literal data", "packet header"
	Offset int64  // byte offset in the stream the packet was read from
	Msg    string
}

func (e *StructuralError) Error() string {
	return where(e.Packet, e.Offset) + e.Msg
}

// where names a packet and, when known, its offset.
func where(pkt string, off int64) string {
	if off < 0 {
		return pkt + ": "
	}
	return fmt.Sprintf("%s packet at offset %d: ", pkt, off)
}

// UnsupportedError reports a well-formed packet that uses something
// pgpstream does not implement: an unknown version or algorithm id.
type UnsupportedError struct {
	Packet string
	Offset int64
	What   string
}

func (e *UnsupportedError) Error() string {
	return where(e.Packet, e.Offset) + "unsupported " + e.What
}

// ErrTruncated is wrapped by errors for input that ends where a packet,
// a length or a body needs more bytes.
var ErrTruncated = errors.New("truncated input")

// TruncatedError wraps ErrTruncated with where the data ran out.
type TruncatedError struct {
	Packet string
	Offset int64
	Want   string
}

func (e *TruncatedError) Error() string {
	return where(e.Packet, e.Offset) + "truncated: input ended where " + e.Want + " was expected"
}

func (e *TruncatedError) Unwrap() error { return ErrTruncated }
