package keyring

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestBestForAddress takes GnuPG's key-selection keys, every non-empty
// set of them imported in the order below (least relevant first), and
// expects gpg's choice at 2004-01-01: the last of the set.
func TestBestForAddress(t *testing.T) {
	keys := []struct{ fpr, file, what string }{
		{"ED087E9D3394340738E20A244892A3CF8F65EBAC", "4.asc", "no encryption subkey, created 2003-11-30"},
		{"D7388651A1B7466D03B538428178E04B0BAA385B", "0.asc", "encryption subkey created 2000-12-31, key expired 2001-12-31"},
		{"DDEF1BEC66C8BAC8D69CED2AEABED840EC98B024", "1.asc", "encryption subkey created 2001-12-31"},
		{"03FCFEDE014027DD897AD2F23D32670A96A9C2BF", "2.asc", "encryption subkey created 2002-12-31"},
		{"B95BD6175CB6339244355BA160B8117E6119CED6", "3.asc", "encryption subkeys, the last created 2003-05-31"},
	}
	at := time.Date(2004, 1, 1, 0, 0, 0, 0, time.UTC)
	for set := 1; set < 1<<len(keys); set++ {
		r, err := OpenWith(t.TempDir(), Options{GnuPGHome: "-"})
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		for i, k := range keys {
			if set&(1<<i) == 0 {
				continue
			}
			f, err := os.Open(filepath.Join("testdata", "key-selection", k.file))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Import(f); err != nil {
				t.Fatalf("%s: %v", k.file, err)
			}
			f.Close()
			want = k.fpr
		}
		found, err := r.Select([]string{"<acdipr@example.org>"}, false)
		if err != nil {
			t.Fatal(err)
		}
		best := r.BestForAddress(found, "acdipr@example.org", ModelPGP, at)
		if best == nil || best.Fingerprint() != want {
			t.Errorf("set %05b: got %v, want %s", set, best, want)
		}
	}
	if r, _ := OpenWith(t.TempDir(), Options{GnuPGHome: "-"}); r.BestForAddress(nil, "acdipr@example.org", ModelPGP, at) != nil {
		t.Error("a key from no keys")
	}
}
