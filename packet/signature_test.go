package packet

import (
	"bytes"
	"crypto"
	"encoding/hex"
	"errors"
	"testing"
	"time"
)

// gpgSig is a v4 EdDSA data signature laid out as GnuPG writes one
// (testdata/aead's key): binary, SHA256, issuer fingerprint and creation
// time hashed, issuer key ID unhashed. The signature value is cut to two
// bytes: ParseSignature does not read it.
func gpgSig(t testing.TB) []byte {
	b, err := hex.DecodeString("04001608001d162104542e73c68886342b2177207826b4ab37b098ae9b05026a2b5c2d000a091026b4ab37b098ae9b4e2b00ff6f")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseSignature(t *testing.T) {
	b := gpgSig(t)
	s, err := ParseSignature(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	fpr, _ := hex.DecodeString("542e73c68886342b2177207826b4ab37b098ae9b")
	if s.Version != 4 || s.SigType != SigBinary || s.PubKeyAlgo != 22 || s.Hash != HashSHA256 ||
		s.IssuerKeyID != 0x26b4ab37b098ae9b || !bytes.Equal(s.IssuerFingerprint, fpr) ||
		!s.Created.Equal(time.Unix(0x6a2b5c2d, 0)) || s.HashPrefix != [2]byte{0x4e, 0x2b} {
		t.Fatalf("%+v", s)
	}
	for n := 0; n < 35; n++ {
		if _, err := ParseSignature(b[:n], 0); !errors.Is(err, ErrTruncated) {
			t.Fatalf("%d bytes: %v", n, err)
		}
	}
	bad := bytes.Clone(b)
	bad[6] = 0xff // a subpacket length running past its area
	if _, err := ParseSignature(bad, 0); err == nil {
		t.Fatal("a broken subpacket parsed")
	}
	var ue *UnsupportedError
	if _, err := ParseSignature([]byte{7, 0}, 0); !errors.As(err, &ue) {
		t.Fatalf("version 7: %v", err)
	}
}

func TestHashAlgo(t *testing.T) {
	for s, want := range map[string]HashAlgo{"SHA256": HashSHA256, "sha-384": HashSHA384, "SHA512": HashSHA512,
		"sha224": HashSHA224, "SHA1": HashSHA1, "8": HashSHA256, "SHA3-256": HashSHA3_256, "rmd160": HashRIPEMD160} {
		got, err := ParseHashAlgo(s)
		if err != nil || got != want {
			t.Errorf("%s: %v %v", s, got, err)
		}
	}
	if _, err := ParseHashAlgo("MD5"); err == nil {
		t.Error("MD5 accepted")
	}
	if HashMD5.Supported() || HashMD5.New() != nil {
		t.Error("MD5 hashes")
	}
	for _, a := range []HashAlgo{HashSHA1, HashRIPEMD160, HashSHA256, HashSHA384, HashSHA512, HashSHA224, HashSHA3_256, HashSHA3_512} {
		if a.New() == nil {
			t.Errorf("%v: no hasher", a)
		}
	}
	if HashAlgoOf(crypto.SHA384) != HashSHA384 || HashSHA256.SaltSize() != 16 || HashSHA1.SaltSize() != 0 {
		t.Error("mapping")
	}
}

func FuzzParseSignature(f *testing.F) {
	f.Add(gpgSig(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseSignature(b, 0)
	})
}
