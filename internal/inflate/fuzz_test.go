package inflate

import (
	"bytes"
	"testing"
)

// FuzzInflate: on any input, this decoder and compress/flate (or
// compress/zlib) agree on success, and on the output when they succeed;
// read in small input chunks, so stretch ends fall everywhere.
func FuzzInflate(f *testing.F) {
	for _, p := range [][]byte{nil, []byte("hello, hello, hello"), bytes.Repeat([]byte("abcdefgh"), 300)} {
		for _, level := range levels {
			f.Add(deflate(f, p, level), false, uint8(0))
			f.Add(zlibBytes(f, p, level), true, uint8(3))
		}
	}
	f.Fuzz(func(t *testing.T, c []byte, isZlib bool, chunk uint8) {
		format := Raw
		if isZlib {
			format = Zlib
		}
		want, werr := reference(c, format)
		got, err := inflateAll(c, format, int(chunk), 0)
		if (err == nil) != (werr == nil) {
			t.Fatalf("got error %v, stdlib %v", err, werr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("output differs: %d bytes, stdlib %d", len(got), len(want))
		}
	})
}
