package packet

import (
	"io"
	"math/bits"
	"testing"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/iobuf/iobuftest"
)

// TestBodyConforms holds a packet body to the reader contract, framed in
// partial lengths of 1 byte to 8 KiB (any segment may end anywhere in a
// consumer's Peek) and in one definite length.
func TestBodyConforms(t *testing.T) {
	for _, seg := range []int{0, 1, 16, 512, 8192} {
		iobuftest.Check(t, func(t *testing.T, src io.Reader) iobuf.Reader {
			r := iobuf.NewReader(src, 0)
			h, err := ReadHeader(r)
			if err != nil {
				t.Fatal(err)
			}
			return NewBody(r, h)
		}, func(body []byte) []byte {
			out := []byte{0xc0 | byte(TagLiteral)}
			for seg > 0 && len(body) > seg {
				out = append(out, 224+byte(bits.TrailingZeros(uint(seg))))
				out = append(out, body[:seg]...)
				body = body[seg:]
			}
			out = AppendLength(out, int64(len(body)))
			return append(out, body...)
		})
	}
}
