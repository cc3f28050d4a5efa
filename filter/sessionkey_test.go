package filter

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/packet"
)

// chanceSKESK is a v4 SKESK with no encrypted session key (AES-256,
// iterated SHA-256 with the given count octet): any passphrase derives
// some key from it, which the message's quick check then refuses.
func chanceSKESK(t *testing.T, salt byte, count byte) []byte {
	body, _ := hex.DecodeString(fmt.Sprintf("04090308%016x%02x", uint64(salt)*0x0101010101010101, count))
	return append(packet.AppendHeader(nil, packet.TagSKESK, int64(len(body))), body...)
}

// argon2SKESK is a v6 SKESK with an Argon2 S2K of 2^m KiB over t passes;
// its other fields are filler, never reached.
func argon2SKESK(t *testing.T, passes, m byte) []byte {
	body := []byte{6, 38, byte(packet.CipherAES256), byte(packet.AEADOCB), 20, 4}
	body = append(body, make([]byte, 16)...) // salt
	body = append(body, passes, 4, m)
	body = append(body, make([]byte, 15+32+16)...) // IV, session key, tag
	return append(packet.AppendHeader(nil, packet.TagSKESK, int64(len(body))), body...)
}

// A key that a wrong SKESK yields by chance does not end the search: the
// next SKESK, which the passphrase opens, decrypts the message.
func TestSKESKSearchGoesOn(t *testing.T) {
	pt := payload(5000)
	ct := encryptSym(t, pt, EncryptOptions{Cipher: packet.CipherAES256})
	var msg []byte
	for i := range 3 {
		msg = append(msg, chanceSKESK(t, byte(i+1), 0x10)...)
	}
	msg = append(msg, ct...)
	var out bytes.Buffer
	if _, err := Decrypt(bytes.NewReader(msg), &out, DecryptOptions{Keys: passKeys{[]byte("pw")}}); err != nil {
		t.Fatalf("the passphrase of the fourth SKESK: %v", err)
	}
	if !bytes.Equal(out.Bytes(), pt) {
		t.Fatal("plaintext differs")
	}
	// A wrong passphrase: every key is refused by the quick check, and
	// the error is the one a failed MDC gives.
	_, err := Decrypt(bytes.NewReader(msg), &out, DecryptOptions{Keys: passKeys{[]byte("wrong")}})
	if err != ErrAuthentication && !errors.Is(err, ErrBadPassphrase) {
		t.Fatalf("a wrong passphrase: %v", err)
	}
}

// SKESKs that together ask for more key derivation than one message may
// are refused before any is tried.
func TestS2KWorkPerMessage(t *testing.T) {
	ct := encryptSym(t, payload(100), EncryptOptions{Cipher: packet.CipherAES256})
	for _, c := range []struct {
		name  string
		extra []byte
	}{
		{"two Argon2 SKESKs at the single bound", append(argon2SKESK(t, 16, 21), argon2SKESK(t, 16, 21)...)},
		{"33 passes over 1 GiB in all", bytes.Repeat(argon2SKESK(t, 11, 20), 3)},
		{"nine iterated SKESKs at the largest count", bytes.Repeat(chanceSKESK(t, 1, 0xff), 9)},
	} {
		msg := append(append([]byte{}, c.extra...), ct...)
		_, err := Decrypt(bytes.NewReader(msg), &bytes.Buffer{}, DecryptOptions{Keys: passKeys{[]byte("pw")}})
		if !errors.Is(err, ErrS2KCost) {
			t.Errorf("%s: %v", c.name, err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: a multi-line error: %q", c.name, err)
		}
	}
	// Within the bounds: seven chance SKESKs at the largest count, then
	// the message's own (S2KCount 1024), are all tried.
	msg := append(bytes.Repeat(chanceSKESK(t, 2, 0xff), 7), ct...)
	if _, err := Decrypt(bytes.NewReader(msg), &bytes.Buffer{}, DecryptOptions{Keys: passKeys{[]byte("pw")}}); err != nil {
		t.Errorf("eight SKESKs: %v", err)
	}
}

// lockedKeys holds keys whose Unlock fails as a locked key's does.
type lockedKeys struct{ secretKeys }

func (lockedKeys) Unlock(priv *gcpacket.PrivateKey) error {
	return fmt.Errorf("secret key %016X is %w", priv.KeyId, ErrKeyLocked)
}

// When no key opens the message, each key's failure is joined to
// ErrNoSecretKey, testable with errors.Is and errors.As, on one line.
func TestNoSecretKeyJoinsCauses(t *testing.T) {
	privs, el := readSecretKeys(t, filepath.Join("..", "testdata", "aead", "key-sec.asc"))
	var pub *gcpacket.PublicKey
	for _, s := range el[0].Subkeys {
		pub = s.PublicKey
	}
	var ct bytes.Buffer
	opt := EncryptOptions{Recipients: []Recipient{{Pub: pub}}, Passphrase: []byte("pw"), S2KCount: 1024}
	if _, err := Encrypt(bytes.NewReader(payload(10)), &ct, opt); err != nil {
		t.Fatal(err)
	}
	_, err := Decrypt(bytes.NewReader(ct.Bytes()), &bytes.Buffer{}, DecryptOptions{Keys: lockedKeys{secretKeys{privs: privs, pass: []byte("wrong")}}})
	var ke *KeyError
	switch {
	case !errors.Is(err, ErrNoSecretKey):
		t.Fatalf("not ErrNoSecretKey: %v", err)
	case !errors.Is(err, ErrKeyLocked):
		t.Errorf("the locked key's cause is lost: %v", err)
	case !errors.As(err, &ke) || ke.KeyID != pub.KeyId:
		t.Errorf("no KeyError for %016X: %v", pub.KeyId, err)
	case !errors.Is(err, ErrBadPassphrase):
		t.Errorf("the passphrase's failure is lost: %v", err)
	case strings.Contains(err.Error(), "\n"):
		t.Errorf("a multi-line error: %q", err)
	}
	t.Log(err)
}
