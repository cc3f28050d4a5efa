package chunk

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"io"
	"testing"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// gcm is the engine for these tests: the standard library's AES-GCM. The
// engines of every mode are tested with the stages in package filter.
func gcm(c packet.CipherAlgo, mode packet.AEADAlgo, key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func suite(t *testing.T, chunkByte byte) *Suite {
	t.Helper()
	s, err := NewSEIPDv2(gcm, packet.CipherAES128, packet.AEADGCM, chunkByte, bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 16))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func seal(t *testing.T, s *Suite, pt []byte, threads int) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(nopCloser{&out}, s, threads)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(pt); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func open(s *Suite, ct []byte, threads int) ([]byte, error) {
	o, err := NewOpener(iobuf.NewReader(bytes.NewReader(ct), 0), s, threads)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	var out []byte
	for {
		run, err := o.Next()
		out = append(out, run...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// TestRoundTrip seals and opens around chunk boundaries, on the calling
// goroutine and on the pool, and checks the framing: each chunk carries its
// tag, and one final tag ends the stream.
func TestRoundTrip(t *testing.T) {
	for _, cb := range []byte{0, 10} { // 64 B and 64 KiB chunks
		s := suite(t, cb)
		cs := s.ChunkSize
		for _, n := range []int{0, 1, cs - 1, cs, cs + 1, 3*cs + 7} {
			pt := bytes.Repeat([]byte{'x'}, n)
			for _, threads := range []int{1, 3} {
				ct := seal(t, s, pt, threads)
				if chunks := (n + cs - 1) / cs; len(ct) != n+(chunks+1)*TagSize {
					t.Fatalf("chunk %d, %d bytes: %d bytes sealed", cs, n, len(ct))
				}
				got, err := open(s, ct, threads)
				if err != nil || !bytes.Equal(got, pt) {
					t.Fatalf("chunk %d, %d bytes, threads %d: %v, %d bytes", cs, n, threads, err, len(got))
				}
			}
		}
	}
}

// TestAuthentication: a flipped bit anywhere, a cut anywhere, and the
// stream ends in ErrAuthentication (or, cut inside the final tag's
// length, a truncation), never in io.EOF; the error is sticky.
func TestAuthentication(t *testing.T) {
	s := suite(t, 0)
	ct := seal(t, s, bytes.Repeat([]byte{'y'}, 5*s.ChunkSize+3), 1)
	for _, threads := range []int{1, 2} {
		for i := 0; i < len(ct); i += 7 {
			bad := bytes.Clone(ct)
			bad[i] ^= 0x20
			if _, err := open(s, bad, threads); !errors.Is(err, ErrAuthentication) {
				t.Fatalf("bit flipped at %d: %v", i, err)
			}
		}
		for cut := 0; cut < len(ct); cut += 5 {
			if _, err := open(s, ct[:cut], threads); err == nil {
				t.Fatalf("cut to %d of %d: no error", cut, len(ct))
			}
		}
	}
	o, err := NewOpener(iobuf.NewReader(bytes.NewReader(ct[:len(ct)-1]), 0), s, 1)
	if err != nil {
		t.Fatal(err)
	}
	var first error
	for first == nil {
		_, first = o.Next()
	}
	if _, again := o.Next(); again != first {
		t.Fatalf("error not sticky: %v, then %v", first, again)
	}
}
