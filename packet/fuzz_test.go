package packet

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/pgpstream/pgpstream/iobuf"
)

// FuzzFraming reads packets from arbitrary bytes with arbitrary peek sizes:
// it must never panic, never loop, and a body must never yield more bytes
// than the input holds.
func FuzzFraming(f *testing.F) {
	f.Add([]byte{0xcb, 0x05, 'b', 0, 0, 0, 0}, uint16(1), uint8(0))
	f.Add([]byte{0xcb, 0xe9}, uint16(22), uint8(22))
	f.Add(framed(f, pattern(2000), 512), uint16(23), uint8(22))
	f.Add([]byte{0xaf, 1, 2, 3}, uint16(512), uint8(0))
	f.Add([]byte{0xcb, 0xff, 0xff, 0xff, 0xff, 0xff, 1}, uint16(7), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, peek uint16, hold uint8) {
		r := iobuf.NewReader(bytes.NewReader(in), 64)
		for packets := 0; packets < 100; packets++ {
			h, err := ReadHeader(r)
			if err != nil {
				return
			}
			b := NewBody(r, h)
			total := 0
			for {
				n := int(peek)%600 + int(hold)
				buf, err := b.Peek(n)
				if len(buf) < n && err == nil {
					t.Fatalf("Peek(%d) returned %d bytes and no error", n, len(buf))
				}
				if n == 0 && len(buf) == 0 && err == nil {
					// Peek(0) shows what is buffered; now ask for a byte.
					if buf, err = b.Peek(1); len(buf) == 0 && err == nil {
						t.Fatalf("Peek(1) returned nothing and no error")
					}
				}
				if len(buf) > len(in) {
					t.Fatalf("peek returned %d bytes from %d of input", len(buf), len(in))
				}
				take := len(buf) - int(hold)
				if err != nil || take <= 0 {
					take = len(buf)
				}
				b.Consume(take)
				total += take
				if total > len(in) {
					t.Fatalf("body yielded %d bytes from %d of input", total, len(in))
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					return
				}
			}
		}
	})
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// FuzzPacketBodies feeds each fixed-layout parser arbitrary bodies.
func FuzzPacketBodies(f *testing.F) {
	f.Add([]byte{3, 1, 2, 3, 4, 5, 6, 7, 8, 18, 0, 1, 0})
	f.Add([]byte{6, 21, 6, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 25})
	f.Add([]byte{4, 9, 3, 8, 1, 2, 3, 4, 5, 6, 7, 8, 96})
	f.Add([]byte{'b', 3, 'a', 'b', 'c', 0, 0, 0, 1, 'x'})
	f.Add([]byte{2, 9, 2, 16})
	f.Add([]byte{1, 9, 2, 16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte{5, 7, 2, 3, 8, 1, 2, 3, 4, 5, 6, 7, 8, 96})
	f.Add([]byte{4, 9, 0, 3}) // a simple S2K with RIPEMD-160
	f.Add(append([]byte{0, 0, 'g', 'p', 'g', 2, 4, 0, 0, 0, 1, 3}, "url"...))
	f.Fuzz(func(t *testing.T, body []byte) {
		if rt := ParseRingTrust(body); len(rt.URL) > MaxRingTrustURL || (rt.Meta && len(body) < 12) {
			t.Fatalf("ParseRingTrust(%x) = %+v", body, rt)
		}
		ParsePKESK(body, 0)
		ParseSKESK(body, 0)
		if sp, err := ParseS2K(body); sp.Len > len(body) || (err == nil && sp.Len == 0) {
			t.Fatalf("ParseS2K(%x): Len %d, %v", body, sp.Len, err)
		}
		r := iobuf.NewReader(bytes.NewReader(body), 16)
		ReadLiteral(r, 0)
		r = iobuf.NewReader(bytes.NewReader(body), 16)
		ReadSEIPD(r, 0)
		r = iobuf.NewReader(bytes.NewReader(body), 16)
		ReadAEADData(r, 0)
		if s, err := ParseSKESK(body, 0); err == nil {
			s.Decrypt([]byte("pw"))
			s.Decrypt(nil) // an empty passphrase: a simple S2K hashes nothing
		}
	})
}

// TestArgon2CostBound: a SKESK may not make the S2K allocate more than
// 2 GiB or run more than 16 passes before anything can be checked.
func TestArgon2CostBound(t *testing.T) {
	skesk := func(version byte, passes, memExp byte) []byte {
		s2k := append([]byte{4}, make([]byte, 16)...)
		s2k = append(s2k, passes, 4, memExp)
		switch version {
		case 6:
			b := []byte{6, byte(3 + len(s2k) + 15), 9, 2, byte(len(s2k))}
			return append(append(b, s2k...), make([]byte, 15+32+16)...)
		default:
			return append([]byte{4, 9}, s2k...)
		}
	}
	for _, v := range []byte{4, 6} {
		if _, err := ParseSKESK(skesk(v, 1, 21), 0); err != nil {
			t.Errorf("v%d: 2 GiB, 1 pass refused: %v", v, err)
		}
		for _, c := range [][2]byte{{1, 22}, {1, 31}, {17, 16}, {255, 255}} {
			_, err := ParseSKESK(skesk(v, c[0], c[1]), 0)
			var ue *UnsupportedError
			if !errors.As(err, &ue) {
				t.Errorf("v%d: %d passes over 2^%d KiB: got %v", v, c[0], c[1], err)
			}
		}
	}
}
