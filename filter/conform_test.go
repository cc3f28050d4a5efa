package filter

import (
	"bytes"
	"compress/flate"
	"crypto/cipher"
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

// The limit on decompressed output, when the stream stays under it.
func TestLimitReaderConforms(t *testing.T) {
	iobuftest.Check(t, func(t *testing.T, src io.Reader) iobuf.Reader {
		d, err := NewDecompressor(iobuf.NewReader(src, 0), packet.CompressZIP, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := d.(*limitReader); !ok {
			t.Fatalf("a limit gave a %T", d)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}, func(pt []byte) []byte {
		var b bytes.Buffer
		fw, _ := flate.NewWriter(&b, 6)
		fw.Write(pt)
		fw.Close()
		return b.Bytes()
	})
}

// The tag 9 plaintext: CFB with a zero IV over the prefix, resynchronised
// after it (RFC 9580 §5.7), made here as a writer of such data would.
func TestSEDReaderConforms(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 16)
	block, err := packet.CipherAES128.NewBlock(key)
	if err != nil {
		t.Fatal(err)
	}
	bs := block.BlockSize()
	iobuftest.Check(t, func(t *testing.T, src io.Reader) iobuf.Reader {
		r, err := newSEDReader(iobuf.NewReader(src, 0), packet.CipherAES128, key)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}, func(pt []byte) []byte {
		prefix := make([]byte, bs+2)
		for i := range bs {
			prefix[i] = byte(i * 31)
		}
		prefix[bs], prefix[bs+1] = prefix[bs-2], prefix[bs-1]
		ct := make([]byte, bs+2+len(pt))
		cipher.NewCFBEncrypter(block, make([]byte, bs)).XORKeyStream(ct[:bs+2], prefix)
		cipher.NewCFBEncrypter(block, ct[2:bs+2]).XORKeyStream(ct[bs+2:], pt)
		return ct
	})
}
