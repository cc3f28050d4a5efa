package filter

import (
	"crypto/cipher"
	"errors"
	"io"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// sedReader decrypts tag 9: CFB whose first bs+2 bytes (the prefix) are
// decrypted with a zero IV, after which the IV is resynchronised to the
// ciphertext bytes 2..bs+2 (RFC 9580 §5.7). There is nothing to verify.
type sedReader struct {
	src    iobuf.Reader
	stream cipher.Stream
	buf    []byte
	r, w   int
	err    error
}

func newSEDReader(src iobuf.Reader, c packet.CipherAlgo, key []byte) (*sedReader, error) {
	block, err := c.NewBlock(key)
	if err != nil {
		return nil, err
	}
	bs := block.BlockSize()
	pre, err := src.Peek(bs + 2)
	if len(pre) < bs+2 {
		if err == nil || errors.Is(err, io.EOF) {
			err = &packet.TruncatedError{Packet: "symmetrically encrypted data", Offset: -1, Want: "the encrypted prefix"}
		}
		return nil, err
	}
	prefix := make([]byte, bs+2)
	cipher.NewCFBDecrypter(block, make([]byte, bs)).XORKeyStream(prefix, pre[:bs+2])
	if prefix[bs-2] != prefix[bs] || prefix[bs-1] != prefix[bs+1] {
		return nil, ErrAuthentication
	}
	iv := append([]byte(nil), pre[2:bs+2]...)
	src.Consume(bs + 2)
	return &sedReader{src: src, stream: cipher.NewCFBDecrypter(block, iv), buf: make([]byte, iobuf.DefaultSize)}, nil
}

func (s *sedReader) Peek(n int) ([]byte, error) {
	for s.w-s.r < max(n, 1) && s.err == nil {
		if s.r > 0 {
			s.w = copy(s.buf, s.buf[s.r:s.w])
			s.r = 0
		}
		if n > len(s.buf) {
			return nil, iobuf.ErrPeekTooLarge
		}
		ct, err := s.src.Peek(1)
		k := min(len(ct), len(s.buf)-s.w)
		s.stream.XORKeyStream(s.buf[s.w:s.w+k], ct[:k])
		s.src.Consume(k)
		s.w += k
		if err != nil {
			s.err = err
		}
	}
	if s.w-s.r >= max(n, 1) {
		return s.buf[s.r:s.w], nil
	}
	return s.buf[s.r:s.w], s.err
}

func (s *sedReader) Consume(n int)              { s.r += n }
func (s *sedReader) Unconsume(n int) bool       { return false }
func (s *sedReader) Read(p []byte) (int, error) { return iobuf.ReadVia(s, p) }
