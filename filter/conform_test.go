package filter

import (
	"bytes"
	"compress/flate"
	"io"
	"testing"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/iobuf/iobuftest"
	"github.com/pgpstream/pgpstream/packet"
)

// The stages of the decode chain, each held to the reader contract: the
// AEAD plaintext (pieces and gathered, sequential and pooled), the SEIPD v1
// plaintext, the decompressors.

func TestAEADReaderConforms(t *testing.T) {
	for _, c := range []aeadCase{{AEADv1, packet.AEADOCB}, {SEIPDv2, packet.AEADEAX}} {
		for _, threads := range []int{1, 2} {
			s := testSuite(t, c.format, c.mode, 10)
			iobuftest.Check(t, func(t *testing.T, src io.Reader) iobuf.Reader {
				r, err := newAEADReader(iobuf.NewReader(src, 0), s, threads)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { r.Close() })
				return r
			}, func(pt []byte) []byte { return sealRaw(t, s, pt, 1, 1<<20) })
		}
	}
}

func TestMDCReaderConforms(t *testing.T) {
	key := bytes.Repeat([]byte{9}, 16)
	iobuftest.Check(t, func(t *testing.T, src io.Reader) iobuf.Reader {
		br := iobuf.NewReader(src, 0)
		if b, err := br.Peek(1); err != nil || b[0] != 1 {
			t.Fatalf("SEIPD version: %v", err)
		}
		br.Consume(1)
		r, err := NewMDCReader(br, packet.CipherAES128, key)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}, func(pt []byte) []byte {
		var body bytes.Buffer
		w, err := NewMDCWriter(iobuf.NewWriter(&body, 0), packet.CipherAES128, key)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(pt)
		w.Close()
		return body.Bytes()
	})
}

func TestDecompressorConforms(t *testing.T) {
	for _, algo := range []packet.CompressionAlgo{packet.CompressNone, packet.CompressZIP} {
		iobuftest.Check(t, func(t *testing.T, src io.Reader) iobuf.Reader {
			d, err := NewDecompressor(iobuf.NewReader(src, 0), algo, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			return d
		}, func(pt []byte) []byte {
			if algo == packet.CompressNone {
				return pt
			}
			var b bytes.Buffer
			fw, _ := flate.NewWriter(&b, 6)
			fw.Write(pt)
			fw.Close()
			return b.Bytes()
		})
	}
}
