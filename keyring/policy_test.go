package keyring

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// sigBody builds a v4 signature body with the given type, hash, creation
// time and issuer fingerprint (nil: none); the signature value is junk.
func sigBody(typ, hash byte, created time.Time, issuer []byte) []byte {
	var hashed []byte
	var ct [4]byte
	binary.BigEndian.PutUint32(ct[:], uint32(created.Unix()))
	hashed = append(hashed, 5, 2)
	hashed = append(hashed, ct[:]...)
	if issuer != nil {
		hashed = append(hashed, byte(2+len(issuer)), 33, 4)
		hashed = append(hashed, issuer...)
	}
	b := []byte{4, typ, 22, hash, byte(len(hashed) >> 8), byte(len(hashed))}
	b = append(b, hashed...)
	b = append(b, 0, 0)       // no unhashed subpackets
	b = append(b, 0xab, 0xcd) // hash prefix
	b = append(b, 0, 8, 0x80) // one 8-bit MPI
	return b
}

func TestFilterSignatures(t *testing.T) {
	r := openRing(t)
	importFile(t, r, fixtures+"/gpg-ed25519-pub.asc")
	k := r.keys[0]
	own := k.ent.PrimaryKey.Fingerprint
	other := make([]byte, 20)
	now := time.Now()
	base := k.pub.clone()
	n := len(base.uids[0].sigs)
	nPrimary := len(base.primary.sigs)
	build := func() *block {
		b := base.clone()
		uid := &b.uids[0]
		add := func(body []byte) { uid.sigs = append(uid.sigs, rawPacket{tag: tagSignature, body: body}) }
		add(sigBody(0x10, 8, now, other))                                                                                                     // a certification by another key: kept
		add(sigBody(0x13, 8, now, own))                                                                                                       // claims to be the key's own: kept (go-crypto checks it)
		add(sigBody(0x13, 8, now, own))                                                                                                       // the same bytes again: kept once
		add(sigBody(0x30, 8, now, other))                                                                                                     // its revocation by the other key: kept
		add(localSigBody(0x10, now, other))                                                                                                   // a local certification: dropped unless asked for
		add([]byte{4, 0x10})                                                                                                                  // does not parse: dropped
		b.subs = append(b.subs, component{pkt: base.primary.pkt, sigs: []rawPacket{{tag: tagSignature, body: sigBody(0x18, 8, now, other)}}}) // another key binding a subkey: dropped
		b.primary.sigs = append(b.primary.sigs,
			rawPacket{tag: tagSignature, body: sigBody(0x20, 8, now, other)}, // a designated revoker's key revocation: kept
			rawPacket{tag: tagSignature, body: sigBody(0x10, 8, now, other)}) // a certification of no user ID: dropped
		return b
	}
	for _, tc := range []struct {
		name    string
		opt     ImportOptions
		uidSigs int
	}{
		{"file", ImportOptions{}, n + 3},
		{"local sigs", ImportOptions{LocalSigs: true}, n + 4},
		{"self-sigs-only", ImportOptions{SelfSigsOnly: true}, n + 1},
	} {
		b := build()
		if err := filterSignatures(b, tc.opt); err != nil {
			t.Fatal(err)
		}
		if got := len(b.uids[0].sigs); got != tc.uidSigs {
			t.Errorf("%s: user ID signatures kept: %d, want %d", tc.name, got, tc.uidSigs)
		}
		if got := len(b.primary.sigs); got != nPrimary+1 {
			t.Errorf("%s: direct signatures kept: %d, want %d (the revocation)", tc.name, got, nPrimary+1)
		}
		if got := len(b.subs[len(b.subs)-1].sigs); got != 0 {
			t.Errorf("%s: another key's subkey binding kept", tc.name)
		}
	}
}

// localSigBody is sigBody with a hashed exportable certification
// subpacket saying no.
func localSigBody(typ byte, created time.Time, issuer []byte) []byte {
	b := sigBody(typ, 8, created, issuer)
	n := int(b[4])<<8 | int(b[5])
	hashed := append(append([]byte(nil), b[6:6+n]...), 2, 0x84, 0)
	out := append([]byte{b[0], b[1], b[2], b[3], byte(len(hashed) >> 8), byte(len(hashed))}, hashed...)
	return append(out, b[6+n:]...)
}

