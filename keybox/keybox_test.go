package keybox

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

// gpgHome makes a home with real gpg holding the kinds of key a user
// has: ed25519 with a cv25519 subkey, RSA, NIST P-256 with an ECDH
// subkey, a revoked key, and one deleted again (an empty blob or a
// rewritten file, as gpg does it).
func gpgHome(t *testing.T) (*gnupgtest.Home, []byte) {
	h := gnupgtest.New(t)
	h.GenKey("Ed <ed@example.org>", "ed25519", "cv25519", "")
	h.GenKey("Rsa <rsa@example.org>", "rsa2048", "", "")
	h.GenKey("P256 <p256@example.org>", "nistp256", "nistp256", "")
	rev := h.GenKey("Revoked <rev@example.org>", "ed25519", "", "")
	gone := h.GenKey("Gone <gone@example.org>", "ed25519", "", "")
	h.Run(nil, "gpg", "--batch", "--yes", "--delete-secret-and-public-key", gone)
	cert, err := os.ReadFile(filepath.Join(h.Dir, "openpgp-revocs.d", rev+".rev"))
	if err != nil {
		t.Fatal(err)
	}
	// gpg writes the certificate with its armor lines escaped by ':'.
	h.Run(bytes.ReplaceAll(cert, []byte("\n:-----"), []byte("\n-----")), "gpg", "--batch", "--import")
	data, err := os.ReadFile(filepath.Join(h.Dir, "pubring.kbx"))
	if err != nil {
		t.Fatal(err)
	}
	return h, data
}

func TestGnuPGHome(t *testing.T) {
	h, data := gpgHome(t)
	f, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if f.Header.Flags&2 == 0 {
		t.Errorf("header flags %#x: gpg sets bit 1 for OpenPGP", f.Header.Flags)
	}
	var got []string
	for _, b := range f.Blobs {
		for _, k := range b.Keys {
			got = append(got, fmt.Sprintf("%X", k.Fingerprint))
			if k.KeyID != binary.BigEndian.Uint64(k.Fingerprint[12:]) {
				t.Errorf("%X: key ID %016X is not the fingerprint's low 64 bits", k.Fingerprint, k.KeyID)
			}
		}
	}
	want := h.Fingerprints()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("fingerprints\n got %v\nwant %v (gpg --list-keys --with-colons)", got, want)
	}

	// The keyblocks parse as OpenPGP keys, with the index's keys and
	// user IDs, and the revoked key is revoked.
	revoked := 0
	for _, b := range f.Blobs {
		ents, err := v2.ReadKeyRing(bytes.NewReader(b.Packets()))
		if err != nil || len(ents) != 1 {
			t.Fatalf("blob at %d: %d entities, %v", b.Offset, len(ents), err)
		}
		e := ents[0]
		if !bytes.Equal(e.PrimaryKey.Fingerprint, b.Keys[0].Fingerprint[:]) || len(e.Subkeys)+1 != len(b.Keys) {
			t.Errorf("blob at %d: keyblock's key %X with %d subkeys, index %X with %d keys", b.Offset, e.PrimaryKey.Fingerprint, len(e.Subkeys), b.Keys[0].Fingerprint, len(b.Keys))
		}
		for _, u := range b.UserIDs {
			if _, ok := e.Identities[string(u.Name)]; !ok {
				t.Errorf("blob at %d: index user ID %q is not in the keyblock", b.Offset, u.Name)
			}
		}
		if len(e.Revocations) > 0 {
			revoked++
			if !strings.Contains(string(b.UserIDs[0].Name), "Revoked") {
				t.Errorf("%q is revoked", b.UserIDs[0].Name)
			}
		}
		if bytes.Contains(b.Packets(), []byte("gpg\x01")) && !bytes.Contains(b.Keyblock, []byte("gpg")) {
			t.Errorf("Packets added bytes")
		}
	}
	if revoked != 1 {
		t.Errorf("%d revoked keys, want 1", revoked)
	}
	if f.Skipped == 0 && len(data) > 0 {
		// gpg 2.2 turns a deleted key's blob into an empty one, or
		// rewrites the file: both are fine, but note which.
		t.Logf("no skipped blobs: gpg rewrote the file on deletion")
	}
}

// TestEmptyBlob checks that a blob turned empty (type 0), as gpg leaves a
// deleted key, and an ephemeral blob are skipped, not errors.
func TestSkippedBlobs(t *testing.T) {
	data := minimalKeybox(t)
	f, err := Parse(data)
	if err != nil || len(f.Blobs) != 1 {
		t.Fatalf("minimal keybox: %v, %d blobs", err, len(f.Blobs))
	}
	for _, tc := range []struct {
		name string
		edit func(blob []byte)
	}{
		{"empty", func(b []byte) { b[4] = typeEmpty }},
		{"x509", func(b []byte) { b[4] = typeX509 }},
		{"ephemeral", func(b []byte) { b[7] |= flagEphemeral; resum(b) }},
	} {
		d := bytes.Clone(data)
		tc.edit(d[headerBlobLen:])
		f, err := Parse(d)
		if err != nil || len(f.Blobs) != 0 || f.Skipped != 1 {
			t.Errorf("%s blob: %v, %d blobs, %d skipped", tc.name, err, len(f.Blobs), f.Skipped)
		}
	}
}

