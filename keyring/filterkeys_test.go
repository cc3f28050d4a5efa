package keyring

import (
	"bytes"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/clock"
)

// Ring.SignerKeys is what verification asks: the signing key by key ID
// or fingerprint, not the encryption subkey, with its certificate's
// state; a revoked certificate's signing key is still offered, Revoked,
// for filter to report (REVKEYSIG), where Key.SignerKeys refuses it.
func TestRingSignerKeys(t *testing.T) {
	k, err := MakeKey(MakeOptions{UserIDs: []string{"v"}})
	if err != nil {
		t.Fatal(err)
	}
	rev, err := k.Revoke(nil)
	if err != nil {
		t.Fatal(err)
	}
	pk := k.Entity().PrimaryKey
	sub := k.Entity().Subkeys[0].PublicKey
	now := clock.Now()
	made := now.Add(time.Second) // the key was made just now
	for _, c := range []struct {
		name    string
		key     *Key
		revoked bool
	}{{"valid", k, false}, {"revoked", rev, true}} {
		r := openRing(t)
		var buf bytes.Buffer
		if err := WriteKeys(&buf, []*Key{c.key}, false, false); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Import(&buf); err != nil {
			t.Fatal(err)
		}
		got := r.SignerKeys(pk.KeyId, nil, made, now)
		if len(got) != 1 || !bytes.Equal(got[0].Key.Fingerprint, pk.Fingerprint) || got[0].Revoked != c.revoked || !got[0].Expired.IsZero() {
			t.Fatalf("%s: by key ID: %+v", c.name, got)
		}
		if got := r.SignerKeys(0, pk.Fingerprint, made, now); len(got) != 1 {
			t.Fatalf("%s: by fingerprint: %+v", c.name, got)
		}
		if got := r.SignerKeys(sub.KeyId, nil, made, now); len(got) != 0 {
			t.Fatalf("%s: the encryption subkey signs: %+v", c.name, got)
		}
		if got := r.SignerKeys(0, nil, made, now); len(got) != 0 {
			t.Fatalf("%s: no issuer: %+v", c.name, got)
		}
	}
}
