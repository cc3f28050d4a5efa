package keyring

import (
	"bytes"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/clock"
)

// roundTrip writes k and reads it back, as a caller holding keys in files
// does between two steps.
func roundTrip(t *testing.T, k *Key, secret, armored bool) *Key {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteKeys(&buf, []*Key{k}, secret, armored); err != nil {
		t.Fatal(err)
	}
	keys, err := ReadKeys(&buf)
	if err != nil || len(keys) != 1 {
		t.Fatalf("reading back: %d keys, %v", len(keys), err)
	}
	return keys[0]
}

// MakeKey binds user IDs exactly as given, in order, the first primary,
// including ones go-crypto's name/comment/address form cannot express,
// and a v6 key without any still signs and is encrypted to.
func TestMakeKeyUserIDs(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		uids := []string{"Alice <alice@example.org>", "(no parentheses) rule <for> me", "bob@example.org"}
		k, err := MakeKey(MakeOptions{UserIDs: uids, V6: v6})
		if err != nil {
			t.Fatal(err)
		}
		k = roundTrip(t, k, true, true)
		if !k.HasSecret() || !slices.Equal(k.UserIDs(), uids) || k.PrimaryUserID() != uids[0] {
			t.Fatalf("v6=%v: user IDs %q (primary %q), secret %v", v6, k.UserIDs(), k.PrimaryUserID(), k.HasSecret())
		}
		for _, uids := range [][]string{nil, {"only"}} {
			k, err := MakeKey(MakeOptions{UserIDs: uids, V6: v6})
			if !v6 && uids == nil {
				if !errors.Is(err, ErrV4NeedsUserID) {
					t.Fatalf("a v4 key without user ID: %v", err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			k = roundTrip(t, k, true, false)
			if _, err := k.SigningKey(clock.Now(), nil); err != nil {
				t.Errorf("v6=%v %q: no signing key: %v", v6, uids, err)
			}
			if _, err := k.Recipient(); err != nil {
				t.Errorf("v6=%v %q: not a recipient: %v", v6, uids, err)
			}
		}
	}
}

// A signing-only key has no encryption key; its certificate has no
// secret material.
func TestMakeKeySigningOnly(t *testing.T) {
	k, err := MakeKey(MakeOptions{UserIDs: []string{"s"}, SigningOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Recipient(); !errors.Is(err, ErrNoEncryptionKey) {
		t.Fatalf("signing-only key is a recipient: %v", err)
	}
	cert := roundTrip(t, k, false, true)
	if cert.HasSecret() {
		t.Fatal("the certificate carries secret keys")
	}
}

// Reprotect opens every secret key with any of the old passphrases and
// protects it with the new one; Revoke makes a revocation the certificate
// then carries, with the key's passphrase.
func TestReprotectRevoke(t *testing.T) {
	k, err := MakeKey(MakeOptions{UserIDs: []string{"p"}, Passphrase: []byte("old")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Reprotect([][]byte{[]byte("wrong")}, []byte("new")); !errors.Is(err, ErrBadPassphrase) {
		t.Fatalf("wrong passphrase: %v", err)
	}
	nk, err := k.Reprotect([][]byte{[]byte("wrong"), []byte("old")}, []byte("new"))
	if err != nil {
		t.Fatal(err)
	}
	nk = roundTrip(t, nk, true, false)
	for _, priv := range nk.privs {
		if UnlockAny(priv, [][]byte{[]byte("old")}) == nil || UnlockAny(priv, [][]byte{[]byte("new")}) != nil {
			t.Fatalf("key %X is not protected by the new passphrase alone", priv.Fingerprint)
		}
	}
	if _, err := nk.Revoke(nil); !errors.Is(err, ErrBadPassphrase) {
		t.Fatalf("revoked without the passphrase: %v", err)
	}
	rk, err := nk.Revoke([][]byte{[]byte("new")})
	if err != nil {
		t.Fatal(err)
	}
	rk = roundTrip(t, rk, false, true)
	if revoked, _ := rk.Lifetime(clock.Now().Add(time.Second)); !revoked {
		t.Fatal("the revoked certificate is not revoked")
	}
	if _, err := rk.Recipient(); err == nil {
		t.Fatal("a revoked certificate is still a recipient")
	}
	if revoked, _ := nk.Lifetime(clock.Now().Add(time.Second)); revoked {
		t.Fatal("Revoke changed the key it was given")
	}
}

// SignerKeys finds the signing key by key ID or fingerprint, and not the
// encryption subkey.
func TestSignerKeys(t *testing.T) {
	k, err := MakeKey(MakeOptions{UserIDs: []string{"v"}})
	if err != nil {
		t.Fatal(err)
	}
	pk := k.Entity().PrimaryKey
	now := clock.Now()
	if got := k.SignerKeys(pk.KeyId, nil, now); len(got) != 1 || got[0] != pk {
		t.Fatalf("by key ID: %v", got)
	}
	if got := k.SignerKeys(0, pk.Fingerprint, now); len(got) != 1 {
		t.Fatalf("by fingerprint: %v", got)
	}
	sub := k.Entity().Subkeys[0].PublicKey
	if got := k.SignerKeys(sub.KeyId, nil, now); len(got) != 0 {
		t.Fatalf("the encryption subkey signs: %v", got)
	}
	if got := k.DecryptionKeys(sub.KeyId); len(got) != 1 {
		t.Fatalf("decryption keys for the subkey: %v", got)
	}
}
