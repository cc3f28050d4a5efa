package keybox

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
	"github.com/pgpstream/pgpstream/packet"
)

// Every OpenPGP blob gpg wrote is encoded again byte for byte from its
// keyblock and creation time.
func TestEncodeAsGpg(t *testing.T) {
	_, data := gpgHome(t)
	blobs, err := Split(data)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	byOff := map[int64]RawBlob{}
	for _, rb := range blobs {
		byOff[rb.Offset] = rb
	}
	if len(f.Blobs) < 4 {
		t.Fatalf("%d blobs, want the 4 keys gpgHome makes", len(f.Blobs))
	}
	for _, b := range f.Blobs {
		got, err := EncodeBlob(b.Keyblock, b.Created)
		if err != nil {
			t.Fatalf("blob at %d: %v", b.Offset, err)
		}
		want := byOff[b.Offset]
		if !bytes.Equal(got, want.Data) {
			t.Errorf("blob at %d: encoded\n%x\ngpg wrote\n%x", b.Offset, got, want.Data)
		}
		if !bytes.Equal(want.Fingerprint, b.Keys[0].Fingerprint[:]) {
			t.Errorf("Split's fingerprint %X, Parse's %X", want.Fingerprint, b.Keys[0].Fingerprint)
		}
	}
}

// A keybox made here from keys gpg exported is read by gpg (listing,
// signature checks) and gpgv (a signature verified against it), and by
// Parse.
func TestGpgReadsWritten(t *testing.T) {
	src, _ := gpgHome(t)
	fpr := src.Fingerprints("ed@example.org")[0]
	exported := src.Run(nil, "gpg", "--export")
	msg := src.Run([]byte("signed text\n"), "gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "-u", fpr, "--sign")

	// The keyblocks one by one: the export is each transferable key's
	// packets in a row, cut at each primary key.
	var blocks [][]byte
	start := 0
	for rest := exported; len(rest) > 0; {
		off := len(exported) - len(rest)
		h, _, r, err := splitForTest(rest, off)
		if err != nil {
			t.Fatal(err)
		}
		if h == 6 && off > 0 {
			blocks = append(blocks, exported[start:off])
			start = off
		}
		rest = r
	}
	blocks = append(blocks, exported[start:])
	kbx := HeaderBlob(1700000000)
	for _, b := range blocks {
		blob, err := EncodeBlob(b, 1700000000)
		if err != nil {
			t.Fatal(err)
		}
		kbx = append(kbx, blob...)
	}
	f, err := Parse(kbx)
	if err != nil || len(f.Blobs) != len(blocks) {
		t.Fatalf("Parse of the written keybox: %v, %d blobs", err, len(f.Blobs))
	}

	dst := gnupgtest.New(t)
	path := filepath.Join(dst.Dir, "pubring.kbx")
	if err := os.WriteFile(path, kbx, 0o600); err != nil {
		t.Fatal(err)
	}
	list := string(dst.Run(nil, "gpg", "--with-colons", "--list-keys"))
	for _, want := range src.Fingerprints() {
		if !strings.Contains(list, "fpr:::::::::"+want+":") {
			t.Errorf("gpg --list-keys lacks %s:\n%s", want, list)
		}
	}
	check, err := dst.Try(nil, "gpg", "--batch", "--check-sigs")
	if err != nil {
		t.Fatalf("gpg --check-sigs: %v", err)
	}
	if bytes.Contains(check, []byte("sig-")) || !bytes.Contains(check, []byte("sig!")) {
		t.Errorf("gpg --check-sigs:\n%s", check)
	}
	if out, err := dst.Try(msg, "gpgv", "--keyring", path); err != nil {
		t.Fatalf("gpgv --keyring %s: %v %s", path, err, out)
	}
	// gpg changes the file it read (its own import into it) without
	// complaint, and the result still parses.
	dst.Run(src.Run(nil, "gpg", "--export", fpr), "gpg", "--batch", "--import")
	again, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(again); err != nil {
		t.Fatalf("after gpg --import: %v", err)
	}
}

func splitForTest(b []byte, off int) (tag int, body, rest []byte, err error) {
	h, body, rest, err := packet.SplitPacket(b, int64(off))
	return int(h.Tag), body, rest, err
}

func TestEncodeRefuses(t *testing.T) {
	if _, err := EncodeBlob([]byte{0xb4, 1, 'x'}, 0); err == nil {
		t.Error("a keyblock starting with a user ID was encoded")
	}
	// A v6 public key packet: version 6 needs a 32-byte fingerprint.
	v6 := append([]byte{0xc6, 10, 6}, make([]byte, 9)...)
	if _, err := EncodeBlob(v6, 0); !errors.Is(err, ErrUnsupportedKey) {
		t.Errorf("v6 key: %v, want ErrUnsupportedKey", err)
	}
}

func TestHeaderBlob(t *testing.T) {
	f, err := Parse(HeaderBlob(1234))
	if err != nil || f.Header.Created != 1234 || f.Header.Flags != 2 {
		t.Fatalf("%+v %v", f, err)
	}
}

func FuzzEncodeBlob(f *testing.F) {
	f.Add([]byte{0xc6, 3, 4, 0, 0})
	f.Fuzz(func(t *testing.T, kb []byte) {
		b, err := EncodeBlob(kb, 1)
		if err != nil {
			return
		}
		data := append(HeaderBlob(1), b...)
		p, err := Parse(data)
		if err != nil {
			t.Fatalf("encoded blob does not parse: %v", err)
		}
		if !bytes.Equal(p.Blobs[0].Keyblock, kb) {
			t.Fatal("keyblock changed")
		}
	})
}
