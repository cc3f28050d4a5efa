package keyring

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// The ring trust packet of a user ID as gpg 2.2.40 wrote it into
// pubring.gpg for --key-origin wkd,https://example.org/x at 1900000000.
var gpgUIDTrust = append([]byte{0, 0, 'g', 'p', 'g', 2, 4, 0x71, 0x3f, 0xb3, 0x00, 21}, "https://example.org/x"...)

func TestRingTrustPacket(t *testing.T) {
	m, ok := parseRingTrust(gpgUIDTrust, pgppacket.RingTrustUID)
	if want := (meta{org: OriginWKD, update: 1900000000, url: "https://example.org/x"}); !ok || m != want {
		t.Fatalf("parseRingTrust = %+v, %v; want %+v", m, ok, want)
	}
	if p := ringTrustPacket(m, pgppacket.RingTrustUID); p.tag != tagTrust || !bytes.Equal(p.body, gpgUIDTrust) {
		t.Errorf("ringTrustPacket = %x, want gpg's %x", p.body, gpgUIDTrust)
	}
	if _, ok := parseRingTrust(gpgUIDTrust, pgppacket.RingTrustKey); ok {
		t.Error("a user ID's record taken for a key's")
	}
	for _, body := range [][]byte{
		{0, 3, 'g', 'p', 'g', 0},                   // gpg's signature cache
		{0, 0, 'p', 'g', 'p', 2, 4, 0, 0, 0, 1, 0}, // not gpg's
		{0, 0, 'g', 'p', 'g', 2, 4, 0, 0},          // cut short
		{},
	} {
		if m, ok := parseRingTrust(body, pgppacket.RingTrustUID); ok {
			t.Errorf("parseRingTrust(%x) = %+v, want none", body, m)
		}
	}
	// The URL's length is one octet: a longer one is cut, never framed
	// wrong, and a URL longer than the packet says is read as far as it goes.
	long := meta{org: OriginURL, update: 1, url: strings.Repeat("u", 300)}
	p := ringTrustPacket(long, pgppacket.RingTrustKey)
	if m, ok := parseRingTrust(p.body, pgppacket.RingTrustKey); !ok || m.url != long.url[:pgppacket.MaxRingTrustURL] {
		t.Errorf("a 300-octet URL came back as %d octets", len(m.url))
	}
	short := append([]byte(nil), gpgUIDTrust[:len(gpgUIDTrust)-4]...)
	if m, ok := parseRingTrust(short, pgppacket.RingTrustUID); !ok || m.url != "https://example.o" {
		t.Errorf("a truncated URL read as %q, %v", m.url, ok)
	}
}

// TestOriginRules holds insertOrigin and updateOrigin to GnuPG's
// import.c rules.
func TestOriginRules(t *testing.T) {
	const url = "https://example.org/x"
	for _, c := range []struct {
		o        Origin
		key, uid meta
	}{
		{Origin{OriginWKD, url}, meta{org: OriginWKD, update: 10}, meta{org: OriginWKD, update: 10, url: url}},
		{Origin{OriginDANE, ""}, meta{org: OriginDANE, update: 10}, meta{org: OriginDANE, update: 10}},
		{Origin{OriginKS, url}, meta{org: OriginKS, update: 10, url: url}, meta{org: OriginKS, update: 10}},
		{Origin{OriginKS, ""}, meta{}, meta{}},
		{Origin{OriginURL, url}, meta{org: OriginURL, update: 10, url: url}, meta{org: OriginURL, update: 10}},
		{Origin{OriginFile, url}, meta{org: OriginFile, update: 10}, meta{org: OriginFile, update: 10}},
		{Origin{OriginSelf, url}, meta{}, meta{}},
		{Origin{OriginKSPref, url}, meta{}, meta{}},
		{Origin{}, meta{}, meta{}},
	} {
		b := &block{uids: []component{{}}}
		insertOrigin(b, c.o, 10)
		if b.primary.meta != c.key || b.uids[0].meta != c.uid {
			t.Errorf("new key from %+v: key %+v, uid %+v; want %+v, %+v", c.o, b.primary.meta, b.uids[0].meta, c.key, c.uid)
		}
	}

	wkd := meta{org: OriginWKD, update: 10}
	ks := meta{org: OriginKS, update: 10, url: "hkps://ks"}
	for _, c := range []struct {
		had  meta
		o    Origin
		now  uint32
		want meta
	}{
		// The WKD replaces only an unknown origin, or itself.
		{meta{}, Origin{OriginWKD, url}, 20, meta{org: OriginWKD, update: 20, url: url}},
		{wkd, Origin{OriginDANE, url}, 20, meta{org: OriginDANE, update: 20}},
		{ks, Origin{OriginWKD, url}, 20, ks},
		// A keyserver, a URL and a file always replace it.
		{wkd, Origin{OriginKS, ""}, 20, meta{org: OriginKS, update: 20}},
		{ks, Origin{OriginFile, url}, 20, meta{org: OriginFile, update: 20}},
		{ks, Origin{OriginURL, url}, 20, meta{org: OriginURL, update: 20, url: url}},
		// An unknown origin changes nothing, nor does an earlier time.
		{ks, Origin{}, 20, ks},
		{ks, Origin{OriginFile, ""}, 5, ks},
	} {
		b := &block{primary: component{meta: c.had}}
		updateOrigin(b, c.o, c.now)
		if b.primary.meta != c.want {
			t.Errorf("update of %+v from %+v: %+v, want %+v", c.had, c.o, b.primary.meta, c.want)
		}
	}
}

