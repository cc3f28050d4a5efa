package iobuf_test

import (
	"io"
	"testing"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/iobuf/iobuftest"
)

func TestBufferedConforms(t *testing.T) {
	for _, size := range []int{16, 4096, 0} {
		iobuftest.Check(t, func(t *testing.T, src io.Reader) iobuf.Reader { return iobuf.NewReader(src, size) }, nil)
	}
}

func TestAheadConforms(t *testing.T) {
	iobuftest.Check(t, func(t *testing.T, src io.Reader) iobuf.Reader {
		a := iobuf.NewAhead(src)
		t.Cleanup(func() { a.Close() })
		return a
	}, nil)
}
