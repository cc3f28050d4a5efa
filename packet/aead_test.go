package packet

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pgpstream/pgpstream/iobuf"
)

func TestReadAEADData(t *testing.T) {
	iv := bytes.Repeat([]byte{0xaa}, 15)
	good := AEADData{Version: 1, Cipher: CipherAES256, AEAD: AEADOCB, ChunkByte: 16, IV: iv}.Append(nil)
	r := iobuf.NewReader(bytes.NewReader(append(good, 1, 2, 3)), 0)
	a, err := ReadAEADData(r, 0)
	if err != nil || a.Cipher != CipherAES256 || a.AEAD != AEADOCB || a.ChunkByte != 16 || !bytes.Equal(a.IV, iv) {
		t.Fatalf("%+v %v", a, err)
	}
	if rest, _ := r.Peek(3); !bytes.Equal(rest, []byte{1, 2, 3}) {
		t.Fatalf("consumed wrong: %x", rest)
	}
	bad := func(b []byte) error {
		_, err := ReadAEADData(iobuf.NewReader(bytes.NewReader(b), 0), 0)
		return err
	}
	var se *StructuralError
	var ue *UnsupportedError
	if err := bad([]byte{1, 9, 2, 17}); !errors.As(err, &se) {
		t.Errorf("chunk octet 17: %v", err)
	}
	if err := bad([]byte{2, 9, 2, 16}); !errors.As(err, &ue) {
		t.Errorf("version 2: %v", err)
	}
	if err := bad([]byte{1, 9, 3, 16}); !errors.As(err, &ue) {
		t.Errorf("GCM in tag 20: %v", err)
	}
	if err := bad([]byte{1, 3, 2, 16}); !errors.As(err, &ue) {
		t.Errorf("64-bit cipher: %v", err)
	}
	for _, n := range []int{0, 3, 4, 18} {
		if err := bad(good[:n]); !errors.Is(err, ErrTruncated) {
			t.Errorf("cut to %d: %v", n, err)
		}
	}
	if ChunkSize(0) != 64 || ChunkSize(16) != 4<<20 {
		t.Fatal("chunk sizes")
	}
}

func parseSKESKPacket(t *testing.T, pkt []byte) *SKESK {
	t.Helper()
	r := iobuf.NewReader(bytes.NewReader(pkt), 0)
	h, err := ReadHeader(r)
	if err != nil || h.Tag != TagSKESK {
		t.Fatalf("%v %v", h, err)
	}
	body, err := NewBody(r, h).ReadAll(1 << 10)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSKESK(body, 0)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSKESKv5(t *testing.T) {
	key := bytes.Repeat([]byte{0x11}, 16)
	for _, mode := range []AEADAlgo{AEADOCB, AEADEAX} {
		var buf bytes.Buffer
		if err := WriteSKESKv5(&buf, CipherAES128, mode, key, []byte("pw"), 1024); err != nil {
			t.Fatal(err)
		}
		s := parseSKESKPacket(t, buf.Bytes())
		if s.Version != 5 || s.Cipher != CipherAES128 {
			t.Fatalf("%+v", s)
		}
		got, c, err := s.Decrypt([]byte("pw"))
		if err != nil || !bytes.Equal(got, key) || c != CipherAES128 {
			t.Fatalf("%v: %x %v %v", mode, got, c, err)
		}
		if _, _, err := s.Decrypt([]byte("wrong")); err == nil {
			t.Fatalf("%v: wrong passphrase accepted", mode)
		}
	}
	if err := WriteSKESKv5(new(bytes.Buffer), CipherAES128, AEADGCM, key, []byte("pw"), 1024); err == nil {
		t.Fatal("GCM SKESK v5 written")
	}
	// GnuPG 2.4.8's SKESK v5 (OCB, iterated S2K), the first packet of sym-aead-1000.gpg.
	msg, err := os.ReadFile(filepath.Join("..", "testdata", "aead", "sym-aead-1000.gpg"))
	if err != nil {
		t.Fatal(err)
	}
	s := parseSKESKPacket(t, msg)
	got, c, err := s.Decrypt([]byte("interop"))
	if err != nil || len(got) != 32 || c != CipherAES256 {
		t.Fatalf("GnuPG SKESK v5: %d-byte key, %v, %v", len(got), c, err)
	}
}
