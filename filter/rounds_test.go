package filter

import (
	"bytes"
	"crypto/cipher"
	"crypto/rand"
	"io"
	"math/bits"
	"path/filepath"
	"testing"
	"testing/iotest"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// These tests count what a per-byte path cannot hide: how often a stage
// goes back to the packet body for more (per partial-length segment) and
// how many writes reach the output (per MiB). Messages are framed the way
// gpg frames a pipe (8 KiB segments) and the way a hostile writer may
// (512 B, 64 B), inside and out, and read from a source that hands out
// whole buffers or one byte per read.

// reframe writes body as one packet of the given tag in partial segments
// of seg bytes (a power of two), ending in a definite-length segment.
func reframe(tag packet.Tag, body []byte, seg int) []byte {
	out := []byte{0xc0 | byte(tag)}
	for len(body) > seg {
		out = append(out, 224+byte(bits.TrailingZeros(uint(seg))))
		out = append(out, body[:seg]...)
		body = body[seg:]
	}
	out = packet.AppendLength(out, int64(len(body)))
	return append(out, body...)
}

// countingReader counts the rounds a stage asks of the body below it.
type countingReader struct {
	r      iobuf.Reader
	rounds int
}

func (c *countingReader) Peek(n int) ([]byte, error) { c.rounds++; return c.r.Peek(n) }
func (c *countingReader) Consume(n int)              { c.r.Consume(n) }
func (c *countingReader) Read(p []byte) (int, error) { c.rounds++; return c.r.Read(p) }

// writeCounter counts the writes reaching the output.
type writeCounter struct {
	n, sizes, small int
	last            int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	if w.sizes > 0 && w.last < 64<<10 {
		w.small++ // a write before this one was small
	}
	w.sizes++
	w.n += len(p)
	w.last = len(p)
	return len(p), nil
}

type sourceKind struct {
	name string
	wrap func(io.Reader) io.Reader
	bulk bool // the source hands out whole buffers
}

var sources = []sourceKind{
	{"bulk", func(r io.Reader) io.Reader { return r }, true},
	{"one-byte", iotest.OneByteReader, false},
}

var segments = []int{8 << 10, 512, 64}

// checkWrites fails when the output saw more than a few writes per MiB or
// a small write before the last.
func checkWrites(t *testing.T, w *writeCounter, want int) {
	t.Helper()
	if w.n != want {
		t.Fatalf("wrote %d bytes, want %d", w.n, want)
	}
	mib := (want + 1<<20 - 1) >> 20
	if w.sizes > 8*mib+2 || w.small > 0 {
		t.Fatalf("%d writes for %d MiB (%d small ones before the last): the output is not gathered", w.sizes, mib, w.small)
	}
}

func TestMDCRounds(t *testing.T) {
	size := 3<<20 + 12345
	plain := payload(size)
	key := make([]byte, 16)
	rand.Read(key)
	for _, seg := range segments {
		lit := reframe(packet.TagLiteral, append(packet.Literal{Format: 'b'}.Append(nil), plain...), seg)
		var body bytes.Buffer
		bw := iobuf.NewWriter(&body, 0)
		mw, err := NewMDCWriter(bw, packet.CipherAES128, key)
		if err != nil {
			t.Fatal(err)
		}
		mw.Write(lit)
		if err := mw.Close(); err != nil {
			t.Fatal(err)
		}
		msg := reframe(packet.TagSEIPD, body.Bytes(), seg)
		nseg := (len(msg) + seg - 1) / seg
		for _, src := range sources {
			r := iobuf.NewReader(src.wrap(bytes.NewReader(msg)), 0)
			h, err := packet.ReadHeader(r)
			if err != nil {
				t.Fatal(err)
			}
			b := packet.NewBody(r, h)
			if _, err := packet.ReadSEIPD(b, 0); err != nil {
				t.Fatal(err)
			}
			cr := &countingReader{r: b}
			m, err := NewMDCReader(cr, packet.CipherAES128, key)
			if err != nil {
				t.Fatal(err)
			}
			out := &writeCounter{}
			d := &decryptor{opt: DecryptOptions{Events: nopEvents{}}, out: out, res: &Result{}}
			d.sigs = verifier{res: d.res}
			if err := d.inside(m, b); err != nil {
				t.Fatalf("seg %d %s: %v", seg, src.name, err)
			}
			checkWrites(t, out, size)
			// A round fills the 256 KiB plaintext buffer.
			if max := size/iobuf.DefaultSize + 3; m.rounds > max {
				t.Errorf("seg %d %s: %d MDC rounds for %d bytes, want at most %d", seg, src.name, m.rounds, size, max)
			}
			if src.bulk && cr.rounds > 2*nseg+8 {
				t.Errorf("seg %d %s: %d body rounds for %d segments: more than two per segment", seg, src.name, cr.rounds, nseg)
			}
			t.Logf("seg %d %s: %d MDC rounds, %d body rounds for %d segments, %d writes", seg, src.name, m.rounds, cr.rounds, nseg, out.sizes)
		}
	}
}

func TestAEADRounds(t *testing.T) {
	size := 3<<20 + 12345
	plain := payload(size)
	for _, cb := range []byte{12, 6, 0} { // 256 KiB, 4 KiB, 64 B chunks
		s := testSuite(t, SEIPDv2, packet.AEADOCB, cb)
		chunks := sealRaw(t, s, plain, 1, 1<<20)
		for _, seg := range segments {
			msg := reframe(packet.TagSEIPD, chunks, seg)
			nseg := (len(msg) + seg - 1) / seg
			nchunk := (size + s.ChunkSize - 1) / s.ChunkSize
			for _, src := range sources {
				for _, threads := range []int{1, 2} {
					r := iobuf.NewReader(src.wrap(bytes.NewReader(msg)), 0)
					h, err := packet.ReadHeader(r)
					if err != nil {
						t.Fatal(err)
					}
					cr := &countingReader{r: packet.NewBody(r, h)}
					ar, err := newAEADReader(cr, s, threads)
					if err != nil {
						t.Fatal(err)
					}
					out := &writeCounter{}
					if _, err := iobuf.WriteTo(ar, out); err != nil {
						t.Fatalf("chunk %d seg %d %s: %v", s.ChunkSize, seg, src.name, err)
					}
					ar.Close()
					checkWrites(t, out, size)
					// A body round ends at the end of a segment or of a
					// chunk (with a look at the tag's worth after it).
					if src.bulk && cr.rounds > 2*(nseg+nchunk)+8 {
						t.Errorf("chunk %d seg %d threads %d: %d body rounds for %d segments and %d chunks", s.ChunkSize, seg, threads, cr.rounds, nseg, nchunk)
					}
					t.Logf("chunk %d seg %d %s threads %d: %d body rounds for %d segments, %d chunks; %d writes", s.ChunkSize, seg, src.name, threads, cr.rounds, nseg, nchunk, out.sizes)
				}
			}
		}
	}
}

func TestSEDRounds(t *testing.T) {
	size := 3<<20 + 12345
	plain := payload(size)
	key := bytes.Repeat([]byte{9}, 16)
	block, err := packet.CipherAES128.NewBlock(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, seg := range segments {
		lit := reframe(packet.TagLiteral, append(packet.Literal{Format: 'b'}.Append(nil), plain...), seg)
		// Tag 9: the prefix under a zero IV, then CFB resynchronised to
		// the prefix's ciphertext (RFC 9580 §5.7).
		prefix := make([]byte, 18)
		rand.Read(prefix[:16])
		prefix[16], prefix[17] = prefix[14], prefix[15]
		ct := make([]byte, 18+len(lit))
		cipher.NewCFBEncrypter(block, make([]byte, 16)).XORKeyStream(ct[:18], prefix)
		cipher.NewCFBEncrypter(block, ct[2:18]).XORKeyStream(ct[18:], lit)
		msg := reframe(packet.TagSED, ct, seg)
		nseg := (len(msg) + seg - 1) / seg
		for _, src := range sources {
			r := iobuf.NewReader(src.wrap(bytes.NewReader(msg)), 0)
			h, err := packet.ReadHeader(r)
			if err != nil {
				t.Fatal(err)
			}
			cr := &countingReader{r: packet.NewBody(r, h)}
			s, err := newSEDReader(cr, packet.CipherAES128, key)
			if err != nil {
				t.Fatal(err)
			}
			out := &writeCounter{}
			d := &decryptor{opt: DecryptOptions{Events: nopEvents{}}, out: out, res: &Result{}}
			d.sigs = verifier{res: d.res}
			if err := d.plainPackets(s, 1); err != nil {
				t.Fatalf("seg %d %s: %v", seg, src.name, err)
			}
			checkWrites(t, out, size)
			if src.bulk && cr.rounds > 2*nseg+8 {
				t.Errorf("seg %d %s: %d body rounds for %d segments: more than two per segment", seg, src.name, cr.rounds, nseg)
			}
		}
	}
}

// A message goes out in large writes from its first byte: the session key
// packets and headers ride with the first chunk, not in writes of their
// own (they were six writes of 1 to 49 bytes).
func TestEncryptGathersHead(t *testing.T) {
	_, el := readSecretKeys(t, filepath.Join("..", "testdata", "aead", "key-sec.asc"))
	var pub *gcpacket.PublicKey
	for _, s := range el[0].Subkeys {
		pub = s.PublicKey
	}
	for _, f := range []Format{SEIPDv1, SEIPDv2, AEADv1} {
		for _, size := range []int{0, 100, 3 << 20} {
			var w writeCounter
			var ct bytes.Buffer
			opt := EncryptOptions{Recipients: []Recipient{{Pub: pub}}, Passphrase: []byte("pw"), S2KCount: 1024,
				Cipher: packet.CipherAES128, Format: f, AEAD: packet.AEADOCB, ChunkByte: 16}
			if _, err := Encrypt(bytes.NewReader(payload(size)), io.MultiWriter(&w, &ct), opt); err != nil {
				t.Fatal(f, size, err)
			}
			if w.small > 0 || (size < 1<<20 && w.sizes != 1) {
				t.Errorf("%v, %d bytes: %d writes, %d small ones before the last", f, size, w.sizes, w.small)
			}
		}
	}
}
