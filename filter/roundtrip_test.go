package filter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/packet"
)

type passKeys struct{ pass []byte }

func (passKeys) DecryptionKeys(*packet.PKESK) []*gcpacket.PrivateKey { return nil }
func (passKeys) Unlock(*gcpacket.PrivateKey) error                   { return nil }
func (k passKeys) Passphrase() ([]byte, error) {
	if k.pass == nil {
		return nil, errors.New("no passphrase")
	}
	return k.pass, nil
}

func payload(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*31 + i>>8)
	}
	return b
}

func encryptSym(t testing.TB, pt []byte, opt EncryptOptions) []byte {
	t.Helper()
	opt.Passphrase = []byte("pw")
	opt.S2KCount = 1024
	var out bytes.Buffer
	if _, err := Encrypt(bytes.NewReader(pt), &out, opt); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestSymmetricRoundTrip(t *testing.T) {
	for _, size := range []int{0, 1, 15, 16, 17, 65535, 65536, 1<<20 + 3} {
		for _, comp := range []packet.CompressionAlgo{packet.CompressNone, packet.CompressZIP, packet.CompressZLIB} {
			for _, armor := range []bool{false, true} {
				name := fmt.Sprintf("%d/%v/armor=%v", size, comp, armor)
				pt := payload(size)
				ct := encryptSym(t, pt, EncryptOptions{Compress: comp, Armor: armor, Cipher: packet.CipherAES128})
				var got bytes.Buffer
				res, err := Decrypt(bytes.NewReader(ct), &got, DecryptOptions{Keys: passKeys{[]byte("pw")}})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !bytes.Equal(got.Bytes(), pt) {
					t.Fatalf("%s: plaintext differs", name)
				}
				if res.Mode() != "SEIPD v1" || res.Cipher != packet.CipherAES128 {
					t.Fatalf("%s: result %+v", name, res)
				}
			}
		}
	}
}

func TestMDCTampering(t *testing.T) {
	pt := payload(100000)
	ct := encryptSym(t, pt, EncryptOptions{})
	// Flip a bit in the ciphertext body, in the MDC, and truncate.
	for _, pos := range []int{len(ct) / 2, len(ct) - 1, len(ct) - 21, len(ct) - 23} {
		bad := bytes.Clone(ct)
		bad[pos] ^= 0x04
		_, err := Decrypt(bytes.NewReader(bad), io.Discard, DecryptOptions{Keys: passKeys{[]byte("pw")}})
		if !errors.Is(err, ErrAuthentication) && !errors.Is(err, ErrMalformed) {
			t.Errorf("flip at %d of %d: got %v", pos, len(ct), err)
		}
	}
	for _, cut := range []int{1, 10, 22, 23, 1000} {
		_, err := Decrypt(bytes.NewReader(ct[:len(ct)-cut]), io.Discard, DecryptOptions{Keys: passKeys{[]byte("pw")}})
		if err == nil {
			t.Errorf("truncated by %d: no error", cut)
		}
	}
	_, err := Decrypt(bytes.NewReader(ct), io.Discard, DecryptOptions{Keys: passKeys{[]byte("wrong")}})
	if err == nil {
		t.Errorf("wrong passphrase: no error")
	}
}

// TestArmorAfterText decrypts an armored message with a note above the
// armor, as gpg does (GnuPG's old test messages have one), and still
// refuses text with no armor in it.
func TestArmorAfterText(t *testing.T) {
	pt := seqPayload(1000)
	var ct bytes.Buffer
	opt := EncryptOptions{Passphrase: []byte("pw"), S2KCount: 1024, Armor: true, Cipher: packet.CipherAES256, Compress: packet.CompressNone}
	if _, err := Encrypt(bytes.NewReader(pt), &ct, opt); err != nil {
		t.Fatal(err)
	}
	msg := append([]byte("This is an encrypted version of plain-1\nfor the test key.\n\n"), ct.Bytes()...)
	var out bytes.Buffer
	if _, err := Decrypt(bytes.NewReader(msg), &out, DecryptOptions{Keys: secretKeys{pass: []byte("pw")}}); err != nil || !bytes.Equal(out.Bytes(), pt) {
		t.Fatalf("armor after text: %v", err)
	}
	if _, err := Decrypt(bytes.NewReader([]byte("just text\n-----BEGIN nothing\n")), io.Discard, DecryptOptions{Keys: secretKeys{pass: []byte("pw")}}); err == nil {
		t.Fatal("text without armor decrypted")
	}
}

// Every passphrase given opens the message, each with its own SKESK, and
// the session key Encrypt reports opens it too, in every format.
func TestPassphrasesAndSessionKey(t *testing.T) {
	for _, f := range []Format{SEIPDv1, SEIPDv2, AEADv1} {
		var sk SessionKeyInfo
		var ct bytes.Buffer
		opt := EncryptOptions{Format: f, Passphrase: []byte("one"), Passphrases: [][]byte{[]byte("two"), []byte("three")}, S2KCount: 1024,
			SessionKey: func(s SessionKeyInfo) { sk = s }}
		if _, err := Encrypt(bytes.NewReader([]byte("data")), &ct, opt); err != nil {
			t.Fatal(err)
		}
		if sk.Format != f || sk.Cipher != packet.CipherAES256 || len(sk.SessionKey) != 32 || (f == SEIPDv1) != (sk.AEAD == 0) {
			t.Fatalf("%v: session key reported as %+v", f, sk)
		}
		for _, pw := range []string{"one", "two", "three"} {
			var got bytes.Buffer
			if _, err := Decrypt(bytes.NewReader(ct.Bytes()), &got, DecryptOptions{Keys: passKeys{[]byte(pw)}}); err != nil || got.String() != "data" {
				t.Fatalf("%v with %q: %q %v", f, pw, got.String(), err)
			}
		}
		var got bytes.Buffer
		given := &GivenSessionKey{Cipher: sk.Cipher, Key: sk.SessionKey}
		if _, err := Decrypt(bytes.NewReader(ct.Bytes()), &got, DecryptOptions{Keys: passKeys{}, SessionKey: given}); err != nil || got.String() != "data" {
			t.Fatalf("%v with the session key: %q %v", f, got.String(), err)
		}
	}
}

type passListKeys struct {
	passKeys
	list [][]byte
}

func (k passListKeys) Passphrases() ([][]byte, error) { return k.list, nil }

// A PassphraseKeys has each of its passphrases tried: the one that opens
// the message may come after wrong ones.
func TestPassphraseList(t *testing.T) {
	ct := encryptSym(t, []byte("data"), EncryptOptions{})
	for _, list := range [][]string{{"pw"}, {"wrong", "pw"}, {"wrong", "worse"}, {}} {
		var keys passListKeys
		for _, p := range list {
			keys.list = append(keys.list, []byte(p))
		}
		var got bytes.Buffer
		_, err := Decrypt(bytes.NewReader(ct), &got, DecryptOptions{Keys: keys})
		if opens := slices.Contains(list, "pw"); opens != (err == nil) || opens && got.String() != "data" {
			t.Fatalf("%q: %q %v", list, got.String(), err)
		}
	}
}
