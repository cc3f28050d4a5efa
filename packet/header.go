package packet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/pgpstream/pgpstream/iobuf"
)

// LengthKind says how a packet's body length is given (RFC 9580 §4.2).
type LengthKind uint8

const (
	Definite      LengthKind = iota // the body is exactly Length bytes
	Partial                         // a first segment of Length bytes, more segments follow
	Indeterminate                   // old format, length type 3: the body runs to the end of the input
)

// Header is a parsed packet header.
type Header struct {
	Tag       Tag
	NewFormat bool
	Kind      LengthKind
	Length    int64 // body length, or the first segment's length when Kind is Partial
	Offset    int64 // offset of the header's first byte, for error messages
	Size      int   // header length in bytes
}

// ParseHeader parses a packet header from the start of buf. It returns
// needMore > 0 when buf is too short to tell.
func ParseHeader(buf []byte, offset int64) (h Header, needMore int, err error) {
	if len(buf) < 1 {
		return h, 1, nil
	}
	b := buf[0]
	h.Offset = offset
	if b&0x80 == 0 {
		// gpg's words for it, which GnuPG's tests look for, then ours.
		return h, 0, &StructuralError{"packet header", offset, "invalid packet (ctb=" + hex2(b) + "): bit 7 of the first octet is clear: not OpenPGP binary data"}
	}
	if b&0x40 != 0 {
		h.NewFormat = true
		h.Tag = Tag(b & 0x3f)
		l, size, kind, need := parseNewLength(buf[1:])
		if need > 0 {
			return h, need + 1, nil
		}
		h.Length, h.Kind, h.Size = l, kind, 1+size
	} else {
		h.Tag = Tag((b >> 2) & 0x0f)
		switch b & 3 {
		case 0, 1, 2:
			n := 1 << (b & 3)
			if len(buf) < 1+n {
				return h, 1 + n, nil
			}
			switch n {
			case 1:
				h.Length = int64(buf[1])
			case 2:
				h.Length = int64(binary.BigEndian.Uint16(buf[1:]))
			case 4:
				h.Length = int64(binary.BigEndian.Uint32(buf[1:]))
			}
			h.Size = 1 + n
		case 3:
			h.Kind, h.Size = Indeterminate, 1
		}
	}
	if h.Tag == 0 {
		return h, 0, &StructuralError{"packet header", offset, "packet tag 0 is reserved"}
	}
	if h.Kind == Partial && !h.Tag.allowsPartial() {
		return h, 0, &StructuralError{h.Tag.String(), offset, "partial body length on a packet that must have a definite length"}
	}
	return h, 0, nil
}

// parseNewLength decodes new-format length octets (RFC 9580 §4.2.1).
func parseNewLength(buf []byte) (length int64, size int, kind LengthKind, needMore int) {
	if len(buf) < 1 {
		return 0, 0, 0, 1
	}
	o := buf[0]
	switch {
	case o < 192:
		return int64(o), 1, Definite, 0
	case o < 224:
		if len(buf) < 2 {
			return 0, 0, 0, 2
		}
		return (int64(o)-192)<<8 + int64(buf[1]) + 192, 2, Definite, 0
	case o < 255:
		return 1 << (o & 0x1f), 1, Partial, 0
	default:
		if len(buf) < 5 {
			return 0, 0, 0, 5
		}
		return int64(binary.BigEndian.Uint32(buf[1:])), 5, Definite, 0
	}
}

func hex2(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&15]})
}

// offsetter is implemented by readers that know how far they are into
// their stream; errors use it to say where something went wrong.
type offsetter interface{ Offset() int64 }

func offsetOf(r iobuf.Reader) int64 {
	if o, ok := r.(offsetter); ok {
		return o.Offset()
	}
	return -1
}

// ReadHeader parses the next packet header from r and consumes it. At a
// clean end of input it returns io.EOF.
func ReadHeader(r iobuf.Reader) (Header, error) {
	off := offsetOf(r)
	need := 1
	for {
		buf, err := r.Peek(need)
		h, more, perr := ParseHeader(buf, off)
		if perr != nil {
			return h, perr
		}
		if more == 0 {
			r.Consume(h.Size)
			return h, nil
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(buf) == 0 {
				return h, io.EOF
			}
			if errors.Is(err, io.EOF) {
				return h, &TruncatedError{"packet header", off, "the rest of a packet header"}
			}
			return h, err
		}
		need = more
	}
}

// AppendHeader appends a new-format header for a body of length n.
func AppendHeader(dst []byte, tag Tag, n int64) []byte {
	dst = append(dst, 0xc0|byte(tag))
	return AppendLength(dst, n)
}

// AppendOldHeader appends an old-format header (RFC 9580 section
// 4.2.2) for a body of length n, with the shortest length type that
// holds n, as gpg 2.2 writes key packets. Tags above 15 have no
// old-format header and get a new-format one.
func AppendOldHeader(dst []byte, tag Tag, n int64) []byte {
	if tag > 15 {
		return AppendHeader(dst, tag, n)
	}
	ctb := 0x80 | byte(tag)<<2
	switch {
	case n < 1<<8:
		return append(dst, ctb, byte(n))
	case n < 1<<16:
		return append(dst, ctb|1, byte(n>>8), byte(n))
	default:
		return append(dst, ctb|2, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
}

// AppendLength appends new-format definite length octets for n.
func AppendLength(dst []byte, n int64) []byte {
	switch {
	case n < 192:
		return append(dst, byte(n))
	case n < 8384:
		n -= 192
		return append(dst, byte(n>>8)+192, byte(n))
	default:
		return append(dst, 255, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
}

// AppendPartialLength appends the partial body length octet of a
// segment of n bytes (RFC 9580 §4.2.1.4), n a power of two up to 2^30.
func AppendPartialLength(dst []byte, n int) []byte {
	if n <= 0 || n > 1<<30 || n&(n-1) != 0 {
		panic("packet: a partial length is a power of two up to 2^30")
	}
	return append(dst, 224+byte(bits.TrailingZeros(uint(n))))
}

// SplitPacket frames the packet at the start of buf when buf holds the
// whole packet, as key files and certificates do: it returns the header,
// the body (a slice of buf) and what follows. An old-format packet of
// indeterminate length runs to the end of buf. A partial body length is
// refused: only streamed data packets use it, and they are read through
// a Body, not whole. Offset is buf's offset in its input, for errors.
func SplitPacket(buf []byte, offset int64) (h Header, body, rest []byte, err error) {
	h, more, err := ParseHeader(buf, offset)
	if err != nil {
		return h, nil, nil, err
	}
	if more > 0 {
		return h, nil, nil, &TruncatedError{"packet header", offset, "the rest of a packet header"}
	}
	buf = buf[h.Size:]
	switch h.Kind {
	case Indeterminate:
		return h, buf[:len(buf):len(buf)], nil, nil
	case Partial:
		return h, nil, nil, &StructuralError{h.Tag.String(), offset, "partial body length where a whole packet was expected"}
	}
	if h.Length > int64(len(buf)) {
		return h, nil, nil, &TruncatedError{h.Tag.String(), offset, fmt.Sprintf("%d bytes of body (%d left)", h.Length, len(buf))}
	}
	n := int(h.Length)
	return h, buf[:n:n], buf[n:], nil
}

// AppendPacket appends body as one packet with a new-format header.
func AppendPacket(dst []byte, tag Tag, body []byte) []byte {
	dst = AppendHeader(dst, tag, int64(len(body)))
	return append(dst, body...)
}
