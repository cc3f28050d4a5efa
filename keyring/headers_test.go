package keyring

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp/armor"
)

// A key is exported with the packet headers it was imported with: gpg
// does, and python-gnupg's tests compare the export with the import.
func TestExportKeepsHeaders(t *testing.T) {
	in, err := os.ReadFile(filepath.Join(fixtures, "gpg-rsa3072-pub.asc"))
	if err != nil {
		t.Fatal(err)
	}
	blk, err := armor.Decode(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	want.ReadFrom(blk.Body)
	if want.Bytes()[0]&0x40 != 0 {
		t.Fatal("the fixture should have old-format headers")
	}
	r := openRing(t)
	importFile(t, r, filepath.Join(fixtures, "gpg-rsa3072-pub.asc"))
	// Read back from disk, as the next run sees it.
	r2, err := Open(r.home)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := r2.Export(&got, nil, false, false); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("export (%d bytes, first %#x) differs from the import (%d bytes, first %#x)", got.Len(), got.Bytes()[0], want.Len(), want.Bytes()[0])
	}
}
