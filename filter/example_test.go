package filter_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

// ringKeys gives decryption the ring's secret keys. They are stored
// unprotected here; keyring.Unlock would take the passphrase of a
// protected one.
type ringKeys struct{ ring *keyring.Ring }

func (k ringKeys) DecryptionKeys(p *packet.PKESK) []*gcpacket.PrivateKey {
	return k.ring.SecretKeysFor(p)
}
func (ringKeys) Unlock(priv *gcpacket.PrivateKey) error { return keyring.Unlock(priv, nil) }
func (ringKeys) Passphrase() ([]byte, error)            { return nil, errors.New("no passphrase") }

// newRing makes a keyring in a new directory with one key, Alice's.
func newRing() (ring *keyring.Ring, alice *keyring.Key, cleanup func()) {
	home, err := os.MkdirTemp("", "pgpstream-example")
	if err != nil {
		log.Fatal(err)
	}
	ring, err = keyring.Open(home)
	if err != nil {
		log.Fatal(err)
	}
	alice, err = ring.Generate(keyring.GenOptions{UserID: "Alice <alice@example.org>"})
	if err != nil {
		log.Fatal(err)
	}
	return ring, alice, func() { os.RemoveAll(home) }
}

// Encrypt to a key, signed, then decrypt and check the signature: the
// verdict on each signature (good, bad, expired, by a revoked key...) is
// filter's, decided with the key's state the ring gives.
func ExampleEncrypt() {
	ring, alice, cleanup := newRing()
	defer cleanup()
	rc, err := alice.Recipient()
	if err != nil {
		log.Fatal(err)
	}
	signer, err := alice.SigningKey(time.Now(), nil)
	if err != nil {
		log.Fatal(err)
	}
	var msg bytes.Buffer
	_, err = filter.Encrypt(strings.NewReader("Hello, Alice.\n"), &msg, filter.EncryptOptions{
		Recipients: []filter.Recipient{{Pub: rc.Pub}},
		Signers:    []filter.Signer{{Key: signer}},
	})
	if err != nil {
		log.Fatal(err)
	}

	var out bytes.Buffer
	res, err := filter.Decrypt(&msg, &out, filter.DecryptOptions{Keys: ringKeys{ring}, Signers: ring})
	if err != nil {
		log.Fatal(err) // nothing in out may be used: it was not authenticated
	}
	fmt.Print(out.String())
	fmt.Println("format:", res.Format)
	for _, s := range res.Signatures {
		fmt.Println("signature:", s.Status, "by", ring.Owner(s.Key.Fingerprint).PrimaryUserID())
	}
	// Output:
	// Hello, Alice.
	// format: SEIPD v1
	// signature: good by Alice <alice@example.org>
}

// Encrypt with Format Auto: filter chooses the data packet from what
// each recipient announces, as gpg does, and the result says which it
// wrote. Alice's v4 key announces nothing newer than SEIPD v1; Bob's v6
// key reads SEIPD v2, so a message to him alone is SEIPD v2 (RFC 9580
// AEAD, OCB), and one to both of them what both read. ForceAEAD is gpg
// 2.4's --force-ocb: AEAD even for readers that did not announce it.
func ExampleEncrypt_negotiated() {
	home, err := os.MkdirTemp("", "pgpstream-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(home)
	ring, err := keyring.Open(home)
	if err != nil {
		log.Fatal(err)
	}
	var rcpts []filter.Recipient
	for _, g := range []keyring.GenOptions{{UserID: "Alice <alice@example.org>"}, {UserID: "Bob <bob@example.org>", V6: true}} {
		k, err := ring.Generate(g)
		if err != nil {
			log.Fatal(err)
		}
		rc, err := k.Recipient()
		if err != nil {
			log.Fatal(err)
		}
		rcpts = append(rcpts, filter.Recipient{Pub: rc.Pub, Features: rc.Features()})
	}
	alice, bob := rcpts[0], rcpts[1]

	for _, c := range []struct {
		to    string
		rcpts []filter.Recipient
		force bool
	}{
		{"Bob", []filter.Recipient{bob}, false},
		{"Alice and Bob", []filter.Recipient{alice, bob}, false},
		{"Alice and Bob, forced", []filter.Recipient{alice, bob}, true},
	} {
		opt := filter.EncryptOptions{Recipients: c.rcpts, Format: filter.Auto, ForceAEAD: c.force}
		res, err := filter.Encrypt(strings.NewReader("Hello.\n"), io.Discard, opt)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %v", c.to, res.Format)
		if res.AEAD != 0 {
			fmt.Printf(" %v", res.AEAD)
		}
		fmt.Println()
	}
	// Output:
	// Bob: SEIPD v2 OCB
	// Alice and Bob: SEIPD v1
	// Alice and Bob, forced: AEAD (tag 20) OCB
}

// Make a detached signature and check it; changed data is a bad
// signature.
func ExampleVerifyDetached() {
	ring, alice, cleanup := newRing()
	defer cleanup()
	signer, err := alice.SigningKey(time.Now(), nil)
	if err != nil {
		log.Fatal(err)
	}
	data := "the signed text\n"
	var sig bytes.Buffer
	if _, err := filter.DetachSign(strings.NewReader(data), &sig, filter.SignOptions{
		Signers: []filter.Signer{{Key: signer}}, Armor: true,
	}); err != nil {
		log.Fatal(err)
	}

	for _, d := range []string{data, "the changed text\n"} {
		res, err := filter.VerifyDetached(bytes.NewReader(sig.Bytes()), strings.NewReader(d), filter.VerifyOptions{Signers: ring})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res[0].Status)
	}
	// Output:
	// good
	// bad
}

// passphrase is Keys for a message encrypted to a passphrase alone.
type passphrase []byte

func (passphrase) DecryptionKeys(*packet.PKESK) []*gcpacket.PrivateKey { return nil }
func (passphrase) Unlock(*gcpacket.PrivateKey) error                   { return errors.New("no secret keys") }
func (p passphrase) Passphrase() ([]byte, error)                       { return p, nil }

// Encrypt to a passphrase (gpg -c) and decrypt; a wrong passphrase is
// filter.ErrBadPassphrase.
func ExampleEncrypt_passphrase() {
	var msg bytes.Buffer
	if _, err := filter.Encrypt(strings.NewReader("for your eyes\n"), &msg, filter.EncryptOptions{
		Passphrase: []byte("correct horse"), Armor: true,
	}); err != nil {
		log.Fatal(err)
	}

	var out bytes.Buffer
	_, err := filter.Decrypt(bytes.NewReader(msg.Bytes()), &out, filter.DecryptOptions{Keys: passphrase("battery staple")})
	fmt.Println(errors.Is(err, filter.ErrBadPassphrase))
	out.Reset()
	res, err := filter.Decrypt(bytes.NewReader(msg.Bytes()), &out, filter.DecryptOptions{Keys: passphrase("correct horse")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(out.String())
	fmt.Println("opened with:", res.From())
	// Output:
	// true
	// for your eyes
	// opened with: SKESK v4
}
