package filter

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"testing/iotest"

	"github.com/pgpstream/pgpstream/packet"
)

// collect is an ownedWriter that copies what it is lent and releases it
// at once.
type collect struct{ bytes.Buffer }

func (c *collect) WriteOwned(p []byte, release func()) error {
	c.Write(p)
	release()
	return nil
}

// TestLiteralAheadFraming: the read-ahead path frames the literal packet
// byte for byte as packet.PartialWriter does, around every chunk boundary
// and with the input arriving in odd pieces.
func TestLiteralAheadFraming(t *testing.T) {
	const chunk = 512
	header := packet.Literal{Format: 'b', FileName: "f"}.Append(nil)
	for _, size := range []int{0, 1, chunk - len(header) - 1, chunk - len(header), chunk - len(header) + 1, chunk, 2*chunk - len(header), 3*chunk + 17, 10000} {
		for _, half := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/half=%v", size, half), func(t *testing.T) {
				data := payload(size)
				var want bytes.Buffer
				pw := packet.NewPartialWriter(&want, packet.TagLiteral, chunk)
				pw.Write(header)
				pw.ReadFrom(bytes.NewReader(data))
				pw.Close()

				var got collect
				in := bytes.NewReader(data)
				var n int64
				var err error
				if half {
					n, err = writeLiteralAhead(iotest.HalfReader(in), &got, header, chunk)
				} else {
					n, err = writeLiteralAhead(in, &got, header, chunk)
				}
				if err != nil || n != int64(size) {
					t.Fatalf("read %d, %v", n, err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Fatalf("framing differs:\n got %x\nwant %x", head(got.Bytes()), head(want.Bytes()))
				}
			})
		}
	}
}

func head(b []byte) []byte { return b[:min(len(b), 40)] }

func TestLiteralAheadReadError(t *testing.T) {
	in := iotest.TimeoutReader(bytes.NewReader(payload(5000)))
	var got collect
	_, err := writeLiteralAhead(in, &got, nil, 512)
	var re readError
	if !errors.As(err, &re) {
		t.Fatalf("got %v, want a read error", err)
	}
}
