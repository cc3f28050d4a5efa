package filter

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/packet"
)

// Format Auto chooses as GnuPG 2.4 does from what the recipients
// announce, and ForceAEAD as its --force-ocb; what Negotiate says ahead
// is what Encrypt writes and reports, and the message opens.
func TestNegotiateFormat(t *testing.T) {
	v4Privs, v4 := readSecretKeys(t, filepath.Join("..", "testdata", "aead", "key-sec.asc"))
	v6Privs, v6 := readSecretKeys(t, filepath.Join("..", "testdata", "keys", "rfc9580-v6-sec.asc"))
	plain := Recipient{Pub: v4[0].Subkeys[0].PublicKey}
	if plain.Pub.Version != 4 {
		t.Fatalf("key-sec.asc's subkey is v%d", plain.Pub.Version)
	}
	withV2, librepgp, both := plain, plain, plain
	withV2.Features = Features{SEIPDv2: true}
	librepgp.Features = Features{LibrePGPAEAD: true}
	both.Features = Features{SEIPDv2: true, LibrePGPAEAD: true}
	v6Key := Recipient{Pub: v6[0].Subkeys[0].PublicKey} // announces nothing: the version says it
	if v6Key.Pub.Version != 6 {
		t.Fatalf("rfc9580-v6-sec.asc's subkey is v%d", v6Key.Pub.Version)
	}
	rs := func(r ...Recipient) []Recipient { return r }
	for _, c := range []struct {
		name   string
		opt    EncryptOptions
		format Format
		mode   packet.AEADAlgo
	}{
		{"all v2: a v6 key", EncryptOptions{Recipients: rs(v6Key)}, SEIPDv2, packet.AEADOCB},
		{"all v2: announced", EncryptOptions{Recipients: rs(withV2, v6Key)}, SEIPDv2, packet.AEADOCB},
		{"all v2, EAX asked", EncryptOptions{Recipients: rs(withV2), AEAD: packet.AEADEAX}, SEIPDv2, packet.AEADEAX},
		{"both features: v2", EncryptOptions{Recipients: rs(both)}, SEIPDv2, packet.AEADOCB},
		{"all LibrePGP: tag 20 OCB", EncryptOptions{Recipients: rs(librepgp, both)}, AEADv1, packet.AEADOCB},
		{"all LibrePGP, EAX asked", EncryptOptions{Recipients: rs(librepgp), AEAD: packet.AEADEAX}, AEADv1, packet.AEADEAX},
		{"mixed v2 and none", EncryptOptions{Recipients: rs(v6Key, plain)}, SEIPDv1, 0},
		{"mixed v2 and LibrePGP", EncryptOptions{Recipients: rs(withV2, librepgp)}, SEIPDv1, 0},
		{"nothing announced", EncryptOptions{Recipients: rs(plain)}, SEIPDv1, 0},
		{"passphrase only", EncryptOptions{Passphrase: []byte("pw")}, SEIPDv1, 0},
		{"passphrase and all v2", EncryptOptions{Recipients: rs(v6Key), Passphrase: []byte("pw")}, SEIPDv2, packet.AEADOCB},
		{"forced, passphrase only", EncryptOptions{Passphrase: []byte("pw"), ForceAEAD: true}, AEADv1, packet.AEADOCB},
		{"forced, nothing announced", EncryptOptions{Recipients: rs(plain), ForceAEAD: true}, AEADv1, packet.AEADOCB},
		{"forced, mixed", EncryptOptions{Recipients: rs(v6Key, librepgp), ForceAEAD: true}, AEADv1, packet.AEADOCB},
		{"forced, all v2", EncryptOptions{Recipients: rs(v6Key, withV2), ForceAEAD: true}, SEIPDv2, packet.AEADOCB},
		{"forced, EAX", EncryptOptions{Recipients: rs(plain), ForceAEAD: true, AEAD: packet.AEADEAX}, AEADv1, packet.AEADEAX},
	} {
		c.opt.Format, c.opt.S2KCount = Auto, 1024
		if f, m := c.opt.Negotiate(); f != c.format || m != c.mode {
			t.Errorf("%s: Negotiate says %v %v, want %v %v", c.name, f, m, c.format, c.mode)
			continue
		}
		var ct bytes.Buffer
		res, err := Encrypt(bytes.NewReader(payload(1000)), &ct, c.opt)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if res.Format != c.format || res.AEAD != c.mode {
			t.Errorf("%s: wrote %v %v, want %v %v", c.name, res.Format, res.AEAD, c.format, c.mode)
		}
		var out bytes.Buffer
		keys := secretKeys{privs: append(append([]*gcpacket.PrivateKey(nil), v4Privs...), v6Privs...), pass: c.opt.Passphrase}
		dres, err := Decrypt(bytes.NewReader(ct.Bytes()), &out, DecryptOptions{Keys: keys})
		if err != nil || !bytes.Equal(out.Bytes(), payload(1000)) {
			t.Errorf("%s: decrypting: %v", c.name, err)
			continue
		}
		if dres.Format != c.format {
			t.Errorf("%s: read back as %v, want %v", c.name, dres.Format, c.format)
		}
	}
}

// A format named is taken as given, whatever the recipients announce;
// ForceAEAD contradicts SEIPD v1 and says so.
func TestNegotiateGivenFormat(t *testing.T) {
	_, v6 := readSecretKeys(t, filepath.Join("..", "testdata", "keys", "rfc9580-v6-sec.asc"))
	r := Recipient{Pub: v6[0].Subkeys[0].PublicKey, Features: Features{SEIPDv2: true}}
	for _, f := range []Format{SEIPDv1, SEIPDv2, AEADv1} {
		opt := EncryptOptions{Recipients: []Recipient{r}, Format: f}
		if got, _ := opt.Negotiate(); got != f {
			t.Errorf("Format %v: Negotiate says %v", f, got)
		}
	}
	_, err := Encrypt(bytes.NewReader(nil), &bytes.Buffer{}, EncryptOptions{Passphrase: []byte("pw"), S2KCount: 1024, ForceAEAD: true})
	if err == nil || !strings.Contains(err.Error(), "ForceAEAD") {
		t.Errorf("ForceAEAD with SEIPD v1: %v", err)
	}
	// The S2K named ahead follows the negotiated format: Argon2 for SEIPD v2.
	opt := EncryptOptions{Recipients: []Recipient{r}, Passphrase: []byte("pw"), Format: Auto}
	if mode, _ := opt.SKESKS2K(); mode != 4 {
		t.Errorf("SKESKS2K for a negotiated SEIPD v2: S2K type %d, want 4 (Argon2)", mode)
	}
}
