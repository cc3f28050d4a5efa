// Package inflate decompresses DEFLATE (RFC 1951) and ZLIB (RFC 1950)
// streams, the ZIP and ZLIB algorithms of OpenPGP (RFC 9580 section 9.4).
//
// It exists for speed: compressed data is what gpg writes by default, and
// inflate is the slowest stage of decrypting it. The decoder keeps 64 bits
// of input in a register, refilled 8 bytes at a time; one table lookup
// gives a literal, or a length or distance with its extra bits; matches are
// copied 8 or 16 bytes at a time; and the loop that does nearly all the
// work runs while at least 16 bytes of input and 290 bytes of output room
// remain, so it needs no end checks. A careful loop handles the ends, one
// symbol at a time.
//
// A Reader is an iobuf.Reader over its own output buffer: the 32 KiB
// window the format needs followed by room for the output, so the stage
// above reads the decompressed bytes in place. Inflating into that buffer
// is the only copy a decompressed byte costs. Memory is that buffer (288
// KiB) and the decode tables (about 45 KiB), whatever the input.
package inflate

import (
	"errors"
	"fmt"
	"io"

	"github.com/pgpstream/pgpstream/iobuf"
)

// Format is the framing around the DEFLATE data.
type Format int

const (
	// Raw is bare DEFLATE data, OpenPGP's ZIP algorithm.
	Raw Format = iota
	// Zlib is RFC 1950: a two-byte header, DEFLATE data, and the Adler-32
	// of the output. OpenPGP's ZLIB algorithm.
	Zlib
)

// ErrCorrupt is wrapped by every error about the compressed data itself.
var ErrCorrupt = errors.New("corrupt compressed data")

// CorruptError says what is wrong with the compressed data and where.
type CorruptError struct {
	Offset int64 // input offset, in bytes, near which it was found
	Msg    string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("corrupt compressed data at input offset %d: %s", e.Offset, e.Msg)
}

func (e *CorruptError) Unwrap() error { return ErrCorrupt }

const (
	window = 32 << 10 // RFC 1951: distances reach back at most 32768 bytes

	// maxMatch is the longest a symbol writes; a symbol is decoded only
	// with this much room left.
	maxMatch = 258
	// fastRoom is the output room the fast loop needs: a match and the
	// overshoot of its 16-byte copies.
	fastRoom = maxMatch + 32
	// fastIn is the input the fast loop needs: two 8-byte refills.
	fastIn = 16

	// OutSize is the output room after the window: the buffer a stage of
	// the decode chain uses.
	OutSize = iobuf.DefaultSize
)

// Decoder states between calls.
const (
	stZlib    = iota // at the zlib header
	stHeader         // at a block header
	stStored         // inside a stored block, z.stored bytes left
	stHuffman        // inside a Huffman-coded block
	stEnd            // after the final block: trailer, then EOF
)

// Reader decompresses a stream read from an iobuf.Reader.
type Reader struct {
	src    iobuf.Reader
	format Format

	in     []byte // what src last returned from Peek
	ip     int    // next unread byte of in
	inOff  int64  // input offset of in[0]
	inEOF  bool   // src has no more input
	srcErr error  // why, if not its clean end

	bb uint64 // bit buffer: the next nb bits of input, least significant first
	nb uint

	buf  []byte // window then output room
	r, w int    // buf[r:w] is output not yet consumed
	err  error  // sticky: io.EOF after the trailer, or what went wrong

	state  int
	final  bool // the current block is the last
	stored int  // bytes left in a stored block
	lit    *litTable
	dist   *distTable

	summed int    // buf[:summed] is in the checksum
	adler  uint32 // of the output so far, for Zlib

	dynLit  litTable
	dynDist distTable
	pre     preTable
	lens    [numLit + numDist]uint8
}

// NewReader returns a Reader of the stream in src. It reads src only
// through Peek(1) and Consume, and at the end of the stream leaves src
// just after it, give or take the bytes of the last 8-byte refill.
func NewReader(src iobuf.Reader, f Format) *Reader {
	z := &Reader{buf: make([]byte, window+OutSize)}
	z.Reset(src, f)
	return z
}

// Reset makes z read a new stream from src, keeping its buffers.
func (z *Reader) Reset(src iobuf.Reader, f Format) {
	*z = Reader{
		src: src, format: f, buf: z.buf, state: stHeader, adler: 1,
	}
	if f == Zlib {
		z.state = stZlib
	}
	if z.buf == nil {
		z.buf = make([]byte, window+OutSize)
	}
}

