package ocb

import (
	"bytes"
	"crypto/cipher"
	"math/rand/v2"
	"testing"
)

// splitBlocks cuts n whole blocks into random pieces, some of one block,
// some long enough for the bulk loops, starting anywhere.
func splitBlocks(r *rand.Rand, n int) []int {
	var cuts []int
	for n > 0 {
		var k int
		switch r.IntN(4) {
		case 0:
			k = 1
		case 1:
			k = r.IntN(16) + 1
		default:
			k = r.IntN(80) + 1
		}
		k = min(k, n)
		cuts = append(cuts, k*blockSize)
		n -= k
	}
	return cuts
}

type pieces interface {
	cipher.AEAD
	PieceReset(nonce, ad []byte)
	PieceSeal(dst, src []byte)
	PieceOpen(dst, src []byte)
	PieceSealEnd(dst, src, tag []byte)
	PieceOpenEnd(dst, src, tag []byte) error
}

// TestPieces: sealing and opening in pieces gives Seal's and Open's
// bytes, on the assembly path and the pure-Go twin, in place and not,
// for lengths around every bulk boundary.
func TestPieces(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	key := make([]byte, 32)
	for name, mk := range map[string]func([]byte, int) (cipher.AEAD, error){"New": New, "NewPureGo": NewPureGo} {
		for _, ks := range []int{16, 24, 32} {
			a, err := mk(key[:ks], 15)
			if err != nil {
				t.Fatal(err)
			}
			p := a.(pieces)
			for iter := range 400 {
				size := r.IntN(4000)
				if iter%10 == 0 {
					size = r.IntN(3) * 256 // 0, 256, 512: exact group multiples
				}
				pt := make([]byte, size)
				nonce, ad := make([]byte, 15), make([]byte, r.IntN(40))
				for _, b := range [][]byte{pt, nonce, ad} {
					for i := range b {
						b[i] = byte(r.Uint32())
					}
				}
				want := a.Seal(nil, nonce, pt, ad)

				inPlace := iter%2 == 0
				got := make([]byte, size+tagSize)
				if inPlace {
					copy(got, pt)
				}
				src := pt
				if inPlace {
					src = got[:size]
				}
				p.PieceReset(nonce, ad)
				whole := size &^ 15
				if r.IntN(3) == 0 && whole > 0 {
					whole -= 16 // the end piece gets a whole block too
				}
				off := 0
				for _, k := range splitBlocks(r, whole/blockSize) {
					p.PieceSeal(got[off:off+k], src[off:off+k])
					off += k
				}
				p.PieceSealEnd(got[off:size], src[off:size], got[size:])
				if !bytes.Equal(got, want) {
					t.Fatalf("%s/%d: size %d: pieces sealed differently", name, ks, size)
				}

				out := make([]byte, size)
				ct := want[:size]
				if inPlace {
					out = append([]byte(nil), ct...)
					ct = out
				}
				p.PieceReset(nonce, ad)
				off = 0
				for _, k := range splitBlocks(r, whole/blockSize) {
					p.PieceOpen(out[off:off+k], ct[off:off+k])
					off += k
				}
				if err := p.PieceOpenEnd(out[off:], ct[off:], want[size:]); err != nil || !bytes.Equal(out, pt) {
					t.Fatalf("%s/%d: size %d: pieces opened wrong (%v)", name, ks, size, err)
				}
				bad := append([]byte(nil), want[size:]...)
				bad[r.IntN(tagSize)] ^= 1
				p.PieceReset(nonce, ad)
				if err := p.PieceOpenEnd(make([]byte, size), want[:size], bad); err != ErrOpen {
					t.Fatalf("%s/%d: a bad tag opened: %v", name, ks, err)
				}
			}
		}
	}
}

func BenchmarkPieceOpen(b *testing.B) {
	a, _ := New(make([]byte, 32), 15)
	p := a.(pieces)
	const piece = 8 << 10
	ct := make([]byte, 4<<20)
	dst := make([]byte, len(ct))
	tag := make([]byte, 16)
	b.SetBytes(int64(len(ct)))
	for b.Loop() {
		p.PieceReset(make([]byte, 15), nil)
		// gpg 2.4's segments: pieces at an offset of 3 bytes from a block.
		for off := 0; off+piece <= len(ct)-16; off += piece {
			p.PieceOpen(dst[off:off+piece], ct[off:off+piece])
		}
		p.PieceOpenEnd(dst[len(ct)-16:], ct[len(ct)-16:], tag)
	}
}
