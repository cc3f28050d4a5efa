package keyring

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// gpg 2.2 makes DSA keys with Elgamal subkeys, RSA keys of 1024 to 4096
// bits and primary keys alone, and python-gnupg's own tests ask for them.
func TestGenerateLegacy(t *testing.T) {
	r := openRing(t)
	// A user ID go-crypto would refuse to build: gpg's parameter files
	// take any comment.
	uid := "Dee Example (A test user (insecure!)) <dee@example.test>"
	k, err := r.Generate(GenOptions{UserID: uid, Algo: "dsa1024", Subkey: "elg1024"})
	if err != nil {
		t.Fatal(err)
	}
	e := k.Entity()
	if e.PrimaryKey.PubKeyAlgo != packet.PubKeyAlgoDSA || len(e.Subkeys) != 1 || e.Subkeys[0].PublicKey.PubKeyAlgo != packet.PubKeyAlgoElGamal {
		t.Fatalf("made %v with %d subkeys", e.PrimaryKey.PubKeyAlgo, len(e.Subkeys))
	}
	if bits, _ := e.Subkeys[0].PublicKey.BitLength(); bits != 1024 {
		t.Errorf("Elgamal subkey of %d bits, want 1024", bits)
	}
	if got := k.UserIDs(); len(got) != 1 || got[0] != uid {
		t.Errorf("user IDs %q, want %q", got, uid)
	}
	out := listing(t, r, nil, false, false)
	for _, want := range []string{"pub   dsa1024 ", "sub   elg1024 ", "[ultimate] " + uid} {
		if !bytes.Contains([]byte(out), []byte(want)) {
			t.Errorf("listing lacks %q:\n%s", want, out)
		}
	}
	sessionKeyRoundTrip(t, r, k.Fingerprint(), r, nil)

	// A DSA signing subkey added later.
	sub, err := r.AddKey(k.Fingerprint(), AddKeyOptions{Algo: "dsa1024", Usage: "sign"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := listing(t, r, nil, false, false); !bytes.Contains([]byte(out), []byte("sub   dsa1024 ")) {
		t.Errorf("no DSA subkey %s in:\n%s", sub, out)
	}

	// An RSA 2048 key alone that encrypts, as gpg makes it when a
	// parameter file has no Subkey-Type.
	k, err = r.Generate(GenOptions{UserID: "Rsa Alone <rsa@example.test>", Algo: "rsa2048", Subkey: "none", Usage: "sign,encrypt,auth"})
	if err != nil {
		t.Fatal(err)
	}
	if e := k.Entity(); len(e.Subkeys) != 0 {
		t.Fatalf("%d subkeys, want none", len(e.Subkeys))
	}
	sessionKeyRoundTrip(t, r, k.Fingerprint(), r, nil)

	if _, err := r.Generate(GenOptions{UserID: "x <x@y>", Algo: "dsa1024", V6: true}); err == nil {
		t.Error("a v6 DSA key was made")
	}
}

// "FPR!" names one subkey: gpg, and python-gnupg's delete_keys with
// exclamation_mode, delete its secret part, then its public part, alone.
func TestDeleteSubkey(t *testing.T) {
	r := openRing(t)
	k, err := r.Generate(GenOptions{UserID: "Sub Delete <sub@example.test>"})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := r.AddKey(k.Fingerprint(), AddKeyOptions{Algo: "ed25519", Usage: "sign"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Delete([]string{sub + "!"}, false, false); !errors.Is(err, ErrHasSecret) {
		t.Fatalf("public subkey deleted before its secret part: %v", err)
	}
	if n, err := r.DeleteSecret([]string{sub + "!"}, false); n != 1 || err != nil {
		t.Fatalf("DeleteSecret(%s!): %d, %v", sub, n, err)
	}
	if n, err := r.Delete([]string{sub + "!"}, false, false); n != 1 || err != nil {
		t.Fatalf("Delete(%s!): %d, %v", sub, n, err)
	}
	k = r.byFingerprint(k.Fingerprint())
	if k == nil || len(k.Entity().Subkeys) != 1 || k.sec == nil {
		t.Fatalf("after deleting the subkey: %v", k)
	}
}
