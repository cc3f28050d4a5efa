package packet

import (
	"encoding/binary"
	"errors"
	"io"
	"time"

	"github.com/pgpstream/pgpstream/iobuf"
)

// Literal is the header of a Literal Data packet (RFC 9580 §5.9); the
// data follows it in the same body.
type Literal struct {
	Format   byte // 'b' binary, 't' text, 'u' UTF-8, 'm' MIME
	FileName string
	Time     time.Time // zero when the sender wrote 0
	// Length is the number of data octets when the packet has a
	// definite length (gpg's PLAINTEXT_LENGTH), -1 when it does not.
	Length int64
}

// ReadLiteral parses a literal header from the start of body and consumes
// it, leaving body at the first data byte.
func ReadLiteral(body iobuf.Reader, offset int64) (Literal, error) {
	var l Literal
	buf, err := body.Peek(2)
	if len(buf) < 2 {
		return l, literalShort(err, offset)
	}
	n := int(buf[1])
	buf, err = body.Peek(2 + n + 4)
	if len(buf) < 2+n+4 {
		return l, literalShort(err, offset)
	}
	l.Format = buf[0]
	switch l.Format {
	case 'b', 't', 'u', 'm', 'l', '1':
	default:
		return l, &StructuralError{"literal data", offset, "unknown data format octet 0x" + hex2(l.Format)}
	}
	l.FileName = string(buf[2 : 2+n])
	if ts := binary.BigEndian.Uint32(buf[2+n:]); ts != 0 {
		l.Time = time.Unix(int64(ts), 0)
	}
	body.Consume(2 + n + 4)
	return l, nil
}

func literalShort(err error, offset int64) error {
	if err == nil || errors.Is(err, io.EOF) {
		return &TruncatedError{"literal data", offset, "the literal data header"}
	}
	return err
}

// Append appends the literal header's encoding to dst.
func (l Literal) Append(dst []byte) []byte {
	name := l.FileName
	if len(name) > 255 {
		name = name[len(name)-255:]
	}
	f := l.Format
	if f == 0 {
		f = 'b'
	}
	dst = append(dst, f, byte(len(name)))
	dst = append(dst, name...)
	var ts uint32
	if !l.Time.IsZero() {
		ts = uint32(l.Time.Unix())
	}
	return binary.BigEndian.AppendUint32(dst, ts)
}
