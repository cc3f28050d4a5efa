package keyring

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"
)

// unsignedCert makes a certificate of algo whose user ID has no
// signature at all, as PGP exported its secret keys: the primary key,
// the user ID, the subkey and its binding.
func unsignedCert(t *testing.T, cfg *packet.Config) []byte {
	t.Helper()
	pkts := newCertPackets(t, "Unsigned", "unsigned@example.test", cfg)
	var out bytes.Buffer
	for i, p := range pkts {
		if p.tag == tagSignature && pkts[i-1].tag == tagUserID {
			continue
		}
		p.writeTo(&out)
	}
	return out.Bytes()
}

// TestAllowNonSelfSignedUID imports a certificate whose user ID carries
// no self-signature, for each algorithm a v4 primary key has: skipped
// without the option; with it imported, valid and named by the user ID,
// and exported as it came (the stand-in go-crypto reads is never
// written); opened again without it, read, invalid and not named.
func TestAllowNonSelfSignedUID(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  *packet.Config
	}{
		{"rsa", &packet.Config{Algorithm: packet.PubKeyAlgoRSA, RSABits: 1024}},
		{"ecdsa", &packet.Config{Algorithm: packet.PubKeyAlgoECDSA, Curve: packet.CurveNistP256}},
		{"eddsa", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA, Curve: packet.Curve25519}},
		{"ed25519", &packet.Config{Algorithm: packet.PubKeyAlgoEd25519}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cert := unsignedCert(t, tc.cfg)
			home := filepath.Join(t.TempDir(), "home")
			const uid = "Unsigned <unsigned@example.test>"

			r, err := Open(home)
			if err != nil {
				t.Fatal(err)
			}
			st, err := r.Import(bytes.NewReader(cert))
			if err != nil || st.NoUserID != 1 || st.Imported != 0 {
				t.Fatalf("without the option: %+v %v", st, err)
			}

			r, err = OpenWith(home, Options{AllowNonSelfSignedUID: true})
			if err != nil {
				t.Fatal(err)
			}
			st, err = r.Import(bytes.NewReader(cert))
			if err != nil || st.Imported != 1 || len(st.Keys) != 1 {
				t.Fatalf("with the option: %+v %v", st, err)
			}
			if got := st.Keys[0].AcceptedUnsigned; len(got) != 1 || got[0] != uid {
				t.Errorf("accepted %q", got)
			}
			k, err := r.Lookup("unsigned@example.test", false)
			if err != nil {
				t.Fatal(err)
			}
			if ps := k.primaryState(config.Now()); ps.invalid {
				t.Error("the key is invalid with the option")
			}
			if _, ok := k.Entity().SigningKey(config.Now(), config); !ok {
				t.Error("no signing key with the option")
			}
			var exp bytes.Buffer
			if err := r.Export(&exp, nil, false, false); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(exp.Bytes(), cert) {
				t.Errorf("export differs from the import:\n%x\n%x", exp.Bytes(), cert)
			}
			if out := listing(t, r, nil, false, true); !strings.Contains(out, "\nuid:-::::::") {
				t.Errorf("listing with the option:\n%s", out)
			}

			r, err = Open(home)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Lookup("unsigned@example.test", false); err == nil {
				t.Error("the unsigned user ID names the key without the option")
			}
			keys, err := r.Select(nil, false)
			if err != nil || len(keys) != 1 {
				t.Fatalf("Select: %v %v", keys, err)
			}
			if ps := keys[0].primaryState(config.Now()); !ps.invalid {
				t.Error("the key is valid without the option")
			}
			if len(keys[0].UserIDs()) != 0 {
				t.Errorf("user IDs without the option: %q", keys[0].UserIDs())
			}
		})
	}
}

// TestAllowNonSelfSignedUIDBeside keeps a signed user ID as it was when an
// unsigned one is accepted beside it: its date is listed, the accepted
// one's is not, and without the option only the signed one names the key.
func TestAllowNonSelfSignedUIDBeside(t *testing.T) {
	pkts := newCertPackets(t, "Signed", "signed@example.test", nil)
	var cert bytes.Buffer
	for i, p := range pkts {
		p.writeTo(&cert)
		if i == 2 { // after the signed user ID's self-signature
			rawPacket{tag: tagUserID, body: []byte("Mallory <mallory@example.test>")}.writeTo(&cert)
		}
	}
	home := filepath.Join(t.TempDir(), "home")
	r, err := OpenWith(home, Options{AllowNonSelfSignedUID: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.Import(bytes.NewReader(cert.Bytes()))
	if err != nil || len(st.Keys) != 1 || len(st.Keys[0].AcceptedUnsigned) != 1 {
		t.Fatalf("%+v %v", st, err)
	}
	uids := colonRecords(listing(t, r, nil, false, true), "uid")
	if len(uids) != 2 || uids[0][5] == "" || uids[1][5] != "" || uids[1][9] != "Mallory <mallory@example.test>" {
		t.Errorf("uid records: %q", uids)
	}
	if k, err := r.Lookup("mallory@example.test", false); err != nil || k.PrimaryUserID() != "Signed <signed@example.test>" {
		t.Errorf("Lookup with the option: %v", err)
	}
	r, err = Open(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Lookup("mallory@example.test", false); err == nil {
		t.Error("the unsigned user ID names the key without the option")
	}
	if _, err := r.Lookup("signed@example.test", false); err != nil {
		t.Error(err)
	}
}

// newCertPackets is a new key's certificate, as go-crypto writes it,
// split into its packets.
func newCertPackets(t *testing.T, name, email string, cfg *packet.Config) []rawPacket {
	t.Helper()
	e, err := v2.NewEntity(name, "", email, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := e.Serialize(&b); err != nil {
		t.Fatal(err)
	}
	pkts, err := splitPackets(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return pkts
}
