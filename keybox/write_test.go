package keybox

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"

	"github.com/pgpstream/pgpstream/armor"
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

// pkt is one packet with a new-format header (RFC 9580 section 4.2.1).
func pkt(tag byte, body []byte) []byte {
	h := []byte{0xc0 | tag}
	switch n := len(body); {
	case n < 192:
		h = append(h, byte(n))
	case n < 8384:
		h = append(h, byte((n-192)>>8+192), byte(n-192))
	default:
		h = append(h, 255, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(h, body...)
}

// keyBody is a key packet body of the given version, as long as n; only
// its first byte matters to the blob's index.
func keyBody(version byte, n int) []byte {
	b := make([]byte, n)
	b[0] = version
	return b
}

// Each keyblock a version 1 blob cannot hold is refused for its own
// reason, by CheckKeyblock with the same error as EncodeBlob.
func TestEncodeRefuses(t *testing.T) {
	v4 := pkt(6, keyBody(4, 12))
	uid := pkt(13, []byte("x"))
	sig := pkt(2, []byte{4, 0x13})
	cases := []struct {
		name     string
		keyblock []byte
		want     error  // wrapped, when there is a sentinel
		msg      string // in the error, else
	}{
		{"empty", nil, nil, "empty keyblock"},
		{"a user ID first", pkt(13, []byte("x")), nil, "begins with a user ID packet"},
		{"a secret key", pkt(5, keyBody(4, 12)), nil, "begins with a secret key packet"},
		{"a v6 key", pkt(6, keyBody(6, 12)), ErrUnsupportedKey, "a version 6 key"},
		{"a v5 key", pkt(6, keyBody(5, 12)), ErrUnsupportedKey, "a version 5 key"},
		{"a v3 key", pkt(6, keyBody(3, 12)), ErrUnsupportedKey, "a version 3 key"},
		{"an empty key packet", pkt(6, nil), ErrUnsupportedKey, "a version 0 key"},
		{"a v6 subkey", concat(v4, uid, sig, pkt(14, keyBody(6, 12))), ErrUnsupportedKey, "a version 6 key"},
		{"a key body over 65535 bytes", pkt(6, keyBody(4, 0x10000)), ErrUnsupportedKey, "a version 4 key"},
		{"a second primary key", concat(v4, uid, v4), nil, "second primary key"},
		{"a packet cut short", concat(v4, uid, sig)[:len(v4)+2], nil, "keyblock:"},
		{"over gpg's 5 MB", concat(v4, pkt(13, make([]byte, maxBlobLen))), nil, "over gpg's limit"},
	}
	for _, c := range cases {
		_, encErr := EncodeBlob(c.keyblock, 0)
		checkErr := CheckKeyblock(c.keyblock)
		switch {
		case encErr == nil:
			t.Errorf("%s: encoded", c.name)
		case c.want != nil && !errors.Is(encErr, c.want), !strings.Contains(encErr.Error(), c.msg):
			t.Errorf("%s: %v, want %v with %q", c.name, encErr, c.want, c.msg)
		case checkErr == nil || checkErr.Error() != encErr.Error():
			t.Errorf("%s: CheckKeyblock says %v, EncodeBlob %v", c.name, checkErr, encErr)
		}
	}
	// gpg's old comment packets, tagged as subkeys, are no keys; the
	// largest blob gpg takes is taken.
	fits := concat(v4, uid, sig)
	fits = append(fits, pkt(13, make([]byte, maxBlobLen-len(fits)-200))...)
	for _, kb := range [][]byte{concat(v4, pkt(14, []byte("#comment")), uid), fits} {
		if _, err := EncodeBlob(kb, 0); err != nil || CheckKeyblock(kb) != nil {
			t.Errorf("a keyblock of %d bytes: EncodeBlob %v, CheckKeyblock %v", len(kb), err, CheckKeyblock(kb))
		}
	}
}

func concat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

// CheckKeyblock and EncodeBlob agree on the keys of the repository's
// fixtures, public and secret, v4 and v6: each transferable key as a
// keyblock of its own.
func TestCheckKeyblockFixtures(t *testing.T) {
	var files []string
	for _, dir := range []string{"keys", "peers"} {
		m, err := filepath.Glob(filepath.Join("..", "testdata", dir, "*"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	encoded, refused, v6 := 0, 0, 0
	for _, file := range files {
		blocks := fixtureKeyblocks(t, file)
		// A secret key's certificate, as go-crypto serializes it.
		for _, kb := range blocks {
			if h, _, _, err := packet.SplitPacket(kb, 0); err == nil && h.Tag == packet.TagSecretKey {
				ents, err := v2.ReadKeyRing(bytes.NewReader(kb))
				if err != nil {
					continue // locked with a cipher go-crypto refuses, say
				}
				var pub bytes.Buffer
				if err := ents[0].Serialize(&pub); err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				blocks = append(blocks, pub.Bytes())
			}
		}
		for i, kb := range blocks {
			_, encErr := EncodeBlob(kb, 0)
			checkErr := CheckKeyblock(kb)
			if (encErr == nil) != (checkErr == nil) || encErr != nil && encErr.Error() != checkErr.Error() {
				t.Errorf("%s, key %d: CheckKeyblock says %v, EncodeBlob %v", file, i, checkErr, encErr)
			}
			switch {
			case encErr == nil:
				encoded++
			case errors.Is(encErr, ErrUnsupportedKey):
				v6++
				fallthrough
			default:
				refused++
			}
		}
	}
	// The v4 certificates of gpg, rnp and Sequoia are encoded; the v6
	// ones of RFC 9580 and go-crypto, and every secret key, are not.
	if encoded < 10 || refused < 17 || v6 < 3 {
		t.Errorf("%d keyblocks encoded, %d refused (%d as v6 keys): the fixtures lack a kind", encoded, refused, v6)
	}
}

// fixtureKeyblocks is the transferable keys in file, binary or armored,
// cut at each primary key packet; nil for a file that holds no key.
func fixtureKeyblocks(t *testing.T, file string) [][]byte {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if armor.IsArmored(data) {
		r, err := armor.NewReader(bytes.NewReader(data))
		if err != nil || !strings.HasSuffix(r.Type(), "KEY BLOCK") {
			return nil
		}
		if data, err = io.ReadAll(r); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	var blocks [][]byte
	start := -1
	for rest := data; len(rest) > 0; {
		off := len(data) - len(rest)
		h, _, r, err := packet.SplitPacket(rest, int64(off))
		if err != nil {
			return nil // a message, not a key
		}
		if h.Tag == packet.TagPublicKey || h.Tag == packet.TagSecretKey {
			if start >= 0 {
				blocks = append(blocks, data[start:off])
			}
			start = off
		} else if start < 0 {
			return nil
		}
		rest = r
	}
	if start >= 0 {
		blocks = append(blocks, data[start:])
	}
	return blocks
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
		if check := CheckKeyblock(kb); (err == nil) != (check == nil) || err != nil && err.Error() != check.Error() {
			t.Fatalf("CheckKeyblock says %v, EncodeBlob %v", check, err)
		}
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
