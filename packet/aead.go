package packet

import (
	"github.com/pgpstream/pgpstream/iobuf"
)

// MaxChunkByte is the largest chunk size octet an AEAD packet may carry:
// 2^(16+6) = 4 MiB chunks (RFC 9580 §5.13.2; LibrePGP's bound is larger,
// but nothing writes more and a reader must buffer a whole chunk before it
// may release any of it, so the bound is what keeps decryption's memory
// small whoever wrote the message).
const MaxChunkByte = 16

// ChunkSize is the plaintext size of an AEAD chunk for chunk size octet c.
func ChunkSize(c byte) int { return 1 << (int(c) + 6) }

// AEADData is the fixed head of a LibrePGP AEAD Encrypted Data packet
// (tag 20, draft-koch-librepgp §5.16, rfc4880bis-10 §5.16): version 1,
// cipher, AEAD mode, chunk size octet and the starting IV, followed by the
// chunks and the final tag.
type AEADData struct {
	Version   byte
	Cipher    CipherAlgo
	AEAD      AEADAlgo
	ChunkByte byte
	IV        []byte // the mode's nonce size
	Offset    int64
}

// ReadAEADData parses the fixed fields at the start of a tag 20 body and
// consumes them.
func ReadAEADData(body iobuf.Reader, offset int64) (AEADData, error) {
	a := AEADData{Offset: offset}
	const pkt = "AEAD encrypted data"
	buf, err := body.Peek(4)
	if len(buf) < 4 {
		return a, shortField(pkt, offset, "the version, cipher, AEAD mode and chunk size octets", err)
	}
	a.Version, a.Cipher, a.AEAD, a.ChunkByte = buf[0], CipherAlgo(buf[1]), AEADAlgo(buf[2]), buf[3]
	if a.Version != 1 {
		return a, &UnsupportedError{pkt, offset, "version " + itoa3(a.Version) + " (known: 1)"}
	}
	if a.Cipher.BlockSize() != 16 {
		return a, &UnsupportedError{pkt, offset, "cipher " + a.Cipher.String() + " (AEAD needs a 128-bit block cipher)"}
	}
	// LibrePGP defines EAX and OCB for this packet; GCM exists only in
	// RFC 9580's SEIPD v2.
	if a.AEAD != AEADEAX && a.AEAD != AEADOCB {
		return a, &UnsupportedError{pkt, offset, a.AEAD.String() + " (known: EAX, OCB)"}
	}
	if a.ChunkByte > MaxChunkByte {
		return a, &StructuralError{pkt, offset, "chunk size octet " + itoa3(a.ChunkByte) + " is above 16 (4 MiB chunks)"}
	}
	n := a.AEAD.NonceSize()
	buf, err = body.Peek(4 + n)
	if len(buf) < 4+n {
		return a, shortField(pkt, offset, "the IV", err)
	}
	a.IV = append([]byte(nil), buf[4:4+n]...)
	body.Consume(4 + n)
	return a, nil
}

// Append appends the fixed fields.
func (a AEADData) Append(dst []byte) []byte {
	dst = append(dst, a.Version, byte(a.Cipher), byte(a.AEAD), a.ChunkByte)
	return append(dst, a.IV...)
}

// AppendSEIPDv2 appends the fixed fields of a SEIPD v2 body (RFC 9580
// §5.13.2): version 2, cipher, AEAD mode, chunk size octet, 32-byte salt.
func AppendSEIPDv2(dst []byte, c CipherAlgo, mode AEADAlgo, chunkByte byte, salt *[32]byte) []byte {
	dst = append(dst, 2, byte(c), byte(mode), chunkByte)
	return append(dst, salt[:]...)
}
