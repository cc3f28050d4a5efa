package filter

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// The text filter gives what gpg 2.2's text_filter gives, whatever the
// read sizes and wherever a line is cut by the buffer.
func TestTextReader(t *testing.T) {
	long := strings.Repeat("x", 70<<10)
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"a", "a"},
		{"a\n", "a\r\n"},
		{"a\r\n", "a\r\n"},
		{"a\r\r\n\n", "a\r\n\r\n"},
		{"a \t\nb", "a \t\r\nb"},
		{"a\rb\n", "a\rb\r\n"},
		{"last\r\r", "last"},
		{"\r\n\r\n", "\r\n\r\n"},
		{long + "\r\r\n" + long, long + "\r\n" + long},
		{long + "\rz\n", long + "\rz\r\n"},
	} {
		for _, wrap := range []func(io.Reader) io.Reader{
			func(r io.Reader) io.Reader { return r },
			iotest.OneByteReader,
			iotest.HalfReader,
		} {
			got, err := io.ReadAll(wrap(NewTextReader(strings.NewReader(tc.in))))
			if err != nil || !bytes.Equal(got, []byte(tc.want)) {
				t.Errorf("%.20q: got %.40q, %v; want %.40q", tc.in, got, err, tc.want)
			}
		}
	}
}
