package filter

import (
	"errors"
	"io"

	"github.com/pgpstream/pgpstream/internal/chunk"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// The chunked AEAD packets, RFC 9580's SEIPD v2 (tag 18, version 2) and
// LibrePGP's AEAD Encrypted Data (tag 20, version 1), are sealed and opened
// by the chunk engine (internal/chunk); this file is the stage around it:
// the reader of the plaintext, and the suites made from a packet's fields.

// aeadSuite is what every chunk of one packet depends on.
type aeadSuite = chunk.Suite

func checkChunkByte(pkt string, off int64, c byte) error {
	if c > packet.MaxChunkByte {
		return &packet.StructuralError{Packet: pkt, Offset: off, Msg: "chunk size octet above 16 (4 MiB chunks)"}
	}
	return nil
}

// newSEIPDv2Suite derives the message key and IV of a SEIPD v2 packet.
func newSEIPDv2Suite(c packet.CipherAlgo, mode packet.AEADAlgo, chunkByte byte, salt []byte, sessionKey []byte) (*aeadSuite, error) {
	return chunk.NewSEIPDv2(newAEAD, c, mode, chunkByte, salt, sessionKey)
}

// newAEADDataSuite sets up a tag 20 packet.
func newAEADDataSuite(a packet.AEADData, sessionKey []byte) *aeadSuite {
	return chunk.NewAEADData(newAEAD, a, sessionKey)
}

// AEADReader is an iobuf.Reader of the plaintext of a chunked AEAD packet
// body. It releases a chunk only after its tag has verified, and reports
// io.EOF only after the final tag has verified too: a stream cut at a
// chunk boundary, or with chunks dropped, reordered or repeated, ends in
// ErrAuthentication instead. Errors are sticky.
//
// Copies per byte, sequential path: one, the decryption from the body's
// buffer into this reader's plaintext buffer, when a chunk lies whole in
// the body's buffer; a chunk cut by a partial-length boundary is gathered
// into the plaintext buffer first and decrypted there in place. The
// consumer reads the plaintext in place. Parallel path: one memcpy of the
// ciphertext into a worker's slot, where it is decrypted in place.
type AEADReader struct {
	src chunk.Opener

	seg      []byte // the current run from src
	off      int    // how much of seg has been consumed
	carry    []byte // a Peek that straddled two runs, gathered here
	carryBuf []byte
	err      error
}

// Peek implements iobuf.Reader.
func (r *AEADReader) Peek(n int) ([]byte, error) {
	if n > iobuf.MaxPeek {
		return nil, iobuf.ErrPeekTooLarge
	}
	if n <= 0 {
		switch {
		case len(r.carry) > 0:
			return r.carry, nil
		case r.off < len(r.seg):
			return r.seg[r.off:], nil
		}
		return nil, r.err
	}
	for {
		switch {
		case len(r.carry) > 0:
			if len(r.carry) >= n {
				return r.carry, nil
			}
			if r.off < len(r.seg) {
				k := min(n-len(r.carry), len(r.seg)-r.off)
				r.carry = append(r.carry, r.seg[r.off:r.off+k]...)
				r.off += k
				continue
			}
		case len(r.seg)-r.off >= n:
			return r.seg[r.off:], nil
		case r.off < len(r.seg):
			// The request straddles two runs (a packet header across a
			// chunk boundary): gather it, copying at most n bytes.
			r.carry = append(r.carryBuf[:0], r.seg[r.off:]...)
			r.carryBuf = r.carry[:0]
			r.off = len(r.seg)
			continue
		}
		if r.err != nil {
			return r.carry, r.err
		}
		seg, err := r.src.Next()
		if errors.Is(err, chunk.ErrAuthentication) {
			err = ErrAuthentication
		}
		if err != nil {
			r.err = err
			return r.carry, err
		}
		r.seg, r.off = seg, 0
	}
}

// Consume implements iobuf.Reader.
func (r *AEADReader) Consume(n int) {
	if len(r.carry) > 0 {
		if n < 0 || n > len(r.carry) {
			panic("filter: Consume beyond the peeked plaintext")
		}
		r.carry = r.carry[n:]
		return
	}
	if n < 0 || n > len(r.seg)-r.off {
		panic("filter: Consume beyond the peeked plaintext")
	}
	r.off += n
}

// Read implements io.Reader.
func (r *AEADReader) Read(p []byte) (int, error) { return iobuf.ReadVia(r, p) }

// WriteTo implements io.WriterTo: each verified run goes straight to w.
func (r *AEADReader) WriteTo(w io.Writer) (int64, error) { return iobuf.WriteTo(r, w) }

// Close stops the workers of the parallel path; reading after Close fails.
func (r *AEADReader) Close() error {
	r.src.Close()
	if r.err == nil {
		r.err = io.ErrClosedPipe
	}
	return nil
}

func newAEADReader(body iobuf.Reader, s *aeadSuite, threads int) (*AEADReader, error) {
	o, err := chunk.NewOpener(body, s, resolveThreads(threads))
	if err != nil {
		return nil, err
	}
	return &AEADReader{src: o}, nil
}

// newChunkWriter returns the chunk sealer for s over dst.
func newChunkWriter(dst io.WriteCloser, s *aeadSuite, threads int) (io.WriteCloser, error) {
	return chunk.NewWriter(dst, s, resolveThreads(threads))
}
