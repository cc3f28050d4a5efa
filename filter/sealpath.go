package filter

import (
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"runtime"

	"github.com/pgpstream/pgpstream/internal/chunk"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// The sealing path: an AEAD packet whose plaintext is the literal packet
// and nothing else (no compression, no signatures inside), the message
// people encrypt when they care how fast. The input is read straight
// into the chunk engine's buffer and sealed there in place
// (chunk.Sealer), and the sealed runs go out with their partial-length
// octets by one writev(2) (packet.RunWriter): the read, the encryption
// and the write touch the same 256 KiB, which stays in cache.
//
// Copies per byte: the kernel's read, the encryption in place, the
// kernel's write. The general path (compression, signing) copies each
// byte twice more.

// literalSeg is the partial segment of a literal packet whose length is
// not known (a pipe): 64 KiB, a pipe's default capacity, so a segment is
// usually one read(2).
const literalSeg = 64 << 10

// sealPlain encrypts in into the AEAD packet set up by setup. It returns
// errNoPieces when the engine cannot seal in pieces, before writing
// anything: the caller takes the general path.
func sealPlain(in io.Reader, out io.Writer, opt EncryptOptions, setup aeadSetup) (int64, error) {
	rw := packet.NewRunWriter(out, setup.tag)
	s, err := chunk.NewSealer(rw, setup.suite, setup.head)
	if err != nil {
		return 0, err
	}
	var n int64
	if size, ok := inputSize(in); ok {
		n, err = sealKnown(in, s, opt.Literal, size)
	} else {
		n, err = sealStream(in, s, opt.Literal)
	}
	if err != nil {
		return n, err
	}
	return n, s.Close()
}

// inputSize is what is left of a regular file from where it is read.
func inputSize(in io.Reader) (int64, bool) {
	f, ok := in.(*os.File)
	if !ok {
		return 0, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0, false
	}
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil || pos > fi.Size() {
		return 0, false
	}
	return fi.Size() - pos, true
}

// errInputChanged: a file changed size while it was encrypted; its
// literal packet's length, written first, would be false.
var errInputChanged = errors.New("the input file changed size while it was read")

// sealKnown writes a literal packet of definite length: its header, then
// size bytes read from in into the sealer's buffer.
func sealKnown(in io.Reader, s *chunk.Sealer, lit packet.Literal, size int64) (int64, error) {
	fields := lit.Append(nil)
	hdr := append([]byte{0xc0 | byte(packet.TagLiteral)}, packet.AppendLength(nil, int64(len(fields))+size)...)
	if err := put(s, append(hdr, fields...)); err != nil {
		return 0, err
	}
	if f, ok := in.(*os.File); ok && runtime.GOMAXPROCS(0) > 1 {
		return sealAhead(f, s, size)
	}
	var read int64
	for read < size {
		buf, err := s.Buffer()
		if err != nil {
			return read, err
		}
		if int64(len(buf)) > size-read {
			buf = buf[:size-read]
		}
		m, rerr := in.Read(buf)
		read += int64(m)
		if err := s.Commit(m); err != nil {
			return read, err
		}
		if rerr == io.EOF && read < size {
			return read, readError{fmt.Errorf("%w: %d bytes short", errInputChanged, size-read)}
		}
		if rerr != nil && rerr != io.EOF {
			return read, readError{rerr}
		}
	}
	var probe [1]byte
	if m, _ := in.Read(probe[:]); m > 0 {
		return read, readError{fmt.Errorf("%w: it grew", errInputChanged)}
	}
	return read, nil
}

// sealAhead is sealKnown's loop with the file read ahead on another
// core (iobuf.Ahead) and sealed out of its buffers into the sealer's:
// the read(2) copies and the encryption overlap, for the same passes over
// the bytes as reading in place.
func sealAhead(f *os.File, s *chunk.Sealer, size int64) (int64, error) {
	a := iobuf.NewAhead(f)
	defer a.Close()
	var read int64
	for read < size {
		view, err := a.Peek(1)
		k := int(min(int64(len(view)), size-read))
		if k > 0 {
			if _, err := s.Write(view[:k]); err != nil {
				return read, err
			}
			a.Consume(k)
			read += int64(k)
			continue
		}
		if err == io.EOF {
			return read, readError{fmt.Errorf("%w: %d bytes short", errInputChanged, size-read)}
		}
		return read, readError{err}
	}
	if view, _ := a.Peek(1); len(view) > 0 {
		return read, readError{fmt.Errorf("%w: it grew", errInputChanged)}
	}
	return read, nil
}

// put writes b through the sealer.
func put(s *chunk.Sealer, b []byte) error {
	for len(b) > 0 {
		buf, err := s.Buffer()
		if err != nil {
			return err
		}
		k := copy(buf, b)
		if err := s.Commit(k); err != nil {
			return err
		}
		b = b[k:]
	}
	return nil
}

// segmentFor is the largest literal segment that fits in room with the
// octets its length may grow by if it turns out to be the last one: a
// definite length of 192 bytes and more takes two octets, of 8384 and
// more five, where a partial length takes one.
func segmentFor(room int) int {
	for seg := 1 << (bits.Len(uint(room)) - 1); seg > 1; seg >>= 1 {
		grow := 0
		switch {
		case seg > 8384:
			grow = 4
		case seg > 192:
			grow = 1
		}
		if seg+grow <= room {
			return seg
		}
	}
	return 1
}

// sealStream writes a literal packet of unknown length in partial
// segments of 64 KiB, each read whole into a region the sealer lends
// before its length octet is written and the region committed; at the end
// of the input the last segment gets a definite length instead, its data
// moved along by the octets that takes (once per message).
func sealStream(in io.Reader, s *chunk.Sealer, lit packet.Literal) (int64, error) {
	fields := lit.Append(nil)
	var read int64
	first := true
	for {
		buf, err := s.Reserve(literalSeg + 6)
		if err != nil {
			return read, err
		}
		hdr := 1 // the partial length octet
		if first {
			hdr = 2 // and the packet's tag octet
		}
		room := len(buf) - hdr
		lead := 0 // the literal fields, in the first segment
		if first {
			lead = copy(buf[hdr:], fields)
		}
		seg := segmentFor(min(room, literalSeg+4))
		m, rerr := io.ReadFull(in, buf[hdr+lead:hdr+seg])
		read += int64(m)
		switch {
		case rerr == nil:
			if first {
				buf[0] = 0xc0 | byte(packet.TagLiteral)
			}
			packet.AppendPartialLength(buf[:hdr-1], seg)
			if err := s.Commit(hdr + seg); err != nil {
				return read, err
			}
			first = false
		case rerr == io.EOF || rerr == io.ErrUnexpectedEOF:
			// The last segment: a definite length, its octets in front
			// of the data, which moves right to make room for them.
			body := lead + m
			h := packet.AppendLength(nil, int64(body))
			if first {
				h = append([]byte{0xc0 | byte(packet.TagLiteral)}, h...)
			}
			copy(buf[len(h):], buf[hdr:hdr+body])
			copy(buf, h)
			return read, s.Commit(len(h) + body)
		default:
			return read, readError{rerr}
		}
	}
}
