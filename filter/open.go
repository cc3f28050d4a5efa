package filter

import (
	"fmt"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// OpenSEIPDv2 returns the plaintext of a SEIPD v2 packet whose fixed
// fields s were just read from body, for callers that walk the packets
// themselves (the --list-packets listing). Every chunk is authenticated
// before it is released; Close stops the workers.
func OpenSEIPDv2(body iobuf.Reader, s packet.SEIPD, key []byte, threads int) (*AEADReader, error) {
	if err := checkChunkByte("SEIPD", s.Offset, s.ChunkByte); err != nil {
		return nil, err
	}
	if len(key) != s.Cipher.KeySize() {
		return nil, ErrAuthentication
	}
	suite, err := newSEIPDv2Suite(s.Cipher, s.AEAD, s.ChunkByte, s.Salt[:], key)
	if err != nil {
		return nil, err
	}
	return newAEADReader(body, suite, threads)
}

// OpenAEADData is OpenSEIPDv2 for LibrePGP's AEAD Encrypted Data packet
// (tag 20), whose fixed fields a were just read from body.
func OpenAEADData(body iobuf.Reader, a packet.AEADData, key []byte, threads int) (*AEADReader, error) {
	if err := checkChunkByte("AEAD encrypted data", a.Offset, a.ChunkByte); err != nil {
		return nil, err
	}
	if len(key) != a.Cipher.KeySize() {
		return nil, ErrAuthentication
	}
	if a.AEAD.NonceSize() == 0 {
		return nil, &packet.UnsupportedError{Packet: "AEAD encrypted data", Offset: a.Offset, What: fmt.Sprint(a.AEAD)}
	}
	return newAEADReader(body, newAEADDataSuite(a, key), threads)
}
