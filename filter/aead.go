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
// Copies per byte: those of the chunk engine (see internal/chunk: one,
// the decryption, for OCB); the consumer reads each verified run in place,
// and a Peek across two runs (a packet header across a chunk boundary) is
// joined by iobuf.Joined.
type AEADReader struct {
	*iobuf.Joined
	runs *aeadRuns
}

// aeadRuns is the opener as an iobuf.RunSource: a run is what Next gave.
type aeadRuns struct {
	src chunk.Opener
	seg []byte // the current run from src
	off int    // how much of seg has been consumed
	err error
}

// Run implements iobuf.RunSource.
func (r *aeadRuns) Run(want int) ([]byte, error) {
	for r.off == len(r.seg) {
		if r.err != nil || want == 0 {
			return nil, r.err
		}
		seg, err := r.src.Next()
		if errors.Is(err, chunk.ErrAuthentication) {
			err = ErrAuthentication
		}
		if err != nil {
			r.err = err
			return nil, err
		}
		r.seg, r.off = seg, 0
	}
	return r.seg[r.off:], nil
}

// Lend implements iobuf.Lender when the engine can lend its plaintext
// buffer (the piece opener keeps two and decrypts into the one not lent).
func (r *aeadRuns) Lend() func() {
	if l, ok := r.src.(interface{ Lend() func() }); ok && r.off < len(r.seg) {
		return l.Lend()
	}
	return nil
}

// Advance implements iobuf.RunSource.
func (r *aeadRuns) Advance(n int) {
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
	r.runs.src.Close()
	if r.runs.err == nil {
		r.runs.err = io.ErrClosedPipe
	}
	r.runs.seg, r.runs.off = nil, 0
	r.Joined = iobuf.NewJoined(r.runs)
	return nil
}

func newAEADReader(body iobuf.Reader, s *aeadSuite, threads int) (*AEADReader, error) {
	o, err := chunk.NewOpener(body, s, resolveThreads(threads))
	if err != nil {
		return nil, err
	}
	runs := &aeadRuns{src: o}
	return &AEADReader{Joined: iobuf.NewJoined(runs), runs: runs}, nil
}

// newChunkWriter returns the chunk sealer for s over dst.
func newChunkWriter(dst io.WriteCloser, s *aeadSuite, threads int) (io.WriteCloser, error) {
	return chunk.NewWriter(dst, s, resolveThreads(threads))
}
