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
//
// Like MDCReader it fills its buffer (an iobuf.Stage holding nothing back)
// from whatever the body offers before it hands out a round. Copies per
// byte: one, the decryption into that buffer.
type sedReader struct {
	src    iobuf.Reader
	stream cipher.Stream
	st     *iobuf.Stage
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
	return &sedReader{src: src, stream: cipher.NewCFBDecrypter(block, iv), st: iobuf.NewStage(iobuf.DefaultSize, 0)}, nil
}

func (s *sedReader) Peek(n int) ([]byte, error) {
	if n > iobuf.MaxPeek {
		return nil, iobuf.ErrPeekTooLarge
	}
	for len(s.st.Ready()) < n && s.err == nil {
		s.fill(n)
	}
	if r := s.st.Ready(); len(r) >= n && (len(r) > 0 || s.err == nil) {
		return r, nil
	}
	return s.st.Ready(), s.err
}

// fill decrypts until the buffer is full (with at least n bytes ready) or
// the body ends.
func (s *sedReader) fill(n int) {
	for {
		dst := s.st.Space(n)
		if len(dst) == 0 {
			return
		}
		ct, err := s.src.Peek(1)
		k := min(len(ct), len(dst))
		s.stream.XORKeyStream(dst[:k], ct[:k])
		s.src.Consume(k)
		s.st.Produce(k)
		if k < len(ct) {
			continue
		}
		if err != nil {
			s.err = err
			s.st.End()
			return
		}
	}
}

func (s *sedReader) Consume(n int)              { s.st.Consume(n) }
func (s *sedReader) Read(p []byte) (int, error) { return iobuf.ReadVia(s, p) }