// minimalKeybox is a header and one OpenPGP blob holding a v4 key made
// here, laid out as gpg lays it out.
func minimalKeybox(t testing.TB) []byte {
	ent, err := v2.NewEntity("T", "", "t@example.org", nil)
	if err != nil {
		t.Fatal(err)
	}
	var kb bytes.Buffer
	if err := ent.Serialize(&kb); err != nil {
		t.Fatal(err)
	}
	return appendBlob(header(), ent.PrimaryKey.Fingerprint, kb.Bytes())
}

func header() []byte {
	h := make([]byte, headerBlobLen)
	binary.BigEndian.PutUint32(h, headerBlobLen)
	h[4], h[5], h[7] = typeHeader, 1, 2
	copy(h[8:], "KBXf")
	return h
}

// appendBlob lays out an OpenPGP blob with one key and no user IDs.
func appendBlob(dst, fpr, keyblock []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, 0) // length, below
	b = append(b, typeOpenPGP, 1, 0, 0)
	b = binary.BigEndian.AppendUint32(b, 0) // keyblock offset, below
	b = binary.BigEndian.AppendUint32(b, uint32(len(keyblock)))
	b = binary.BigEndian.AppendUint16(b, 1)
	b = binary.BigEndian.AppendUint16(b, keyInfoMin)
	b = append(b, fpr...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(b)-8))
	b = append(b, 0, 0, 0, 0)
	b = append(b, 0, 0)        // serial
	b = append(b, 0, 0, 0, 12) // no user IDs
	b = append(b, 0, 0, 0, 4)  // no signatures
	b = append(b, make([]byte, 4+4+4+4+4)...)
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)))
	b = append(b, keyblock...)
	b = append(b, make([]byte, checksumLen)...)
	binary.BigEndian.PutUint32(b, uint32(len(b)))
	resum(b)
	return append(dst, b...)
}

func resum(b []byte) {
	s := sha1.Sum(b[:len(b)-checksumLen])
	copy(b[len(b)-checksumLen:], s[:])
}

func TestMalformed(t *testing.T) {
	good := minimalKeybox(t)
	blob := func(edit func(b []byte) []byte) []byte {
		d := bytes.Clone(good)
		return append(d[:headerBlobLen:headerBlobLen], edit(d[headerBlobLen:])...)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"short", good[:3], "less than a blob header"},
		{"no header", good[headerBlobLen:], "not the header blob"},
		{"magic", func() []byte { d := bytes.Clone(good); d[8] = 'X'; return d }(), "magic"},
		{"truncated", good[:len(good)-1], "only"},
		{"length 0", blob(func(b []byte) []byte { binary.BigEndian.PutUint32(b, 0); return b }), "less than its header"},
		{"huge", blob(func(b []byte) []byte { binary.BigEndian.PutUint32(b, 1<<30); return b }), "gpg's limit"},
		{"checksum", blob(func(b []byte) []byte { b[len(b)-checksumLen-1] ^= 1; return b }), "checksum"},
		{"keyblock offset", blob(func(b []byte) []byte { binary.BigEndian.PutUint32(b[8:], 1<<20); resum(b); return b }), "runs past"},
		{"no keys", blob(func(b []byte) []byte { b[17] = 0; resum(b); return b }), "no keys"},
		{"key info", blob(func(b []byte) []byte { b[19] = 4; resum(b); return b }), "key information"},
		{"fingerprint", blob(func(b []byte) []byte { b[20] ^= 1; resum(b); return b }), "index fingerprint"},
		{"version", blob(func(b []byte) []byte { b[5] = 9; resum(b); return b }), "version 9"},
		{"type", blob(func(b []byte) []byte { b[4] = 7; return b }), "unknown blob type"},
	} {
		_, err := Parse(tc.data)
		if err == nil || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrMalformed with %q", tc.name, err, tc.want)
		}
	}
	if f, err := Parse(nil); err != nil || len(f.Blobs) != 0 {
		t.Errorf("empty file: %v", err)
	}
}

// TestDamagedKeepsWhatCameBefore checks that a keybox cut short or with
// bytes appended gives the blobs before the damage, with the offset.
func TestDamagedKeepsWhatCameBefore(t *testing.T) {
	good := minimalKeybox(t)
	two := append(bytes.Clone(good), good[headerBlobLen:]...)
	for _, tc := range []struct {
		name string
		data []byte
		at   int64
	}{
		{"cut in the second blob", two[:len(two)-10], int64(len(good))},
		{"garbage appended", append(bytes.Clone(two), "garbage garbage\n"...), int64(len(two))},
		{"a zero appended", append(bytes.Clone(good), 0), int64(len(good))},
	} {
		f, err := Parse(tc.data)
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Offset != tc.at {
			t.Errorf("%s: %v, want a FormatError at %d", tc.name, err, tc.at)
			continue
		}
		if want := int(tc.at-headerBlobLen) / (len(good) - headerBlobLen); f == nil || len(f.Blobs) != want {
			t.Errorf("%s: %v blobs before the damage, want %d", tc.name, f, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(minimalKeybox(f))
	f.Add(header())
	f.Fuzz(func(t *testing.T, data []byte) {
		kb, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		for _, b := range kb.Blobs {
			b.Packets()
		}
	})
}