// InputOffset is how many bytes of input the decoder has taken so far.
func (z *Reader) InputOffset() int64 { return z.inOff + int64(z.ip) - int64(z.nb/8) }

func (z *Reader) corrupt(msg string) error {
	return &CorruptError{Offset: z.InputOffset(), Msg: msg}
}

// Peek implements iobuf.Reader. Peek(0) decodes nothing: it shows the
// output already inflated.
func (z *Reader) Peek(n int) ([]byte, error) {
	if n <= 0 {
		if z.w == z.r && z.err != nil {
			return nil, z.err
		}
		return z.buf[z.r:z.w], nil
	}
	if z.w-z.r >= n && z.w > z.r {
		return z.buf[z.r:z.w], nil
	}
	if n > iobuf.MaxPeek {
		return nil, iobuf.ErrPeekTooLarge
	}
	if need := window + n + fastRoom; need > len(z.buf) {
		nb := make([]byte, max(need, 2*len(z.buf)))
		copy(nb, z.buf[:z.w])
		z.buf = nb
	}
	for z.w-z.r < max(n, 1) && z.err == nil {
		if len(z.buf)-z.w < fastRoom {
			z.slide()
			if len(z.buf)-z.w < fastRoom {
				break // full of unconsumed output
			}
		}
		z.err = z.decode()
		if z.format == Zlib {
			z.adler = adlerUpdate(z.adler, z.buf[z.summed:z.w])
		}
		z.summed = z.w
		if z.err == nil && z.state == stEnd {
			z.err = z.finish()
		}
	}
	if z.w-z.r >= n && z.w > z.r {
		return z.buf[z.r:z.w], nil
	}
	return z.buf[z.r:z.w], z.err
}

// slide moves the window and the unconsumed output to the front.
func (z *Reader) slide() {
	k := min(z.r, z.w-window)
	if k <= 0 {
		return
	}
	copy(z.buf, z.buf[k:z.w])
	z.r -= k
	z.w -= k
	z.summed -= k
}

// Consume implements iobuf.Reader.
func (z *Reader) Consume(n int) {
	if n < 0 || n > z.w-z.r {
		panic("inflate: Consume beyond the peeked data")
	}
	z.r += n
}

// Read implements io.Reader.
func (z *Reader) Read(p []byte) (int, error) { return iobuf.ReadVia(z, p) }

// WriteTo implements io.WriterTo: each stretch of output goes to w from
// the buffer it was inflated into.
func (z *Reader) WriteTo(w io.Writer) (int64, error) { return iobuf.WriteTo(z, w) }

// Close releases nothing and stops nothing: the Reader owns no goroutine.
// It exists so that a Reader is an io.ReadCloser.
func (z *Reader) Close() error { return nil }

// nextIn moves to the next stretch of input. It reports false at the end
// of the input or on an error reading it (left in z.err by the caller via
// inErr).
func (z *Reader) nextIn() bool {
	if z.inEOF {
		return false
	}
	z.src.Consume(len(z.in))
	z.inOff += int64(len(z.in))
	z.in, z.ip = nil, 0
	in, err := z.src.Peek(1)
	if len(in) == 0 {
		z.inEOF = true
		if err != nil && err != io.EOF {
			z.srcErr = err
		}
		return false
	}
	z.in = in
	return true
}

// need makes nb >= n if the input allows, a byte at a time; n <= 56.
func (z *Reader) need(n uint) bool {
	for z.nb < n {
		if z.ip >= len(z.in) && !z.nextIn() {
			return false
		}
		z.bb |= uint64(z.in[z.ip]) << z.nb
		z.ip++
		z.nb += 8
	}
	return true
}

// bits takes n bits (n <= 32) or fails with the input's end.
func (z *Reader) bits(n uint) (uint32, error) {
	if !z.need(n) {
		return 0, z.eof()
	}
	v := uint32(z.bb & (1<<n - 1))
	z.bb >>= n
	z.nb -= n
	return v, nil
}

// eof is the error for input that ended inside the stream.
func (z *Reader) eof() error {
	if z.srcErr != nil {
		return z.srcErr
	}
	return io.ErrUnexpectedEOF
}

