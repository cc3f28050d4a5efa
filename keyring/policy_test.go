package keyring

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"
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

func TestStripThirdParty(t *testing.T) {
	r := openRing(t)
	importFile(t, r, fixtures+"/gpg-ed25519-pub.asc")
	k := r.keys[0]
	own := k.ent.PrimaryKey.Fingerprint
	other := make([]byte, 20)
	now := time.Now()
	b := k.pub.clone()
	uid := &b.uids[0]
	n := len(uid.sigs)
	add := func(typ byte, issuer []byte) {
		uid.sigs = append(uid.sigs, rawPacket{tag: tagSignature, body: sigBody(typ, 8, now, issuer)})
	}
	add(0x10, other)                                                                                          // a stranger's certification: dropped
	add(0x13, own)                                                                                            // claims to be the key's own: kept (go-crypto checks it)
	add(0x13, own)                                                                                            // the same bytes again: kept once
	add(0x30, other)                                                                                          // a stranger revoking their certification: dropped
	b.primary.sigs = append(b.primary.sigs, rawPacket{tag: tagSignature, body: sigBody(0x20, 8, now, other)}) // a designated revoker's key revocation: kept
	nPrimary := len(b.primary.sigs)
	uid.sigs = append(uid.sigs, rawPacket{tag: tagSignature, body: []byte{4, 0x10}}) // does not parse: dropped
	if err := stripThirdParty(b); err != nil {
		t.Fatal(err)
	}
	if got := len(b.uids[0].sigs); got != n+1 {
		t.Errorf("user ID signatures after stripping: %d, want %d", got, n+1)
	}
	if got := len(b.primary.sigs); got != nPrimary {
		t.Errorf("direct signatures after stripping: %d, want %d (revocation kept)", got, nPrimary)
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
