package keyring

import (
	"bytes"
	"crypto"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/clock"
)

// certifyWith adds to k a certification of its first user ID by signer,
// hashed with h and made at created, as it might come from elsewhere.
func certifyWith(t *testing.T, r *Ring, k, signer *Key, h crypto.Hash, created time.Time) {
	t.Helper()
	priv := signer.PrivateKey(signer.ent.PrimaryKey.Fingerprint)
	id := priv.KeyId
	s := &packet.Signature{Version: 4, SigType: packet.SigTypeGenericCert, PubKeyAlgo: priv.PubKeyAlgo, Hash: h,
		CreationTime: created, IssuerKeyId: &id}
	noSalt := false
	cfg := &packet.Config{DefaultHash: h, Time: func() time.Time { return created }, NonDeterministicSignaturesViaNotation: &noSalt}
	uid := k.uids[0]
	if err := s.SignUserId(uid, k.ent.PrimaryKey, priv, cfg); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.Serialize(&buf); err != nil {
		t.Fatal(err)
	}
	np := k.pub.clone()
	pkts, err := splitPackets(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	np.uids[0].sigs = append(np.uids[0].sigs, pkts[0])
	if _, err := r.Import(bytes.NewReader(np.bytes())); err != nil {
		t.Fatal(err)
	}
}

// TestWebSHA1Certifications: a SHA-1 certification made after gpg's
// cut-off does not make a key valid, one made before it does, and
// --allow-weak-key-signatures lets the later one count too.
func TestWebSHA1Certifications(t *testing.T) {
	for _, tc := range []struct {
		name      string
		h         crypto.Hash
		created   time.Time
		allowWeak bool
		want      OwnerTrust
	}{
		{"SHA-256", crypto.SHA256, clock.Now().Add(-time.Hour), false, TrustFully},
		{"SHA-1 before the cut-off", crypto.SHA1, SHA1CertificationCutoff.Add(-time.Hour), false, TrustFully},
		{"SHA-1 after the cut-off", crypto.SHA1, SHA1CertificationCutoff.Add(time.Hour), false, TrustUnknown},
		{"SHA-1 after, allowed", crypto.SHA1, SHA1CertificationCutoff.Add(time.Hour), true, TrustFully},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			r, err := OpenWith(home, Options{GnuPGHome: "-", AllowWeakKeySignatures: tc.allowWeak})
			if err != nil {
				t.Fatal(err)
			}
			old := SHA1CertificationCutoff.Add(-48 * time.Hour)
			clock.Set(old, false)
			me, err := r.Generate(GenOptions{UserID: "Me <me@pgpstream.test>"})
			if err != nil {
				t.Fatal(err)
			}
			other, err := OpenWith(t.TempDir(), Options{GnuPGHome: "-"})
			if err != nil {
				t.Fatal(err)
			}
			them, err := other.Generate(GenOptions{UserID: "Them <them@pgpstream.test>"})
			if err != nil {
				t.Fatal(err)
			}
			clock.Reset()
			if _, err := r.Import(bytes.NewReader(them.pub.bytes())); err != nil {
				t.Fatal(err)
			}
			them = r.byFingerprint(them.Fingerprint())
			me = r.byFingerprint(me.Fingerprint())
			certifyWith(t, r, them, me, tc.h, tc.created)
			if got := r.Validity(them.Fingerprint(), ModelPGP); got != tc.want {
				t.Errorf("validity %v, want %v", got, tc.want)
			}
		})
	}
}
