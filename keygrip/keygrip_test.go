package keygrip

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

// TestAgainstGnuPG compares the keygrips of keys gpg made, of every kind
// gpg 2.2 makes, with what gpg --with-keygrip prints.
func TestAgainstGnuPG(t *testing.T) {
	h := gnupgtest.New(t)
	kinds := [][2]string{
		{"ed25519", "cv25519"},
		{"rsa2048", "rsa2048"},
		{"nistp256", "nistp256"},
		{"nistp384", "nistp384"},
		{"nistp521", "nistp521"},
		{"brainpoolP256r1", "brainpoolP256r1"},
		{"dsa1024", "elg1024"},
	}
	if testing.Short() {
		kinds[1][1] = "" // one RSA key is enough
	}
	for _, k := range kinds {
		h.GenKey(k[0]+" <"+k[0]+"@example.org>", k[0], k[1], "")
	}
	ents, err := v2.ReadKeyRing(bytes.NewReader(h.Run(nil, "gpg", "--export")))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		g, err := Of(e.PrimaryKey)
		if err != nil {
			t.Fatalf("%X: %v", e.PrimaryKey.Fingerprint, err)
		}
		got = append(got, g.String())
		for _, s := range e.Subkeys {
			g, err := Of(s.PublicKey)
			if err != nil {
				t.Fatalf("%X: %v", s.PublicKey.Fingerprint, err)
			}
			got = append(got, g.String())
		}
	}
	want := h.Keygrips()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("keygrips of %v\n got %v\nwant %v", kinds, got, want)
	}
}

func TestParse(t *testing.T) {
	g, err := Parse("0BF7DDE52799820851BC5F812F018E4940FFADBB")
	if err != nil || g.String() != "0BF7DDE52799820851BC5F812F018E4940FFADBB" {
		t.Fatalf("%v %v", g, err)
	}
	if _, err := Parse("0BF7"); err == nil {
		t.Fatal("short keygrip parsed")
	}
}

func TestMalformedPackets(t *testing.T) {
	for _, body := range [][]byte{
		nil,
		{4, 0, 0, 0, 0, 1},              // RSA without n
		{4, 0, 0, 0, 0, 1, 0x08, 0},     // n truncated
		{4, 0, 0, 0, 0, 22, 9, 1, 2},    // OID truncated
		{4, 0, 0, 0, 0, 22, 1, 1, 0, 8}, // unknown curve, q truncated
		{3, 0, 0, 0, 0, 1},
		{4, 0, 0, 0, 0, 17, 0, 8, 1},       // DSA: p only
		{4, 0, 0, 0, 0, 16, 0, 8, 1, 0, 8}, // ElGamal: g truncated
	} {
		if _, err := FromPacket(body); err == nil {
			t.Errorf("%x: no error", body)
		}
	}
	if _, err := FromPacket([]byte{4, 0, 0, 0, 0, 26, 0, 8, 1}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("X448: %v, want ErrUnsupported", err)
	}
}
