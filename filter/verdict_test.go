package filter

import (
	"bytes"
	"errors"
	"testing"
	"time"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"

	"github.com/pgpstream/pgpstream/packet"
)

// The verdict on a signature whose mathematics hold is the library's:
// the signature's own expiry, its key's expiry and revocation, and the
// caller's rejected hashes, decided at the time the caller gives, in
// gpg's order of precedence.
func TestSignatureVerdicts(t *testing.T) {
	e := testEntity(t, "ed25519")
	made := time.Now().Truncate(time.Second).Add(time.Minute) // after the key was made
	pt := payload(5000)
	var sig bytes.Buffer
	cfg := &gcpacket.Config{Time: func() time.Time { return made }, SigLifetimeSecs: 3600, DefaultHash: packet.HashSHA256.Crypto()}
	if err := v2.DetachSign(&sig, []*v2.Entity{e}, bytes.NewReader(pt), cfg); err != nil {
		t.Fatal(err)
	}
	keyExpired := made.Add(30 * time.Minute)
	for _, c := range []struct {
		name    string
		at      time.Time
		revoked bool
		expired time.Time
		reject  packet.HashAlgo
		want    SigStatus
	}{
		{name: "good", at: made.Add(time.Minute), want: SigGood},
		{name: "signature expired", at: made.Add(2 * time.Hour), want: SigExpired},
		{name: "key expired", at: made.Add(time.Minute), expired: keyExpired, want: SigKeyExpired},
		{name: "key revoked", at: made.Add(time.Minute), revoked: true, want: SigKeyRevoked},
		{name: "expired key, revoked", at: made.Add(time.Minute), revoked: true, expired: keyExpired, want: SigKeyExpired},
		{name: "expired signature, expired key", at: made.Add(2 * time.Hour), expired: keyExpired, want: SigExpired},
		{name: "rejected hash first", at: made.Add(2 * time.Hour), revoked: true, reject: packet.HashSHA256, want: SigRejected},
		{name: "another hash rejected", at: made.Add(time.Minute), reject: packet.HashSHA1, want: SigGood},
	} {
		opt := VerifyOptions{Signers: stateKeys{entityKeys{e}, c.revoked, c.expired}, Time: c.at}
		if c.reject != 0 {
			opt.RejectHashes = map[packet.HashAlgo]bool{c.reject: true}
		}
		res, err := VerifyDetached(bytes.NewReader(sig.Bytes()), bytes.NewReader(pt), opt)
		if err != nil || len(res) != 1 {
			t.Fatalf("%s: %v %v", c.name, res, err)
		}
		r := res[0]
		if r.Status != c.want || !r.Status.Verified() || r.Key != e.PrimaryKey || r.KeyRevoked != c.revoked || !r.KeyExpired.Equal(c.expired) {
			t.Errorf("%s: %v (%+v), want %v", c.name, r.Status, r, c.want)
		}
		if c.want == SigRejected && !errors.Is(r.Err, ErrRejectedHash) {
			t.Errorf("%s: %v", c.name, r.Err)
		}
		if r.Sig.Expires() != made.Add(time.Hour) {
			t.Errorf("%s: expires %v", c.name, r.Sig.Expires())
		}
	}
	// Changed data is bad whatever the key's state.
	pt[0] ^= 1
	res, err := VerifyDetached(bytes.NewReader(sig.Bytes()), bytes.NewReader(pt),
		VerifyOptions{Signers: stateKeys{entityKeys{e}, true, keyExpired}, Time: made.Add(2 * time.Hour)})
	if err != nil || len(res) != 1 || res[0].Status != SigBad || res[0].Status.Verified() {
		t.Fatalf("changed data: %v %v", res, err)
	}
}

// UnencryptedAuthentic follows the verdicts: a revoked key's signature
// withholds the data even beside a good one, a rejected hash proves
// nothing, an expired key's signature still vouches.
func TestUnencryptedAuthenticVerdicts(t *testing.T) {
	e := testEntity(t, "ed25519")
	var msg bytes.Buffer
	if _, err := Sign(bytes.NewReader([]byte("data\n")), &msg, SignOptions{Signers: []Signer{signerOf(e, 0)}}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, c := range []struct {
		name     string
		keys     SignerKeys
		reject   map[packet.HashAlgo]bool
		want     SigStatus
		ok       bool
		tampered bool
	}{
		{name: "good", keys: entityKeys{e}, want: SigGood, ok: true},
		{name: "key expired", keys: stateKeys{entityKeys{e}, false, now.Add(-time.Hour)}, want: SigKeyExpired, ok: true},
		{name: "key revoked", keys: stateKeys{entityKeys{e}, true, time.Time{}}, want: SigKeyRevoked, tampered: true},
		{name: "expired key, revoked", keys: stateKeys{entityKeys{e}, true, now.Add(-time.Hour)}, want: SigKeyExpired, tampered: true},
		{name: "rejected hash", keys: entityKeys{e}, reject: map[packet.HashAlgo]bool{packet.HashSHA256: true}, want: SigRejected},
	} {
		var out bytes.Buffer
		res, err := Decrypt(bytes.NewReader(msg.Bytes()), &out, DecryptOptions{Keys: passKeys{nil}, Signers: c.keys, RejectHashes: c.reject, Time: now})
		if err != nil || len(res.Signatures) != 1 || res.Signatures[0].Status != c.want {
			t.Fatalf("%s: %v %v", c.name, statuses(res.Signatures), err)
		}
		err = UnencryptedAuthentic(res.Signatures)
		var na *NotAuthenticError
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case !c.ok && (!errors.As(err, &na) || na.Tampered != c.tampered):
			t.Errorf("%s: %v, want tampered %v", c.name, err, c.tampered)
		}
	}
	// Two signatures, one by a revoked key: the good one does not make
	// up for it.
	good := SignatureResult{Status: SigGood, Form: FormOnePass}
	revoked := SignatureResult{Status: SigKeyRevoked, KeyRevoked: true, Form: FormOnePass}
	if err := UnencryptedAuthentic([]SignatureResult{good, revoked}); err == nil {
		t.Fatal("a revoked key's signature beside a good one vouched")
	}
}
