package keyring

import (
	"os"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
)

// The keygrips gpg 2.2 (libgcrypt 1.10) prints with --with-keygrip for
// the keys in testdata/keygrip_gpg.asc: Ed25519 + Cv25519, RSA 2048 +
// RSA 2048, NIST P-256 + P-256.
func TestKeygripMatchesGnuPG(t *testing.T) {
	want := []string{
		"D2C5D570FCAB898E4AE8C1A253D3959E8AB24901", "0B0C384C971D17E7B7DAF5B8CB10886E27711209",
		"DF30A04031E29E407232EBF3D9B05D0F5458F75D", "D33D1AA6E81A7154E4CE2889A43C7E72D131C309",
		"EF0FA3F013109E45F8729487BAE50B882A279E15", "0DD4F270A44155AC39BA09826095A1137C037E4E",
	}
	f, err := os.Open("testdata/keygrip_gpg.asc")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	el, err := openpgp.ReadArmoredKeyRing(f)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range el {
		got = append(got, KeygripHex(e.PrimaryKey))
		for _, s := range e.Subkeys {
			got = append(got, KeygripHex(s.PublicKey))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d keygrips, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("key %d: keygrip %s, gpg says %s", i, got[i], want[i])
		}
	}
}