// decode inflates into buf[w:] until the room is nearly used up, the final
// block ends, or an error.
func (z *Reader) decode() error {
	for {
		switch z.state {
		case stZlib:
			if err := z.zlibHeader(); err != nil {
				return err
			}
			z.state = stHeader
		case stHeader:
			if z.final {
				z.state = stEnd
				return nil
			}
			if err := z.blockHeader(); err != nil {
				return err
			}
		case stStored:
			if err := z.copyStored(); err != nil || z.state == stStored {
				return err
			}
		case stHuffman:
			if err := z.huffman(); err != nil || z.state == stHuffman {
				return err
			}
		case stEnd:
			return nil
		}
	}
}

func (z *Reader) zlibHeader() error {
	h, err := z.bits(16)
	if err != nil {
		return err
	}
	cmf, flg := h&0xff, h>>8
	if cmf&0x0f != 8 || cmf>>4 > 7 || (cmf<<8|flg)%31 != 0 {
		return z.corrupt("not a zlib header")
	}
	if flg&0x20 != 0 {
		return z.corrupt("zlib stream needs a preset dictionary")
	}
	return nil
}

// blockHeader reads a block header (RFC 1951 section 3.2.3) and, for a
// dynamic block, its code definitions.
func (z *Reader) blockHeader() error {
	h, err := z.bits(3)
	if err != nil {
		return err
	}
	z.final = h&1 != 0
	switch h >> 1 {
	case 0: // stored, section 3.2.4
		z.bb >>= z.nb % 8
		z.nb -= z.nb % 8
		v, err := z.bits(32)
		if err != nil {
			return err
		}
		if uint16(v) != ^uint16(v>>16) {
			return z.corrupt("stored block length does not match its complement")
		}
		z.stored = int(v & 0xffff)
		z.state = stStored
	case 1:
		z.lit, z.dist = &fixedLit, &fixedDist
		z.state = stHuffman
	case 2:
		if err := z.dynamicHeader(); err != nil {
			return err
		}
		z.lit, z.dist = &z.dynLit, &z.dynDist
		z.state = stHuffman
	default:
		return z.corrupt("reserved block type")
	}
	return nil
}

var codeOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// dynamicHeader reads the code lengths of a dynamic block (section 3.2.7).
func (z *Reader) dynamicHeader() error {
	h, err := z.bits(14)
	if err != nil {
		return err
	}
	nlit := int(h&0x1f) + 257
	ndist := int(h>>5&0x1f) + 1
	nclen := int(h>>10) + 4
	if nlit > 286 || ndist > 30 {
		return z.corrupt("too many length or distance codes")
	}
	var clens [19]uint8
	for i := 0; i < nclen; i++ {
		v, err := z.bits(3)
		if err != nil {
			return err
		}
		clens[codeOrder[i]] = uint8(v)
	}
	if !build(z.pre[:], preBits, clens[:], preTmpl[:], noExtra[:]) {
		return z.corrupt("invalid code-length code")
	}
	lens := z.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		z.need(preBits)
		e := z.pre[z.bb&preMask]
		if e&fExc != 0 {
			if z.nb < preBits {
				return z.eof()
			}
			return z.corrupt("invalid code-length symbol")
		}
		if uint(e&63) > z.nb {
			return z.eof()
		}
		z.bb >>= e & 63
		z.nb -= uint(e & 63)
		sym := e >> 12
		if sym < 16 {
			lens[i] = uint8(sym)
			i++
			continue
		}
		var rep uint32
		var fill uint8
		switch sym {
		case 16:
			if i == 0 {
				return z.corrupt("code length repeat with nothing to repeat")
			}
			v, err := z.bits(2)
			if err != nil {
				return err
			}
			rep, fill = 3+v, lens[i-1]
		case 17:
			v, err := z.bits(3)
			if err != nil {
				return err
			}
			rep = 3 + v
		default:
			v, err := z.bits(7)
			if err != nil {
				return err
			}
			rep = 11 + v
		}
		if i+int(rep) > len(lens) {
			return z.corrupt("code lengths overflow")
		}
		for ; rep > 0; rep-- {
			lens[i] = fill
			i++
		}
	}
	if !build(z.dynLit[:], litBits, lens[:nlit], litTmpl[:], litExtra[:]) {
		return z.corrupt("invalid literal/length code")
	}
	if !build(z.dynDist[:], distBits, lens[nlit:], distTmpl[:], distExtra[:]) {
		return z.corrupt("invalid distance code")
	}
	return nil
}

