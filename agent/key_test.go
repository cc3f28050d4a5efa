package agent

import (
	"crypto"
	"errors"
	"strings"
	"testing"
	"time"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

// TestKeySignError: go-crypto's Signature.Sign returns nil when an RSA or
// EdDSA signer fails; Key.SignError says why.
func TestKeySignError(t *testing.T) {
	h := gnupgtest.New(t)
	// Different passphrases: the agent silently tries the last one
	// entered correctly on the next key.
	right := map[string]string{"rsa@example.org": "rsa pass", "ed@example.org": "ed pass"}
	h.GenKey("Rsa <rsa@example.org>", "rsa2048", "", right["rsa@example.org"])
	h.GenKey("Ed <ed@example.org>", "ed25519", "", right["ed@example.org"])
	h.Run(nil, "gpgconf", "--reload", "gpg-agent") // forget the passphrases
	c, err := dialStart(h.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, name := range []string{"rsa@example.org", "ed@example.org"} {
		pub := exportKey(t, h, name).PrimaryKey
		priv, err := NewPrivateKey(c, pub, "the key of "+name)
		if err != nil {
			t.Fatal(err)
		}
		sign := func() error {
			sig := &gcpacket.Signature{
				Version: 4, SigType: gcpacket.SigTypeBinary, PubKeyAlgo: pub.PubKeyAlgo, Hash: crypto.SHA256,
				CreationTime: time.Now(), IssuerKeyId: &pub.KeyId,
			}
			hh := crypto.SHA256.New()
			hh.Write([]byte("data"))
			return sig.Sign(hh, priv, nil)
		}
		var asked string
		c.SetPassphrase(func(desc string) ([]byte, error) { asked = desc; return []byte("wrong"), nil })
		err = sign()
		if err == nil {
			err = AgentKey(priv).SignError()
		}
		if !errors.Is(err, ErrBadPassphrase) {
			t.Errorf("%s with a wrong passphrase: %v", name, err)
		}
		if !strings.Contains(asked, "the key of "+name) {
			t.Errorf("%s: the loopback prompt is %q", name, asked)
		}
		c.SetPassphrase(func(string) ([]byte, error) { return []byte(right[name]), nil })
		if err := sign(); err != nil || AgentKey(priv).SignError() != nil {
			t.Errorf("%s with the right passphrase: %v, %v", name, err, AgentKey(priv).SignError())
		}
	}
}
