package filter

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/packet"
)

// SHA-1 data signatures made after SHA1Cutoff are refused unless
// AllowWeakDigests; one made before it is still checked.
func TestSHA1Cutoff(t *testing.T) {
	e := testEntity(t, "ed25519")
	for _, c := range []struct {
		made  time.Time
		allow bool
		want  SigStatus
	}{
		{SHA1Cutoff.Add(-24 * time.Hour), false, SigGood},
		{SHA1Cutoff.Add(time.Hour), false, SigError},
		{time.Now(), false, SigError},
		{time.Now(), true, SigGood},
	} {
		var msg bytes.Buffer
		if _, err := Sign(bytes.NewReader([]byte("data")), &msg, SignOptions{Signers: []Signer{signerOf(e, packet.HashSHA1)}, Time: c.made}); err != nil {
			t.Fatal(err)
		}
		res, err := Decrypt(bytes.NewReader(msg.Bytes()), &bytes.Buffer{}, DecryptOptions{Signers: entityKeys{e}, AllowWeakDigests: c.allow})
		if err != nil {
			t.Fatal(err)
		}
		r := res.Signatures[0]
		if r.Status != c.want || (c.want == SigError) != errors.Is(r.Err, ErrWeakDigest) {
			t.Errorf("made %s, allow %v: %v (%v), want %v", c.made.Format(time.DateOnly), c.allow, r.Status, r.Err, c.want)
		}
	}
}

// UnencryptedAuthentic: one rule for every shape of signature results.
func TestUnencryptedAuthentic(t *testing.T) {
	good := SignatureResult{Status: SigGood, Form: FormOnePass}
	noKey := SignatureResult{Status: SigNoKey, Form: FormOnePass}
	for _, c := range []struct {
		name     string
		sigs     []SignatureResult
		ok       bool
		tampered bool
	}{
		{"one good", []SignatureResult{good}, true, false},
		{"good and unknown signer", []SignatureResult{good, noKey}, true, false},
		{"none", nil, false, false},
		{"unknown signer only", []SignatureResult{noKey}, false, false},
		{"bad", []SignatureResult{good, {Status: SigBad, Form: FormOnePass}}, false, true},
		{"one-pass without its signature", []SignatureResult{good, {Status: SigError, Form: FormUnannounced}}, false, true},
		{"an extra signature", []SignatureResult{good, {Status: SigUnchecked, Form: FormLegacy}}, false, true},
		{"legacy form unchecked", []SignatureResult{{Status: SigUnchecked, Form: FormLegacy}}, false, false},
		{"legacy form checked", []SignatureResult{{Status: SigGood, Form: FormLegacy}}, true, false},
		{"weak digest", []SignatureResult{{Status: SigError, Form: FormOnePass, Err: ErrWeakDigest}}, false, false},
	} {
		err := UnencryptedAuthentic(c.sigs)
		var na *NotAuthenticError
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case !c.ok && (!errors.As(err, &na) || !errors.Is(err, ErrNotAuthentic)):
			t.Errorf("%s: %v, want a NotAuthenticError", c.name, err)
		case !c.ok && na.Tampered != c.tampered:
			t.Errorf("%s: tampered %v, want %v", c.name, na.Tampered, c.tampered)
		}
	}
}
