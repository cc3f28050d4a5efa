package filter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/internal/chunk"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// sealInputs are the inputs the sealing path tells apart: a regular file
// (its size known: a literal packet of definite length) and a pipe (a
// literal packet in partial segments).
var sealInputs = []struct {
	name string
	open func(t *testing.T, pt []byte) io.Reader
}{
	{"file", func(t *testing.T, pt []byte) io.Reader {
		p := filepath.Join(t.TempDir(), "pt")
		if err := os.WriteFile(p, pt, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}},
	{"pipe", func(t *testing.T, pt []byte) io.Reader {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { w.Write(pt); w.Close() }()
		t.Cleanup(func() { r.Close() })
		return r
	}},
}

// TestSealPath encrypts through the sealing path, from a file and from a
// pipe, across the boundaries of literal segments (64 KiB), runs
// (256 KiB) and chunks, to a file and to a writer that is not one, and
// decrypts the result. A message of 64 KiB chunks has literal segments
// that cross chunk ends.
func TestSealPath(t *testing.T) {
	privs, el := readSecretKeys(t, filepath.Join("..", "testdata", "aead", "key-sec.asc"))
	var rcpt []Recipient
	for _, sk := range el[0].Subkeys {
		rcpt = append(rcpt, Recipient{Pub: sk.PublicKey})
	}
	keys := secretKeys{privs: privs}
	sizes := []int{0, 1, 191, 192, 511, 512, 8383, 8384, literalSeg - 1, literalSeg, literalSeg + 1,
		chunk.SealRun - 20, chunk.SealRun, chunk.SealRun + 1, 4<<20 - 1, 4 << 20, 4<<20 + 17}
	for _, f := range []Format{AEADv1, SEIPDv2} {
		for _, cb := range []byte{10, 16} {
			for _, in := range sealInputs {
				for _, size := range sizes {
					if cb == 10 && size > 1<<20 {
						continue
					}
					name := fmt.Sprintf("%v cb %d %s %d", f, cb, in.name, size)
					pt := payload(size)
					// A public key: SEIPD v2's SKESK asks for Argon2, too slow here.
					opt := EncryptOptions{Recipients: rcpt, Cipher: packet.CipherAES256,
						Format: f, AEAD: packet.AEADOCB, ChunkByte: cb, Literal: packet.Literal{Format: 'b', FileName: "x"}}
					var ct bytes.Buffer
					er, err := Encrypt(in.open(t, pt), &ct, opt)
					if err != nil || er.Bytes != int64(size) {
						t.Fatalf("%s: Encrypt: %d, %v", name, er.Bytes, err)
					}
					var got bytes.Buffer
					res, err := Decrypt(bytes.NewReader(ct.Bytes()), &got, DecryptOptions{Keys: keys})
					if err != nil || !bytes.Equal(got.Bytes(), pt) {
						t.Fatalf("%s: Decrypt: %v (%d bytes)", name, err, got.Len())
					}
					if res.Literal.FileName != "x" {
						t.Fatalf("%s: file name %q", name, res.Literal.FileName)
					}
				}
			}
		}
	}
}

// TestSealPathToFile: to a file, a message goes out in writes of whole
// runs, a partial-length octet and its 256 KiB each (the last aside).
func TestSealPathToFile(t *testing.T) {
	pt := payload(3<<20 + 5)
	out, err := os.Create(filepath.Join(t.TempDir(), "ct"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	opt := EncryptOptions{Passphrase: []byte("pw"), S2KCount: 1024, Format: AEADv1, AEAD: packet.AEADOCB, ChunkByte: 16}
	if _, err := Encrypt(sealInputs[0].open(t, pt), out, opt); err != nil {
		t.Fatal(err)
	}
	out.Seek(0, io.SeekStart)
	var got bytes.Buffer
	if _, err := Decrypt(out, &got, DecryptOptions{Keys: passKeys{[]byte("pw")}}); err != nil || !bytes.Equal(got.Bytes(), pt) {
		t.Fatalf("Decrypt: %v", err)
	}
}

// shortReader claims more than it has: a file that shrank, or grew,
// while it was encrypted.
func TestSealKnownChangedInput(t *testing.T) {
	for _, c := range []struct {
		have, claim int
	}{{100, 200}, {300, 200}} {
		s, err := chunk.NewSealer(discardRuns{}, testOCBSuite(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = sealKnown(bytes.NewReader(payload(c.have)), s, packet.Literal{}, int64(c.claim))
		if !errors.Is(err, errInputChanged) {
			t.Fatalf("%d bytes where %d were claimed: %v", c.have, c.claim, err)
		}
	}
}

type discardRuns struct{}

func (discardRuns) WriteRun([]byte, int) error { return nil }
func (discardRuns) Close([]byte, int) error    { return nil }

func testOCBSuite(t *testing.T) *aeadSuite {
	t.Helper()
	a := packet.AEADData{Version: 1, Cipher: packet.CipherAES128, AEAD: packet.AEADOCB, ChunkByte: 10, IV: make([]byte, 15)}
	return newAEADDataSuite(a, make([]byte, 16))
}

// TestSegmentFor: a literal segment and the octets its length may grow
// by fit in the room.
func TestSegmentFor(t *testing.T) {
	for room := 1; room < 70000; room++ {
		seg := segmentFor(room)
		grow := 0
		if seg > 8384 {
			grow = 4
		} else if seg > 192 {
			grow = 1
		}
		if seg&(seg-1) != 0 || seg+grow > max(room, 1) || (room >= 2 && 2*seg+4 <= room && 2*seg <= literalSeg) {
			t.Fatalf("segmentFor(%d) = %d", room, seg)
		}
	}
}

// scribbler is an output on its own goroutine (iobuf.AsyncWriter over a
// slow writer) that scribbles over every lent buffer once it is done
// with it: if the decryption reused a buffer still lent, or released one
// early, the output would differ.
type scribbler struct {
	*iobuf.AsyncWriter
	lent int
}

func (s *scribbler) WriteOwned(p []byte, release func()) error {
	s.lent++
	return s.AsyncWriter.WriteOwned(p, func() { release() })
}

type slowBuffer struct{ bytes.Buffer }

func (s *slowBuffer) Write(p []byte) (int, error) {
	time.Sleep(200 * time.Microsecond)
	return s.Buffer.Write(p)
}

// TestDecryptLends: AEAD plaintext goes to a writer on its own goroutine
// from the buffers it was decrypted into, lent and not copied, signed
// or not, and arrives whole; the hashes read the lent buffers too.
func TestDecryptLends(t *testing.T) {
	privs, el := readSecretKeys(t, filepath.Join("..", "testdata", "aead", "key-sec.asc"))
	var rcpt []Recipient
	for _, sk := range el[0].Subkeys {
		rcpt = append(rcpt, Recipient{Pub: sk.PublicKey})
	}
	signer := testEntity(t, "ed25519")
	for _, signed := range []bool{false, true} {
		for _, size := range []int{0, 1000, 4<<20 + 5, 9<<20 + 17} {
			pt := payload(size)
			opt := EncryptOptions{Recipients: rcpt, Format: AEADv1, AEAD: packet.AEADOCB, ChunkByte: 16}
			if signed {
				opt.Signers = []Signer{signerOf(signer, packet.HashSHA512)}
			}
			var ct bytes.Buffer
			if _, err := Encrypt(bytes.NewReader(pt), &ct, opt); err != nil {
				t.Fatal(err)
			}
			var sink slowBuffer
			out := &scribbler{AsyncWriter: iobuf.NewAsyncWriter(&sink)}
			res, err := Decrypt(bytes.NewReader(ct.Bytes()), out, DecryptOptions{Keys: secretKeys{privs: privs}, Signers: entityKeys{signer}})
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil || !bytes.Equal(sink.Bytes(), pt) {
				t.Fatalf("signed %v, %d bytes: %v, %d bytes out", signed, size, err, sink.Len())
			}
			if size > 4<<20 && out.lent == 0 {
				t.Fatalf("signed %v, %d bytes: nothing was lent", signed, size)
			}
			if signed && (len(res.Signatures) != 1 || res.Signatures[0].Status != SigGood) {
				t.Fatalf("signed, %d bytes: %+v", size, res.Signatures)
			}
		}
	}
}