func TestBoundCertifications(t *testing.T) {
	r := openRing(t)
	importFile(t, r, fixtures+"/gpg-ed25519-pub.asc")
	b := r.keys[0].pub.clone()
	n := len(b.uids[0].sigs)
	friend := make([]byte, 20)
	friend[0] = 1
	stranger := func(i int) []byte { f := make([]byte, 20); f[1], f[2] = byte(i), byte(i>>8); return f }
	now := time.Now()
	for i := 0; i < maxCertifications+10; i++ {
		b.uids[0].sigs = append(b.uids[0].sigs, rawPacket{tag: tagSignature, body: sigBody(0x10, 8, now, stranger(i+2))})
	}
	b.uids[0].sigs = append(b.uids[0].sigs, rawPacket{tag: tagSignature, body: sigBody(0x10, 8, now, friend)})
	known := func(s *pgppacket.Signature) bool { return bytes.Equal(s.IssuerFingerprint, friend) }
	dropped, err := boundCertifications(b, known)
	if err != nil {
		t.Fatal(err)
	}
	if dropped != 11 || len(b.uids[0].sigs) != n+maxCertifications {
		t.Fatalf("dropped %d, kept %d; want 11 dropped, %d kept", dropped, len(b.uids[0].sigs), n+maxCertifications)
	}
	last := b.uids[0].sigs[len(b.uids[0].sigs)-1]
	if s, _ := pgppacket.ParseSignature(last.body, -1); !bytes.Equal(s.IssuerFingerprint, friend) {
		t.Error("the certification by a key of the ring was dropped for a stranger's")
	}
	if s, _ := pgppacket.ParseSignature(b.uids[0].sigs[n].body, -1); !bytes.Equal(s.IssuerFingerprint, stranger(2)) {
		t.Error("the strangers' certifications are not kept in their order")
	}
}

func TestCheckBounds(t *testing.T) {
	b := &block{primary: component{pkt: rawPacket{tag: tagPublicKey, body: make([]byte, 10)}}}
	for i := 0; i < maxCertPackets-1; i++ {
		b.primary.sigs = append(b.primary.sigs, rawPacket{tag: tagSignature, body: []byte{byte(i)}})
	}
	if err := checkBounds(b); err != nil {
		t.Fatalf("at the bound: %v", err)
	}
	b.primary.sigs = append(b.primary.sigs, rawPacket{tag: tagSignature})
	if err := checkBounds(b); err == nil {
		t.Fatal("one packet over the bound accepted")
	}
	b = &block{primary: component{pkt: rawPacket{tag: tagPublicKey, body: make([]byte, maxCertBytes+1)}}}
	if err := checkBounds(b); err == nil {
		t.Fatal("one byte over the bound accepted")
	}
}

func TestArgon2Bounds(t *testing.T) {
	spec := func(passes, par, mem byte) []byte {
		s := append([]byte{4}, make([]byte, 16)...)
		return append(s, passes, par, mem)
	}
	for _, c := range []struct {
		s  []byte
		ok bool
	}{
		{spec(1, 4, 21), true},
		{spec(16, 4, 16), true},
		{spec(1, 4, 22), false},
		{spec(1, 4, 31), false},
		{spec(17, 1, 10), false},
		{spec(255, 1, 3), false},
		{[]byte{3, 8, 1, 2, 3, 4, 5, 6, 7, 8, 255}, true}, // iterated and salted: bounded by its encoding
		{nil, true},
	} {
		err := checkS2KSpec(c.s)
		if (err == nil) != c.ok {
			t.Errorf("checkS2KSpec(%x) = %v", c.s, err)
		}
	}
	if err := checkS2KSpec([]byte{4, 1, 2}); !errors.Is(err, ErrMalformed) {
		t.Errorf("truncated Argon2 parameters: %v", err)
	}
}

func TestPolicyViewSHA1(t *testing.T) {
	after, before := SHA1SelfSigCutoff, SHA1SelfSigCutoff.Add(-time.Second)
	b := &block{primary: component{pkt: rawPacket{tag: tagPublicKey}}}
	b.primary.sigs = []rawPacket{
		{tag: tagSignature, body: sigBody(0x1f, 2, after, nil)},  // weak: damaged
		{tag: tagSignature, body: sigBody(0x1f, 2, before, nil)}, // older: as is
		{tag: tagSignature, body: sigBody(0x20, 2, after, nil)},  // revocation: as is
		{tag: tagSignature, body: sigBody(0x1f, 8, after, nil)},  // SHA-256: as is
	}
	v := policyView(b, false)
	for i, want := range []bool{true, false, false, false} {
		changed := string(v.primary.sigs[i].body) != string(b.primary.sigs[i].body)
		if changed != want {
			t.Errorf("signature %d: changed %v, want %v", i, changed, want)
		}
	}
	if string(b.primary.sigs[0].body) != string(sigBody(0x1f, 2, after, nil)) {
		t.Error("the stored signature was modified")
	}
	if policyView(b, true) != b {
		t.Error("allowWeak changed the view")
	}
}

func TestLockSerialises(t *testing.T) {
	home := t.TempDir()
	unlock, err := lockHome(home)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan func(), 1)
	go func() {
		u, err := lockHome(home)
		if err != nil {
			t.Error(err)
		}
		got <- u
	}()
	select {
	case <-got:
		t.Fatal("a second writer took the lock while it was held")
	case <-time.After(100 * time.Millisecond):
	}
	unlock()
	select {
	case u := <-got:
		u()
	case <-time.After(10 * time.Second):
		t.Fatal("the second writer did not get the lock after it was released")
	}
}
