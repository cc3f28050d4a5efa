package packet

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/pgpstream/pgpstream/iobuf"
)

// oneByteReader hands out one byte per Read, the worst case for framing.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

func framed(t testing.TB, payload []byte, chunk int) []byte {
	var out bytes.Buffer
	w := NewPartialWriter(&out, TagLiteral, chunk)
	rng := rand.New(rand.NewPCG(1, uint64(len(payload))))
	p := payload
	for len(p) > 0 {
		k := min(len(p), 1+rng.IntN(3000))
		if _, err := w.Write(p[:k]); err != nil {
			t.Fatal(err)
		}
		p = p[k:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// readBody reads a packet back, peeking `peek` bytes at a time and keeping
// `hold` bytes back as the MDC and AEAD layers do.
func readBody(t testing.TB, src io.Reader, bufSize, peek, hold int) []byte {
	r := iobuf.NewReader(src, bufSize)
	h, err := ReadHeader(r)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBody(r, h)
	var got []byte
	for {
		buf, err := b.Peek(peek + hold)
		if err == io.EOF {
			got = append(got, buf...)
			b.Consume(len(buf))
			break
		}
		if err != nil {
			t.Fatalf("peek: %v", err)
		}
		take := len(buf) - hold
		got = append(got, buf[:take]...)
		b.Consume(take)
	}
	return got
}

func TestPartialRoundTrip(t *testing.T) {
	for _, size := range []int{0, 1, 15, 16, 17, 511, 512, 513, 1023, 1024, 1025, 65535, 65536, 70000} {
		payload := make([]byte, size)
		for i := range payload {
			payload[i] = byte(i * 7)
		}
		for _, chunk := range []int{512, 1024, 65536} {
			enc := framed(t, payload, chunk)
			for _, bufSize := range []int{16, 512, 4096, 1 << 16} {
				for _, peek := range []int{1, 22, 512} {
					for _, hold := range []int{0, 22} {
						got := readBody(t, bytes.NewReader(enc), bufSize, peek, hold)
						if !bytes.Equal(got, payload) {
							t.Fatalf("size %d chunk %d buf %d peek %d hold %d: got %d bytes, differ", size, chunk, bufSize, peek, hold, len(got))
						}
					}
				}
			}
			got := readBody(t, oneByteReader{bytes.NewReader(enc)}, 4096, 1, 22)
			if !bytes.Equal(got, payload) {
				t.Fatalf("one-byte reads, size %d chunk %d: differ", size, chunk)
			}
		}
	}
}

func TestHeaderFormats(t *testing.T) {
	cases := []struct {
		in   []byte
		tag  Tag
		kind LengthKind
		l    int64
		size int
	}{
		{[]byte{0xcb, 100}, TagLiteral, Definite, 100, 2},
		{[]byte{0xcb, 0xc5, 0xfb}, TagLiteral, Definite, 1723, 3},
		{[]byte{0xcb, 0xff, 0, 1, 0x86, 0xa0}, TagLiteral, Definite, 100000, 6},
		{[]byte{0xcb, 0xe9}, TagLiteral, Partial, 512, 2},
		{[]byte{0xac, 0x05}, TagLiteral, Definite, 5, 2},         // old format, 1-octet length
		{[]byte{0xad, 0x01, 0x00}, TagLiteral, Definite, 256, 3}, // old format, 2-octet length
		{[]byte{0xae, 0, 0, 1, 0}, TagLiteral, Definite, 256, 5}, // old format, 4-octet length
		{[]byte{0xaf}, TagLiteral, Indeterminate, 0, 1},          // old format, indeterminate
		{[]byte{0xd2, 0xff, 0xff, 0xff, 0xff, 0xff}, TagSEIPD, Definite, 0xffffffff, 6},
	}
	for _, c := range cases {
		h, need, err := ParseHeader(c.in, 0)
		if err != nil || need != 0 {
			t.Fatalf("%x: need %d err %v", c.in, need, err)
		}
		if h.Tag != c.tag || h.Kind != c.kind || h.Length != c.l || h.Size != c.size {
			t.Errorf("%x: got %+v", c.in, h)
		}
		if _, need, _ := ParseHeader(c.in[:len(c.in)-1], 0); len(c.in) > 1 && need == 0 {
			t.Errorf("%x: a short header parsed", c.in)
		}
	}
	var se *StructuralError
	if _, _, err := ParseHeader([]byte{0x41}, 7); !errors.As(err, &se) || se.Offset != 7 {
		t.Errorf("bit 7 clear: got %v", err)
	}
	if _, _, err := ParseHeader([]byte{0xc2, 0xe9}, 0); !errors.As(err, &se) {
		t.Errorf("partial length on a signature packet: got %v", err)
	}
}

func TestBodyTruncated(t *testing.T) {
	for _, in := range [][]byte{
		{0xcb, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3},                  // declares 4 GiB, has 3 bytes
		{0xcb, 0xe9, 1, 2, 3},                                          // partial 512, has 3
		append(append([]byte{0xcb, 0xe9}, make([]byte, 512)...), 0xe9), // a chain that stops
	} {
		r := iobuf.NewReader(bytes.NewReader(in), 0)
		h, err := ReadHeader(r)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(NewBody(r, h))
		if !errors.Is(err, ErrTruncated) {
			t.Errorf("%x...: got %v, want truncation", in[:4], err)
		}
	}
}

// reframe writes body as one literal packet in partial segments of seg
// bytes (any power of two, 1 included: hostile writers are not bound by
// RFC 9580's 512-byte first segment), ending in a definite length.
func reframe(body []byte, seg int) []byte {
	out := []byte{0xc0 | byte(TagLiteral)}
	for len(body) > seg {
		l := 0
		for 1<<l < seg {
			l++
		}
		out = append(out, 224+byte(l))
		out = append(out, body[:seg]...)
		body = body[seg:]
	}
	out = AppendLength(out, int64(len(body)))
	return append(out, body...)
}

// TestJoinAcrossTinySegments: Peeks larger than a segment join as many
// segments as they need, and the bytes come out once each, in order.
func TestJoinAcrossTinySegments(t *testing.T) {
	for _, seg := range []int{1, 2, 64, 512} {
		for _, size := range []int{0, 1, 5, 100, 3000} {
			payload := make([]byte, size)
			for i := range payload {
				payload[i] = byte(i*7 + 1)
			}
			enc := reframe(payload, seg)
			for _, peek := range []int{1, 3, 6, 22, 300} {
				for _, hold := range []int{0, 22} {
					for _, src := range []func() io.Reader{
						func() io.Reader { return bytes.NewReader(enc) },
						func() io.Reader { return oneByteReader{bytes.NewReader(enc)} },
					} {
						got := readBody(t, src(), 64, peek, hold)
						if !bytes.Equal(got, payload) {
							t.Fatalf("seg %d size %d peek %d hold %d: got %d bytes, differ", seg, size, peek, hold, len(got))
						}
					}
				}
			}
		}
	}
}

type countingSource struct {
	r     io.Reader
	reads int
}

func (c *countingSource) Read(p []byte) (int, error) { c.reads++; return c.r.Read(p) }

// TestBodyPeekZero: Peek(0) shows what the reader below holds of the
// current segment and reads nothing, at a boundary too.
func TestBodyPeekZero(t *testing.T) {
	payload := make([]byte, 5000)
	src := &countingSource{r: bytes.NewReader(reframe(payload, 512))}
	r := iobuf.NewReader(src, 4096)
	h, err := ReadHeader(r)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBody(r, h)
	total := 0
	for {
		reads := src.reads
		buf, err := b.Peek(0)
		if src.reads != reads {
			t.Fatalf("Peek(0) read from the source")
		}
		if err != nil && err != io.EOF {
			t.Fatal(err)
		}
		if len(buf) > 512 {
			t.Fatalf("Peek(0) gave %d bytes, more than a segment", len(buf))
		}
		if len(buf) == 0 {
			if buf, err = b.Peek(1); len(buf) == 0 {
				if err != io.EOF {
					t.Fatalf("Peek(1): %v", err)
				}
				break
			}
		}
		b.Consume(len(buf))
		total += len(buf)
	}
	if total != len(payload) {
		t.Fatalf("read %d bytes, want %d", total, len(payload))
	}
}