// copyStored copies a stored block's bytes into the output.
func (z *Reader) copyStored() error {
	// Whole bytes still in the bit buffer come first.
	for z.stored > 0 && z.nb >= 8 && z.w < len(z.buf) {
		z.buf[z.w] = byte(z.bb)
		z.bb >>= 8
		z.nb -= 8
		z.w++
		z.stored--
	}
	if z.nb == 0 {
		// The bytes now come straight from the input: drop the bits
		// of the next byte that the last refill left above nb.
		z.bb = 0
	}
	for z.stored > 0 && z.w < len(z.buf) {
		if z.ip >= len(z.in) && !z.nextIn() {
			return z.eof()
		}
		n := copy(z.buf[z.w:min(len(z.buf), z.w+z.stored)], z.in[z.ip:])
		z.w += n
		z.ip += n
		z.stored -= n
	}
	if z.stored == 0 {
		z.state = stHeader
	}
	return nil
}

// finish reads the trailer after the final block: the Adler-32 of a zlib
// stream. It hands the input it did not use back to src.
func (z *Reader) finish() error {
	if z.format == Zlib {
		z.bb >>= z.nb % 8
		z.nb -= z.nb % 8
		v, err := z.bits(32)
		if err != nil {
			return err
		}
		want := v>>24 | v>>8&0xff00 | v<<8&0xff0000 | v<<24
		if want != z.adler {
			return z.corrupt("zlib checksum mismatch")
		}
	}
	unused := min(int(z.nb/8), z.ip)
	z.src.Consume(z.ip - unused)
	z.in, z.ip, z.nb, z.bb = nil, 0, 0, 0
	return io.EOF
}

// huffman decodes symbols of a Huffman-coded block: the fast loop while it
// can, one careful symbol at a time where it cannot, until the block ends
// or the output room is used up.
func (z *Reader) huffman() error {
	for {
		if z.ip+fastIn <= len(z.in) && z.w+fastRoom <= len(z.buf) {
			if err := z.fast(); err != nil || z.state != stHuffman {
				return err
			}
		}
		if z.w+maxMatch > len(z.buf) {
			return nil
		}
		if err := z.slow(); err != nil || z.state != stHuffman {
			return err
		}
	}
}

// slow decodes one symbol, checking every bit and byte.
func (z *Reader) slow() error {
	z.need(maxCodeLen)
	e := z.lit[z.bb&litMask]
	if e&fSub != 0 {
		if z.nb < litBits {
			return z.eof()
		}
		z.bb >>= litBits
		z.nb -= litBits
		e = z.lit[int(e>>12&0xffff)+int(z.bb&(1<<(e>>8&15)-1))]
	}
	if e&fExc != 0 && e&fEOB == 0 {
		if z.nb < maxCodeLen && z.inEOF {
			return z.eof() // perhaps the zero padding that looked invalid
		}
		return z.corrupt("invalid literal/length symbol")
	}
	if n := uint(e & 63); n > z.nb && !z.need(n) {
		return z.eof()
	}
	n := uint(e & 63)
	v := int(e>>12&0xffff) + int(z.bb&(1<<n-1)>>(e>>8&15))
	z.bb >>= n
	z.nb -= n
	if e&fLit != 0 {
		z.buf[z.w] = byte(e >> 12)
		z.w++
		return nil
	}
	if e&fEOB != 0 {
		z.state = stHeader
		return nil
	}
	length := v

	z.need(maxCodeLen)
	e = z.dist[z.bb&distMask]
	if e&fSub != 0 {
		if z.nb < distBits {
			return z.eof()
		}
		z.bb >>= distBits
		z.nb -= distBits
		e = z.dist[int(e>>12&0xffff)+int(z.bb&(1<<(e>>8&15)-1))]
	}
	if e&fExc != 0 {
		if z.nb < maxCodeLen && z.inEOF {
			return z.eof()
		}
		return z.corrupt("invalid distance symbol")
	}
	if n := uint(e & 63); n > z.nb && !z.need(n) {
		return z.eof()
	}
	n = uint(e & 63)
	dist := int(e>>12&0xffff) + int(z.bb&(1<<n-1)>>(e>>8&15))
	z.bb >>= n
	z.nb -= n
	if dist > z.w {
		return z.corrupt("distance reaches before the start of the output")
	}
	out := z.buf[z.w : z.w+length]
	src := z.buf[z.w-dist:]
	for i := range out {
		out[i] = src[i]
	}
	z.w += length
	return nil
}

