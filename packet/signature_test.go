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
	f.Add([]byte{3, 5, 0x18, 0x35, 0x0f, 0x3f, 0x16, 0xd6, 0x34, 0x13, 0x6e, 0x43, 0x9f, 0x02, 0xca, 17, 2, 0xab, 0xcd, 0, 8, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSignature(b, 0)
		if err != nil || s.Version != 3 {
			return
		}
		// What is read as v3 reads back as v4 with the same fields.
		v4, err := ParseSignature(s.V4Body(), 0)
		if err != nil || v4.SigType != s.SigType || v4.IssuerKeyID != s.IssuerKeyID ||
			!v4.Created.Equal(s.Created) || v4.HashPrefix != s.HashPrefix {
			t.Fatalf("v3 %+v read back as %+v (%v)", s, v4, err)
		}
	})
}

// The signer's subpackets are read once, from the hashed area: expiry,
// signer's user ID, notations and features; an unhashed one is ignored.
func TestSignatureSignerSubpackets(t *testing.T) {
	var hashed []byte
	hashed = AppendSubpacket(hashed, subCreationTime, false, []byte{0x60, 0, 0, 0})
	hashed = AppendSubpacket(hashed, subExpiration, false, []byte{0, 0, 0x0e, 0x10}) // one hour
	hashed = AppendSubpacket(hashed, subSignerUserID, false, []byte("Alice <alice@example.org>"))
	notation := []byte{0x80, 0, 0, 0, 0, 3, 0, 2}
	notation = append(notation, "a@bhi"...)
	hashed = AppendSubpacket(hashed, subNotation, true, notation)
	hashed = AppendSubpacket(hashed, subNotation, false, []byte{0, 0, 0, 0, 0, 9, 0, 0, 'x'}) // lengths that do not fit: ignored
	hashed = AppendSubpacket(hashed, subFeatures, false, []byte{0x09})
	var unhashed []byte
	unhashed = AppendSubpacket(unhashed, subSignerUserID, false, []byte("Mallory"))
	unhashed = AppendSubpacket(unhashed, subIssuerKeyID, false, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	b := []byte{4, SigBinary, 22, byte(HashSHA256), byte(len(hashed) >> 8), byte(len(hashed))}
	b = append(b, hashed...)
	b = append(b, byte(len(unhashed)>>8), byte(len(unhashed)))
	b = append(b, unhashed...)
	b = append(b, 0xab, 0xcd, 0, 1, 1)
	s, err := ParseSignature(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	created := time.Unix(0x60000000, 0)
	if s.SignerUserID != "Alice <alice@example.org>" || !bytes.Equal(s.Features, []byte{0x09}) ||
		!s.Expires().Equal(created.Add(time.Hour)) || !bytes.Equal(s.Values, []byte{0, 1, 1}) ||
		s.IssuerKeyID != 0x0102030405060708 {
		t.Fatalf("%+v", s)
	}
	if want := []Notation{{Name: "a@b", Value: "hi", HumanReadable: true, Critical: true}}; len(s.Notations) != 1 || s.Notations[0] != want[0] {
		t.Fatalf("notations %+v, want %+v", s.Notations, want)
	}
	if s.ExpiredAt(created.Add(time.Hour)) || !s.ExpiredAt(created.Add(time.Hour+time.Second)) {
		t.Fatal("expiry is not at Created+Lifetime")
	}
	if (&Signature{Created: created}).ExpiredAt(created.Add(1000 * time.Hour)) {
		t.Fatal("a signature without a lifetime expired")
	}
}

// Revocation key subpackets are read from the hashed area only, each of
// them, with a v4 or v6 fingerprint; one of another length is not.
func TestSignatureRevokers(t *testing.T) {
	v4 := bytes.Repeat([]byte{0xaa}, 20)
	v6 := bytes.Repeat([]byte{0xbb}, 32)
	var hashed, unhashed []byte
	hashed = AppendSubpacket(hashed, subCreationTime, false, []byte{0x60, 0, 0, 0})
	hashed = AppendSubpacket(hashed, subRevocationKey, false, append([]byte{0x80, 1}, v4...))
	hashed = AppendSubpacket(hashed, subRevocationKey, true, append([]byte{0xc0, 27}, v6...))
	hashed = AppendSubpacket(hashed, subRevocationKey, false, append([]byte{0x80, 1}, v4[:19]...))
	unhashed = AppendSubpacket(unhashed, subRevocationKey, false, append([]byte{0x80, 17}, v4...))
	b := []byte{4, 0x1f, 1, byte(HashSHA256), byte(len(hashed) >> 8), byte(len(hashed))}
	b = append(b, hashed...)
	b = append(b, byte(len(unhashed)>>8), byte(len(unhashed)))
	b = append(b, unhashed...)
	b = append(b, 0xab, 0xcd, 0, 1, 1)
	s, err := ParseSignature(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Revoker{{Class: 0x80, PubKeyAlgo: 1, Fingerprint: v4}, {Class: 0xc0, PubKeyAlgo: 27, Fingerprint: v6}}
	if len(s.Revokers) != len(want) {
		t.Fatalf("revokers %+v, want %+v", s.Revokers, want)
	}
	for i, r := range s.Revokers {
		if r.Class != want[i].Class || r.PubKeyAlgo != want[i].PubKeyAlgo || !bytes.Equal(r.Fingerprint, want[i].Fingerprint) {
			t.Errorf("revoker %d: %+v, want %+v", i, r, want[i])
		}
	}
}

// The public-key algorithms' names: the RFC's, and gpg's (libgcrypt's
// upper-case names, as "using EDDSA key" and --list-config print them).
func TestPubKeyAlgoNames(t *testing.T) {
	for _, c := range []struct {
		a        PubKeyAlgo
		rfc, gpg string
	}{
		{PubKeyRSA, "RSA", "RSA"}, {PubKeyRSASignOnly, "RSA", "RSA"}, {PubKeyElGamal, "ElGamal", "ELG"},
		{PubKeyDSA, "DSA", "DSA"}, {PubKeyECDH, "ECDH", "ECDH"}, {PubKeyEdDSA, "EdDSA", "EDDSA"},
		{PubKeyEd25519, "Ed25519", "ED25519"}, {PubKeyX448, "X448", "X448"}, {99, "algorithm 99", ""},
	} {
		if c.a.String() != c.rfc || c.a.GPGName() != c.gpg {
			t.Errorf("%d: %q %q, want %q %q", uint8(c.a), c.a.String(), c.a.GPGName(), c.rfc, c.gpg)
		}
	}
}

// TestV3AsV4 rewrites a v3 subkey binding laid out as PGP 5 wrote the
// one in GnuPG's tests (DSA, SHA-1; the MPI cut to two bytes): the v4
// form carries the same fields, and the trailer is the type and time.
func TestV3AsV4(t *testing.T) {
	v3, err := hex.DecodeString("030518350f3f16d634136e439f02ca1102abcd0008ff")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSignature(v3, 0)
	if err != nil {
		t.Fatal(err)
	}
	v4, err := ParseSignature(s.V4Body(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if v4.Version != 4 || v4.SigType != s.SigType || v4.PubKeyAlgo != 17 || v4.Hash != HashSHA1 ||
		v4.IssuerKeyID != 0xd634136e439f02ca || !v4.Created.Equal(time.Unix(0x350f3f16, 0)) ||
		v4.HashPrefix != [2]byte{0xab, 0xcd} || !bytes.HasSuffix(v4.Body, []byte{0, 8, 0xff}) {
		t.Fatalf("%+v", v4)
	}
	if got := s.V3Trailer(); !bytes.Equal(got, []byte{0x18, 0x35, 0x0f, 0x3f, 0x16}) {
		t.Fatalf("trailer %x", got)
	}
	b := gpgSig(t)
	if g, err := ParseSignature(b, 0); err != nil || !bytes.Equal(g.V4Body(), b) || g.V3Trailer() != nil {
		t.Fatal("a v4 signature is not left as it is")
	}
}
