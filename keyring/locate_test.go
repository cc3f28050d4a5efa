package keyring

import (
	"bytes"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/clock"
)

// TestBestForAddress makes five keys for one address, shaped as GnuPG's
// key-selection test's are, and imports every non-empty set of them in
// the order below (least relevant first): the ranking getkey.c states
// (and GnuPG's test expects of its own keys) takes the last of the set
// each time. Each key is made at its own faked time.
func TestBestForAddress(t *testing.T) {
	now := time.Date(2004, 1, 1, 0, 0, 0, 0, time.UTC)
	defer clock.Reset()
	keys := []struct {
		what    string
		created time.Time
		usage   string    // "sign": no encryption subkey
		expires time.Time // zero: never
	}{
		{"no encryption subkey, the newest key", now.AddDate(0, -1, 0), "sign", time.Time{}},
		{"an encryption subkey, the key expired", now.AddDate(-3, 0, 0), "", now.AddDate(-2, 0, 0)},
		{"an encryption subkey made two years ago", now.AddDate(-2, 0, 0), "", time.Time{}},
		{"an encryption subkey made a year ago", now.AddDate(-1, 0, 0), "", now.AddDate(2, 0, 0)},
		{"an encryption subkey made seven months ago", now.AddDate(0, -7, 0), "", now.AddDate(1, 0, 0)},
	}
	certs := make([][]byte, len(keys))
	fprs := make([]string, len(keys))
	for i, k := range keys {
		r, err := OpenWith(t.TempDir(), Options{GnuPGHome: "-"})
		if err != nil {
			t.Fatal(err)
		}
		clock.Set(k.created, true)
		g, err := r.Generate(GenOptions{UserID: "Acdipr <acdipr@example.org>", Algo: "ed25519", Usage: k.usage, Expires: k.expires, AllowDuplicate: true})
		clock.Reset()
		if err != nil {
			t.Fatalf("%s: %v", k.what, err)
		}
		var b bytes.Buffer
		if err := r.Export(&b, nil, false, false); err != nil {
			t.Fatal(err)
		}
		certs[i], fprs[i] = b.Bytes(), g.Fingerprint()
	}
	for set := 1; set < 1<<len(keys); set++ {
		r, err := OpenWith(t.TempDir(), Options{GnuPGHome: "-"})
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		for i := range keys {
			if set&(1<<i) == 0 {
				continue
			}
			if _, err := r.Import(bytes.NewReader(certs[i])); err != nil {
				t.Fatalf("%s: %v", keys[i].what, err)
			}
			want = fprs[i]
		}
		found, err := r.Select([]string{"<acdipr@example.org>"}, false)
		if err != nil {
			t.Fatal(err)
		}
		best := r.BestForAddress(found, "acdipr@example.org", ModelPGP, now)
		if best == nil || best.Fingerprint() != want {
			t.Errorf("set %05b: got %v, want %s", set, best, want)
		}
	}
	if r, _ := OpenWith(t.TempDir(), Options{GnuPGHome: "-"}); r.BestForAddress(nil, "acdipr@example.org", ModelPGP, now) != nil {
		t.Error("a key from no keys")
	}
}
