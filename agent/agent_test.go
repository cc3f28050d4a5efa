package agent

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
	"os"
	"strings"
	"testing"
	"time"

	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
	"github.com/pgpstream/pgpstream/keygrip"
	"github.com/pgpstream/pgpstream/packet"
)

func grips(t *testing.T, h *gnupgtest.Home, name string) []keygrip.Grip {
	var out []keygrip.Grip
	for _, s := range h.Keygrips(name) {
		g, err := keygrip.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

func TestAgainstGpgAgent(t *testing.T) {
	h := gnupgtest.New(t)
	h.GenKey("Rsa <rsa@example.org>", "rsa2048", "rsa2048", "")
	h.GenKey("Ed <ed@example.org>", "ed25519", "cv25519", "secret")
	rsaGrip := grips(t, h, "rsa@example.org")[1] // the encryption subkey
	edGrip := grips(t, h, "ed@example.org")[0]
	h.Run(nil, "gpgconf", "--kill", "gpg-agent") // Dial starts it again

	c, err := dialStart(h.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v, err := c.Version(); err != nil || !strings.HasPrefix(v, "2.") {
		t.Fatalf("GETINFO version: %q, %v", v, err)
	}
	if ok, err := c.HaveKey(rsaGrip); !ok || err != nil {
		t.Fatalf("HAVEKEY rsa: %v %v", ok, err)
	}
	if ok, err := c.HaveKey(keygrip.Grip{1}); ok || err != nil {
		t.Fatalf("HAVEKEY of no key: %v %v", ok, err)
	}
	if _, err := c.KeyInfo(keygrip.Grip{1}); !errors.Is(err, ErrNoSecretKey) {
		t.Fatalf("KEYINFO of no key: %v", err)
	}
	if ki, err := c.KeyInfo(rsaGrip); err != nil || ki.Protected || ki.Type != "D" {
		t.Fatalf("KEYINFO rsa: %+v %v", ki, err)
	}
	if ki, err := c.KeyInfo(edGrip); err != nil || !ki.Protected || ki.Cached {
		t.Fatalf("KEYINFO ed before use: %+v %v", ki, err)
	}

	// PKDECRYPT of a session key gpg encrypted.
	msg := h.Run([]byte("hello agent\n"), "gpg", "--batch", "--trust-model", "always", "-e", "-r", "rsa@example.org")
	_, body, _, err := packet.SplitPacket(msg, 0)
	if err != nil || body[0] != 3 || body[9] != 1 {
		t.Fatalf("not an RSA PKESK v3: %x %v", body[:10], err)
	}
	a := body[12 : 12+(int(body[10])<<8|int(body[11])+7)/8]
	value, err := c.Decrypt(rsaGrip, "Decrypt with the RSA key", RSACiphertext(a))
	if err != nil {
		t.Fatal(err)
	}
	key := sessionKey(t, h, msg)
	if !bytes.Contains(value, key) {
		t.Fatalf("PKDECRYPT value %x does not hold the session key %x", value, key)
	}
	// The same through go-crypto's PKESK decryption, as pgpstream's
	// decrypt path calls it.
	pk, err := packet.ParsePKESK(body, 0)
	if err != nil {
		t.Fatal(err)
	}
	rsaSub := exportKey(t, h, "rsa@example.org").Subkeys[0].PublicKey
	dk, err := NewPrivateKey(c, rsaSub, "")
	if err != nil {
		t.Fatal(err)
	}
	if k, _, err := pk.Decrypt(dk); err != nil || !bytes.Equal(k, key) {
		t.Fatalf("PKESK decrypted through the agent: %x, %v; gpg's key %x", k, err, key)
	}

	// PKDECRYPT of an ECDH session key: the agent gives the shared
	// point, the key is unwrapped here. The key is protected: loopback.
	if err := c.SetPassphrase(func(string) ([]byte, error) { return []byte("secret"), nil }); err != nil {
		t.Fatal(err)
	}
	msg = h.Run([]byte("hello agent\n"), "gpg", "--batch", "--trust-model", "always", "-e", "-r", "ed@example.org")
	_, body, _, err = packet.SplitPacket(msg, 0)
	if err != nil || body[0] != 3 || body[9] != 18 {
		t.Fatalf("not an ECDH PKESK v3: %x %v", body[:10], err)
	}
	eLen := (int(body[10])<<8 | int(body[11]) + 7) / 8
	e := body[12 : 12+eLen]
	wrapped := body[12+eLen+1:]
	shared, err := c.Decrypt(grips(t, h, "ed@example.org")[1], "", ECDHCiphertext(e, wrapped))
	if err != nil {
		t.Fatal(err)
	}
	sub := exportKey(t, h, "ed@example.org").Subkeys[0].PublicKey
	var sp bytes.Buffer
	sub.Serialize(&sp)
	_, subBody, _, _ := packet.SplitPacket(sp.Bytes(), 0)
	m, err := ECDHSessionKey(subBody, sub.Fingerprint, shared, wrapped)
	if err != nil {
		t.Fatal(err)
	}
	if key := sessionKey(t, h, msg); len(m) != 1+len(key)+2 || !bytes.Equal(m[1:1+len(key)], key) {
		t.Fatalf("ECDH session key block %x, gpg's key %x", m, key)
	}
	// Forget both keys' passphrases (gpg gave them the same one).
	for _, g := range grips(t, h, "ed@example.org") {
		if err := c.ClearPassphrase(g); err != nil {
			t.Fatal(err)
		}
	}

	// PKSIGN with the protected key, the passphrase through loopback.
	asked := 0
	if err := c.SetPassphrase(func(string) ([]byte, error) { asked++; return []byte("secret"), nil }); err != nil {
		t.Fatal(err)
	}
	digest := sha512.Sum512([]byte("signed through the agent"))
	sig, err := c.Sign(edGrip, "Sign with the Ed key", 10, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	if asked != 1 {
		t.Errorf("the passphrase was asked %d times, want 1", asked)
	}
	var pkt bytes.Buffer
	exportKey(t, h, "ed@example.org").PrimaryKey.Serialize(&pkt)
	_, pb, _, _ := packet.SplitPacket(pkt.Bytes(), 0)
	pub := ed25519.PublicKey(pb[len(pb)-32:])
	r, s := sig.Value("r"), sig.Value("s")
	rs := append(leftPad(r, 32), leftPad(s, 32)...)
	if sig.Find("eddsa") == nil || !ed25519.Verify(pub, digest[:], rs) {
		t.Fatalf("PKSIGN's signature does not verify: %x", rs)
	}

	// The agent cached the passphrase: the next signature asks nothing.
	if ki, err := c.KeyInfo(edGrip); err != nil || !ki.Cached {
		t.Fatalf("KEYINFO ed after use: %+v %v", ki, err)
	}
	if _, err := c.Sign(edGrip, "", 10, digest[:]); err != nil || asked != 1 {
		t.Fatalf("second PKSIGN: %v, passphrase asked %d times", err, asked)
	}

	// A wrong passphrase once the cache is cleared.
	if err := c.ClearPassphrase(edGrip); err != nil {
		t.Fatal(err)
	}
	c.SetPassphrase(func(string) ([]byte, error) { return []byte("wrong"), nil })
	if _, err := c.Sign(edGrip, "", 10, digest[:]); !errors.Is(err, ErrBadPassphrase) {
		t.Fatalf("PKSIGN with a wrong passphrase: %v", err)
	}
}

func exportKey(t *testing.T, h *gnupgtest.Home, name string) *v2.Entity {
	ents, err := v2.ReadKeyRing(bytes.NewReader(h.Run(nil, "gpg", "--export", name)))
	if err != nil || len(ents) != 1 {
		t.Fatalf("export %s: %v", name, err)
	}
	return ents[0]
}

// sessionKey is the session key gpg reports for msg.
func sessionKey(t *testing.T, h *gnupgtest.Home, msg []byte) []byte {
	out, err := h.Try(msg, "gpg", "--batch", "--status-fd", "1", "--show-session-key", "-o", "/dev/null", "-d")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "[GNUPG:] SESSION_KEY "); ok {
			_, k, _ := strings.Cut(rest, ":")
			b, err := hex.DecodeString(strings.TrimSpace(k))
			if err == nil {
				return b
			}
		}
	}
	t.Fatalf("no SESSION_KEY in %s", out)
	return nil
}

func TestEscaping(t *testing.T) {
	in := []byte("a%b\r\nc")
	got, err := unescape([]byte("a%25b%0D%0Ac"))
	if err != nil || !bytes.Equal(got, in) {
		t.Fatalf("unescape: %q %v", got, err)
	}
	for _, bad := range []string{"%", "%2", "%zz"} {
		if _, err := unescape([]byte(bad)); err == nil {
			t.Errorf("unescape(%q): no error", bad)
		}
	}
	if e := escapeArg("a b+c%"); e != "a%20b%2Bc%25" {
		t.Errorf("escapeArg: %q", e)
	}
}

func TestSexp(t *testing.T) {
	s, err := ParseSexp([]byte("(7:sig-val(5:eddsa(1:r2:ab)(1:s1:c)))"))
	if err != nil || s.Head() != "sig-val" || string(s.Value("r")) != "ab" || string(s.Value("s")) != "c" {
		t.Fatalf("%v %v", s, err)
	}
	for _, bad := range []string{"", "(", "(3:ab)", "(1:a", "x", "(1:a))", "99999999999:"} {
		if _, err := ParseSexp([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestSignerVerifiedByGnuPG makes OpenPGP signatures with go-crypto whose
// secret half is in the agent, and has gpg --verify them.
func TestSignerVerifiedByGnuPG(t *testing.T) {
	h := gnupgtest.New(t)
	h.GenKey("Rsa <rsa@example.org>", "rsa2048", "", "")
	h.GenKey("P256 <p256@example.org>", "nistp256", "", "pw")
	c, err := dialStart(h.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetPassphrase(func(string) ([]byte, error) { return []byte("pw"), nil })
	data := []byte("signed by the agent\n")
	dataFile := h.Dir + "/data"
	if err := os.WriteFile(dataFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"rsa@example.org", "p256@example.org"} {
		pub := exportKey(t, h, name).PrimaryKey
		priv, err := NewPrivateKey(c, pub, "")
		if err != nil {
			t.Fatal(err)
		}
		sig := &gcpacket.Signature{
			Version: 4, SigType: gcpacket.SigTypeBinary, PubKeyAlgo: pub.PubKeyAlgo, Hash: crypto.SHA256,
			CreationTime: time.Now(), IssuerKeyId: &pub.KeyId, IssuerFingerprint: pub.Fingerprint,
		}
		hh := crypto.SHA256.New()
		hh.Write(data)
		if err := sig.Sign(hh, priv, nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var sb bytes.Buffer
		sig.Serialize(&sb)
		sigFile := h.Dir + "/data.sig"
		os.WriteFile(sigFile, sb.Bytes(), 0o600)
		out, err := h.Try(nil, "gpg", "--batch", "--status-fd", "1", "--verify", sigFile, dataFile)
		if err != nil || !strings.Contains(string(out), "[GNUPG:] GOODSIG") {
			t.Fatalf("%s: gpg --verify: %v\n%s", name, err, out)
		}
	}
}
