package filter

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/pgpstream/pgpstream/packet"
)

// Encrypt says what it wrote: the format, cipher and AEAD mode, and the
// session key packets as they went out, so a caller needs no second
// parse of its own output (an SKESK's salt is the agent's cache id); the
// S2K it names ahead (SKESKS2K) is the one written.
func TestEncryptResult(t *testing.T) {
	_, el := readSecretKeys(t, filepath.Join("..", "testdata", "aead", "key-sec.asc"))
	rcpt := Recipient{Pub: el[0].Subkeys[0].PublicKey}
	for _, c := range []struct {
		name string
		opt  EncryptOptions
		aead packet.AEADAlgo
		skv  byte
	}{
		{name: "seipd v1", opt: EncryptOptions{Recipients: []Recipient{rcpt}, Passphrase: []byte("pw"), Passphrases: [][]byte{[]byte("two")}}, skv: 4},
		{name: "aead v1", opt: EncryptOptions{Recipients: []Recipient{rcpt, {Pub: rcpt.Pub, Hidden: true}}, Passphrase: []byte("pw"), Format: AEADv1, AEAD: packet.AEADOCB, Armor: true}, aead: packet.AEADOCB, skv: 5},
		{name: "seipd v2, key only", opt: EncryptOptions{Recipients: []Recipient{rcpt}, Format: SEIPDv2, AEAD: packet.AEADOCB, Cipher: packet.CipherAES128}, aead: packet.AEADOCB},
	} {
		c.opt.S2KCount = 1024
		var ct bytes.Buffer
		res, err := Encrypt(bytes.NewReader(payload(1000)), &ct, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		wantCipher := c.opt.Cipher
		if wantCipher == 0 {
			wantCipher = packet.CipherAES256
		}
		passes := len(c.opt.Passphrases)
		if c.opt.Passphrase != nil {
			passes++
		}
		if res.Bytes != 1000 || res.Format != c.opt.Format || res.Cipher != wantCipher || res.AEAD != c.aead ||
			len(res.PKESKs) != len(c.opt.Recipients) || len(res.SKESKs) != passes {
			t.Fatalf("%s: %+v", c.name, res)
		}
		for i, r := range c.opt.Recipients {
			if p := res.PKESKs[i]; p.Wildcard() != r.Hidden || !r.Hidden && p.KeyID != r.Pub.KeyId && packet.KeyIDOf(p.Fingerprint) != r.Pub.KeyId {
				t.Errorf("%s: PKESK %d: %+v", c.name, i, p)
			}
		}
		// The message carries the SKESKs reported, salt and all.
		var first []byte
		for i, s := range res.SKESKs {
			mode, hash := s.S2KType()
			wm, wh := c.opt.SKESKS2K()
			_, _, salt := s.S2K()
			if s.Version != c.skv || mode != wm || hash != wh || len(salt) != 8 {
				t.Errorf("%s: SKESK %d: v%d S2K %d/%d salt %x, want v%d %d/%d", c.name, i, s.Version, mode, hash, salt, c.skv, wm, wh)
			}
			if i == 0 {
				first = salt
			}
		}
		if first != nil {
			var got bytes.Buffer
			dres, err := Decrypt(bytes.NewReader(ct.Bytes()), &got, DecryptOptions{Keys: passKeys{[]byte("pw")}})
			if err != nil || dres.SKESK == nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if _, _, salt := dres.SKESK.S2K(); !bytes.Equal(salt, first) {
				t.Errorf("%s: message's salt %x, reported %x", c.name, salt, first)
			}
		}
	}
}
