package ocb

import (
	"crypto/subtle"
	"math/bits"
)

// Piecewise sealing and opening: one message taken in pieces as they
// arrive, giving the same bytes as Seal or Open of the whole. OCB's
// blocks depend only on their index and the running offset, and the
// checksum is a running XOR, so a message can be sealed or opened as its
// bytes come off a file or out of a packet body's segments, without first
// gathering them into one buffer.
//
// PieceReset starts a message; PieceSeal and PieceOpen take the next
// whole blocks (len a multiple of 16) in order; PieceSealEnd and
// PieceOpenEnd take the rest (any length) and make or check the tag. The
// state lives in the instance, one message at a time: an instance is not
// for concurrent piecewise use (each chunk engine worker has its own).
//
// A piece may start at any block index: the blocks before the next
// sixteen-block boundary go through the eight-block cipher call one pass
// at a time, then the bulk loops run as they do for Seal and Open.

// PieceReset starts a message with the given nonce and associated data.
func (o *ocbAEAD) PieceReset(nonce, ad []byte) {
	if len(nonce) != o.nonceSize {
		panic("ocb: incorrect nonce length given to OCB")
	}
	o.piece = state{}
	o.pieceAD = o.begin(&o.piece, nonce, ad)
}

// PieceSeal encrypts whole blocks; dst and src are the same length, a
// multiple of 16, and equal or not overlapping.
func (o *ocbAEAD) PieceSeal(dst, src []byte) { o.pieceBlocks(dst, src, false) }

// PieceOpen decrypts whole blocks, as PieceSeal encrypts them.
func (o *ocbAEAD) PieceOpen(dst, src []byte) { o.pieceBlocks(dst, src, true) }

// PieceSealEnd encrypts the last bytes of the message (any length) and
// writes the 16-byte tag to tag.
func (o *ocbAEAD) PieceSealEnd(dst, src, tag []byte) {
	whole := len(src) &^ (blockSize - 1)
	o.pieceBlocks(dst[:whole], src[:whole], false)
	o.sealTail(&o.piece, dst[whole:len(src)], src[whole:], &o.pieceAD, (*block)(tag))
}

// PieceOpenEnd decrypts the last bytes of the message and checks tag.
// On failure it returns ErrOpen; the plaintext already written by this
// message's pieces is the caller's to discard.
func (o *ocbAEAD) PieceOpenEnd(dst, src, tag []byte) error {
	whole := len(src) &^ (blockSize - 1)
	o.pieceBlocks(dst[:whole], src[:whole], true)
	o.openTail(&o.piece, dst[whole:len(src)], src[whole:])
	var t block
	o.tag(&t, &o.piece, &o.pieceAD)
	if len(tag) != tagSize || subtle.ConstantTimeCompare(t[:], tag) != 1 {
		return ErrOpen
	}
	return nil
}

func (o *ocbAEAD) pieceBlocks(dst, src []byte, open bool) {
	if len(src)%blockSize != 0 || len(dst) != len(src) {
		panic("ocb: a piece is whole blocks, dst as long as src")
	}
	if inexactOverlap(dst, src) {
		panic("ocb: invalid buffer overlap")
	}
	s := &o.piece
	if r := int(s.idx % 16); r != 0 && len(src) > 0 {
		k := min(len(src)/blockSize, 16-r) * blockSize
		o.someBlocks(s, dst[:k], src[:k], open)
		dst, src = dst[k:], src[k:]
	}
	// Here s.idx is a multiple of sixteen, as the bulk loops need.
	if n := len(src) &^ (groupBytes - 1); n > 0 {
		switch {
		case o.hw != nil && open:
			o.hw.openBulk(o, s, dst[:n], src[:n])
		case o.hw != nil:
			o.hw.sealBulk(o, s, dst[:n], src[:n])
		case open:
			o.goOpenBulk(s, dst[:n], src[:n])
		default:
			o.goSealBulk(s, dst[:n], src[:n])
		}
		dst, src = dst[n:], src[n:]
	}
	o.someBlocks(s, dst, src, open)
}

// someBlocks seals or opens whole blocks at any index, eight to a cipher
// call: the few blocks before and after the bulk loops of a piece.
func (o *ocbAEAD) someBlocks(s *state, dst, src []byte, open bool) {
	var buf, offs [8]block
	off, sum := &s.oc[0], &s.oc[1]
	for len(src) > 0 {
		n := min(len(src)/blockSize, 8)
		for j := range n {
			s.idx++
			xorBlock(off, off, &o.l[bits.TrailingZeros64(s.idx)])
			offs[j] = *off
			in := (*block)(src[j*blockSize:])
			if !open {
				xorBlock(sum, sum, in) // before dst is written: dst may be src
			}
			xorBlock(&buf[j], in, off)
		}
		if open {
			o.decrypt(&buf, n)
		} else {
			o.encrypt(&buf, n)
		}
		for j := range n {
			out := (*block)(dst[j*blockSize:])
			xorBlock(out, &buf[j], &offs[j])
			if open {
				xorBlock(sum, sum, out)
			}
		}
		dst, src = dst[n*blockSize:], src[n*blockSize:]
	}
}