// fast decodes symbols while at least fastIn bytes of input and fastRoom
// bytes of output room remain, so that neither end needs checking: every
// refill loads 8 bytes, and matches are copied in whole words.
func (z *Reader) fast() error {
	in, ip := z.in, z.ip
	out, op := z.buf, z.w
	bb, nb := z.bb, z.nb
	lt, dt := z.lit, z.dist
	inEnd := len(in) - fastIn
	outEnd := len(out) - fastRoom
	var err error
	for ip <= inEnd && op <= outEnd {
		// Refill: afterwards nb is 56..63, and ip has moved past the
		// bytes wholly inside the buffer; the partial one is loaded
		// again, to the same bit positions, next time.
		bb |= load64(in, ip) << (nb & 63)
		ip += int((63 - nb) >> 3)
		nb |= 56

		// A literal from the primary table takes at most litBits, so
		// four fit in the 56 bits, each looked up with at least litBits
		// valid.
		e := lt[bb&litMask]
		if e&fLit != 0 {
			bb >>= e & 63
			nb -= uint(e & 63)
			store8(out, op, byte(e>>12))
			op++
			e = lt[bb&litMask]
			if e&fLit != 0 {
				bb >>= e & 63
				nb -= uint(e & 63)
				store8(out, op, byte(e>>12))
				op++
				e = lt[bb&litMask]
				if e&fLit != 0 {
					bb >>= e & 63
					nb -= uint(e & 63)
					store8(out, op, byte(e>>12))
					op++
					e = lt[bb&litMask]
					if e&fLit != 0 {
						bb >>= e & 63
						nb -= uint(e & 63)
						store8(out, op, byte(e>>12))
						op++
						continue
					}
				}
			}
			// A length and distance need up to 48 bits.
			bb |= load64(in, ip) << (nb & 63)
			ip += int((63 - nb) >> 3)
			nb |= 56
		}
		if e&fExc != 0 {
			if e&fSub != 0 {
				bb >>= litBits
				nb -= litBits
				e = lt[int(e>>12&0xffff)+int(bb&(1<<(e>>8&15)-1))]
				if e&fLit != 0 {
					bb >>= e & 63
					nb -= uint(e & 63)
					store8(out, op, byte(e>>12))
					op++
					continue
				}
			}
			if e&fExc != 0 {
				if e&fEOB != 0 {
					bb >>= e & 63
					nb -= uint(e & 63)
					z.state = stHeader
				} else {
					err = errInvalidLit
				}
				break
			}
		}
		n := e & 63
		length := int(e>>12&0xffff) + int(bb&(1<<n-1)>>(e>>8&15))
		bb >>= n
		nb -= uint(n)

		d := dt[bb&distMask]
		if d&fExc != 0 {
			if d&fSub == 0 {
				err = errInvalidDist
				break
			}
			bb >>= distBits
			nb -= distBits
			d = dt[int(d>>12&0xffff)+int(bb&(1<<(d>>8&15)-1))]
			if d&fExc != 0 {
				err = errInvalidDist
				break
			}
		}
		n = d & 63
		dist := int(d>>12&0xffff) + int(bb&(1<<n-1)>>(d>>8&15))
		bb >>= n
		nb -= uint(n)
		if dist > op {
			err = errFarDist
			break
		}

		src := op - dist
		end := op + length
		switch {
		case dist >= 16:
			for op < end {
				store64(out, op, load64(out, src))
				store64(out, op+8, load64(out, src+8))
				op += 16
				src += 16
			}
		case dist >= 8:
			for op < end {
				store64(out, op, load64(out, src))
				op += 8
				src += 8
			}
		case dist == 1:
			v := uint64(load8(out, src)) * 0x0101010101010101
			for op < end {
				store64(out, op, v)
				op += 8
			}
		default:
			for ; op < end; op++ {
				store8(out, op, load8(out, op-dist))
			}
		}
		op = end
	}
	z.ip, z.w, z.bb, z.nb = ip, op, bb, nb
	if err != nil {
		return z.corrupt(err.Error())
	}
	return nil
}

var (
	errInvalidLit  = errors.New("invalid literal/length symbol")
	errInvalidDist = errors.New("invalid distance symbol")
	errFarDist     = errors.New("distance reaches before the start of the output")
)
