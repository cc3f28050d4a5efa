package packet

import (
	"errors"
	"io"

	"github.com/pgpstream/pgpstream/iobuf"
)

// SEIPD is the fixed head of a Symmetrically Encrypted and Integrity
// Protected Data packet (RFC 9580 §5.13). Version 1 is followed by CFB
// ciphertext ending in an MDC; version 2 by AEAD chunks.
type SEIPD struct {
	Version   byte
	Cipher    CipherAlgo // v2 only
	AEAD      AEADAlgo   // v2 only
	ChunkByte byte       // v2 only: chunk size is 2^(ChunkByte+6)
	Salt      [32]byte   // v2 only
	Offset    int64
}

// ReadSEIPD parses the fixed fields at the start of a SEIPD body and
// consumes them.
func ReadSEIPD(body iobuf.Reader, offset int64) (SEIPD, error) {
	s := SEIPD{Offset: offset}
	buf, err := body.Peek(1)
	if len(buf) < 1 {
		return s, shortField("SEIPD", offset, "the version octet", err)
	}
	s.Version = buf[0]
	switch s.Version {
	case 1:
		body.Consume(1)
		return s, nil
	case 2:
		buf, err = body.Peek(4 + 32)
		if len(buf) < 36 {
			return s, shortField("SEIPD", offset, "the version 2 fields (cipher, AEAD mode, chunk size, salt)", err)
		}
		s.Cipher, s.AEAD, s.ChunkByte = CipherAlgo(buf[1]), AEADAlgo(buf[2]), buf[3]
		copy(s.Salt[:], buf[4:36])
		body.Consume(36)
		return s, nil
	}
	return s, &UnsupportedError{"SEIPD", offset, "version " + itoa3(s.Version) + " (known: 1, 2)"}
}

func shortField(pkt string, offset int64, want string, err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		return &TruncatedError{pkt, offset, want}
	}
	return err
}

func itoa3(b byte) string {
	if b >= 100 {
		return string([]byte{'0' + b/100, '0' + b/10%10, '0' + b%10})
	}
	if b >= 10 {
		return string([]byte{'0' + b/10, '0' + b%10})
	}
	return string([]byte{'0' + b})
}