// TestOriginStaysInTheRing: the record survives the ring's file, is in
// no export, and is not taken from imported data.
func TestOriginStaysInTheRing(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	r, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(fixtures, "gpg-ed25519-pub.asc"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ImportWith(bytes.NewReader(data), ImportOptions{Origin: Origin{OriginWKD, "https://example.org/x"}}); err != nil {
		t.Fatal(err)
	}
	ring, err := os.ReadFile(filepath.Join(home, pubringName))
	if err != nil {
		t.Fatal(err)
	}
	if n := countTag(t, ring, tagTrust); n != 2 {
		t.Errorf("pubring.pgp holds %d trust packets, want 2 (the key's, the user ID's)", n)
	}
	if r, err = Open(home); err != nil {
		t.Fatal(err)
	}
	out := listing(t, r, nil, false, true)
	if pub := colonRecords(out, "pub"); len(pub) != 1 || pub[0][19] != "4" || pub[0][18] == "" {
		t.Errorf("pub record after re-reading the ring: %q", pub)
	}
	if uid := colonRecords(out, "uid"); len(uid) == 0 || uid[0][19] != `4 https\x3a//example.org/x` {
		t.Errorf("uid record after re-reading the ring: %q", uid)
	}
	var exp bytes.Buffer
	if err := r.Export(&exp, nil, false, false); err != nil {
		t.Fatal(err)
	}
	if n := countTag(t, exp.Bytes(), tagTrust); n != 0 {
		t.Errorf("the export holds %d trust packets", n)
	}

	other := openRing(t)
	if _, err := other.Import(bytes.NewReader(ring)); err != nil {
		t.Fatal(err)
	}
	out = listing(t, other, nil, false, true)
	for _, typ := range []string{"pub", "uid"} {
		for _, rec := range colonRecords(out, typ) {
			if rec[18] != "" || rec[19] != "0" {
				t.Errorf("%s record of a key imported from another ring's file: %q", typ, rec)
			}
		}
	}
}

func countTag(t *testing.T, data []byte, tag byte) int {
	t.Helper()
	pkts, err := splitPackets(data)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pkts {
		if p.tag == tag {
			n++
		}
	}
	return n
}

// TestRingTrustPlacement: a record is taken only right after the packet
// it describes, and only of the subtype for it, as gpg reads its rings.
func TestRingTrustPlacement(t *testing.T) {
	rec := func(subtype, org byte) rawPacket {
		return rawPacket{tag: tagTrust, body: pgppacket.AppendRingTrust(nil, subtype, org, 1, "")}
	}
	key := rawPacket{tag: tagPublicKey, body: []byte{4}}
	uid := rawPacket{tag: tagUserID, body: []byte("A")}
	sig := rawPacket{tag: tagSignature, body: []byte{4}}
	sub := rawPacket{tag: tagPublicSubkey, body: []byte{4}}
	pkts := []rawPacket{
		key, rec(pgppacket.RingTrustKey, 4), sig,
		uid, sig, rec(pgppacket.RingTrustUID, 5), // after the signature: not the user ID's
		uid, rec(pgppacket.RingTrustKey, 6), // a key's record after a user ID
		uid, rec(pgppacket.RingTrustUID, 7),
		sub, rec(pgppacket.RingTrustKey, 1), // gpg writes none for subkeys
	}
	for _, own := range []bool{true, false} {
		bs, err := groupBlocks(pkts, own)
		if err != nil || len(bs) != 1 || len(bs[0].uids) != 3 || len(bs[0].subs) != 1 {
			t.Fatalf("groupBlocks: %v, %d blocks", err, len(bs))
		}
		b := bs[0]
		got := []OriginKind{b.primary.meta.org, b.uids[0].meta.org, b.uids[1].meta.org, b.uids[2].meta.org, b.subs[0].meta.org}
		want := []OriginKind{4, 0, 0, 7, 0}
		if !own {
			want = []OriginKind{0, 0, 0, 0, 0} // others' data: never taken
		}
		if !slices.Equal(got, want) {
			t.Errorf("ring file %v: origins %v, want %v", own, got, want)
		}
	}
}
