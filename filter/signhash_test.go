package filter

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/packet"
)

func newSigningKey(t *testing.T, cfg *gcpacket.Config) *gcpacket.PrivateKey {
	t.Helper()
	e, err := openpgp.NewEntity("signer", "", "signer@example.org", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e.PrivateKey
}

// HashFor is the one rule for a signature's hash: 0 is the key's
// minimum, raised for Ed448 and the larger curves; a hash asked for is
// taken unless the key cannot sign with it, which is a *HashError whose
// reason the command line quotes after its option's name. The hash
// chosen is the one the signature is made with.
func TestHashFor(t *testing.T) {
	ed25519 := newSigningKey(t, &gcpacket.Config{Algorithm: gcpacket.PubKeyAlgoEd25519})
	ed448 := newSigningKey(t, &gcpacket.Config{Algorithm: gcpacket.PubKeyAlgoEd448})
	p256 := newSigningKey(t, &gcpacket.Config{Algorithm: gcpacket.PubKeyAlgoECDSA, Curve: gcpacket.CurveNistP256})
	p384 := newSigningKey(t, &gcpacket.Config{Algorithm: gcpacket.PubKeyAlgoECDSA, Curve: gcpacket.CurveNistP384})
	p521 := newSigningKey(t, &gcpacket.Config{Algorithm: gcpacket.PubKeyAlgoECDSA, Curve: gcpacket.CurveNistP521})
	v6 := newSigningKey(t, &gcpacket.Config{Algorithm: gcpacket.PubKeyAlgoEd25519, V6Keys: true})
	const v6Reason, ed448Reason = "version 6 keys sign only with SHA2 or SHA3 (RFC 9580)", "Ed448 signs only with a 512-bit hash"
	for _, c := range []struct {
		name   string
		key    *gcpacket.PrivateKey
		asked  packet.HashAlgo
		want   packet.HashAlgo
		reason string
	}{
		{"Ed25519, minimum", ed25519, 0, packet.HashSHA256, ""},
		{"Ed25519, SHA1 asked", ed25519, packet.HashSHA1, packet.HashSHA1, ""},
		{"P-256, minimum", p256, 0, packet.HashSHA256, ""},
		{"P-384, minimum", p384, 0, packet.HashSHA384, ""},
		{"P-384, SHA256 asked", p384, packet.HashSHA256, packet.HashSHA256, ""},
		{"P-521, minimum", p521, 0, packet.HashSHA512, ""},
		{"Ed448, minimum", ed448, 0, packet.HashSHA512, ""},
		{"Ed448, SHA3-512", ed448, packet.HashSHA3_512, packet.HashSHA3_512, ""},
		{"Ed448, SHA256", ed448, packet.HashSHA256, 0, ed448Reason},
		{"v6, minimum", v6, 0, packet.HashSHA256, ""},
		{"v6, SHA512", v6, packet.HashSHA512, packet.HashSHA512, ""},
		{"v6, SHA1", v6, packet.HashSHA1, 0, v6Reason},
	} {
		got, err := HashFor(&c.key.PublicKey, c.asked)
		var he *HashError
		switch {
		case c.reason == "" && (err != nil || got != c.want):
			t.Errorf("%s: %v %v, want %v", c.name, got, err, c.want)
		case c.reason != "" && (!errors.As(err, &he) || he.Reason != c.reason || he.Hash != c.asked):
			t.Errorf("%s: %v, want a HashError %q", c.name, err, c.reason)
		case c.reason != "":
			// Signing refuses it the same way.
			_, err := DetachSign(bytes.NewReader(nil), &bytes.Buffer{}, SignOptions{Signers: []Signer{{Key: c.key, Hash: c.asked}}})
			if !errors.As(err, &he) || he.Reason != c.reason {
				t.Errorf("%s: signing: %v, want a HashError %q", c.name, err, c.reason)
			}
		default:
			var sig bytes.Buffer
			if _, err := DetachSign(bytes.NewReader([]byte("data")), &sig, SignOptions{Signers: []Signer{{Key: c.key, Hash: c.asked}}}); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			p, err := gcpacket.Read(&sig)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if h := packet.HashAlgoOf(p.(*gcpacket.Signature).Hash); h != c.want {
				t.Errorf("%s: signed with %v, want %v", c.name, h, c.want)
			}
		}
	}
}
