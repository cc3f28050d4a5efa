package filter

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"math/big"
	"slices"
	"testing"
	"time"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// entityKeys is a SignerKeys over go-crypto entities.
type entityKeys []*v2.Entity

func (ks entityKeys) SignerKeys(id uint64, fpr []byte, made, now time.Time) []SignerKey {
	var out []SignerKey
	for _, e := range ks {
		if e.PrimaryKey.KeyId == id && (fpr == nil || bytes.Equal(fpr, e.PrimaryKey.Fingerprint)) {
			out = append(out, SignerKey{Key: e.PrimaryKey})
		}
	}
	return out
}

// stateKeys gives every key of keys the state revoked and expired.
type stateKeys struct {
	keys    SignerKeys
	revoked bool
	expired time.Time
}

func (s stateKeys) SignerKeys(id uint64, fpr []byte, made, now time.Time) []SignerKey {
	out := s.keys.SignerKeys(id, fpr, made, now)
	for i := range out {
		out[i].Revoked, out[i].Expired = s.revoked, s.expired
	}
	return out
}

var testEntities = map[string]*v2.Entity{}

func testEntity(t testing.TB, kind string) *v2.Entity {
	t.Helper()
	if e := testEntities[kind]; e != nil {
		return e
	}
	cfg := &gcpacket.Config{Algorithm: gcpacket.PubKeyAlgoEdDSA, Curve: gcpacket.Curve25519}
	switch kind {
	case "v6":
		cfg = &gcpacket.Config{V6Keys: true, Algorithm: gcpacket.PubKeyAlgoEd25519}
	case "p256":
		cfg = &gcpacket.Config{Algorithm: gcpacket.PubKeyAlgoECDSA, Curve: gcpacket.CurveNistP256}
	}
	e, err := v2.NewEntity("T", "", "t@example.org", cfg)
	if err != nil {
		t.Fatal(err)
	}
	testEntities[kind] = e
	return e
}

func signerOf(e *v2.Entity, h packet.HashAlgo) Signer {
	return Signer{Key: e.PrivateKey, Hash: h}
}

// packets splits a binary message into its top-level packets, header and body.
func packets(t testing.TB, msg []byte) [][]byte {
	t.Helper()
	var out [][]byte
	r := iobuf.NewReader(bytes.NewReader(msg), 0)
	for {
		start := r.Offset()
		h, err := packet.ReadHeader(r)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := packet.NewBody(r, h).ReadAll(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		_ = start
		out = append(out, append(packet.AppendHeader(nil, h.Tag, int64(len(body))), body...))
	}
}

func decryptSigned(t testing.TB, msg []byte, keys SignerKeys, legacy bool) (*Result, []byte) {
	t.Helper()
	var out bytes.Buffer
	res, err := Decrypt(bytes.NewReader(msg), &out, DecryptOptions{Keys: passKeys{[]byte("pw")}, Signers: keys, LegacyLiteralHash: legacy})
	if err != nil {
		t.Fatal(err)
	}
	return res, out.Bytes()
}

func statuses(res []SignatureResult) []SigStatus {
	var s []SigStatus
	for _, r := range res {
		s = append(s, r.Status)
	}
	return s
}

func TestSignEncryptRoundTrip(t *testing.T) {
	for _, kind := range []string{"ed25519", "v6", "p256"} {
		for _, n := range []int{0, 1, ChunkSize - 1, ChunkSize + 1} {
			e := testEntity(t, kind)
			pt := payload(n)
			var buf bytes.Buffer
			_, err := Encrypt(bytes.NewReader(pt), &buf, EncryptOptions{
				Passphrase: []byte("pw"), S2KCount: 1024, Signers: []Signer{signerOf(e, packet.HashSHA512)},
			})
			if err != nil {
				t.Fatal(err)
			}
			res, out := decryptSigned(t, buf.Bytes(), entityKeys{e}, false)
			if !bytes.Equal(out, pt) {
				t.Fatalf("%s/%d: plaintext differs", kind, n)
			}
			if got := statuses(res.Signatures); !slices.Equal(got, []SigStatus{SigGood}) {
				t.Fatalf("%s/%d: signatures %v (%v)", kind, n, got, res.Signatures[0].Err)
			}
			if !slices.Equal(res.Hashes, []packet.HashAlgo{packet.HashSHA512}) {
				t.Fatalf("%s/%d: hashes %v, want only SHA512", kind, n, res.Hashes)
			}
			if v := res.Signatures[0].Sig.Version; v != e.PrimaryKey.Version {
				t.Fatalf("%s: signature version %d for a v%d key", kind, v, e.PrimaryKey.Version)
			}
			// Without the key: reported, not fatal.
			res, _ = decryptSigned(t, buf.Bytes(), nil, false)
			if got := statuses(res.Signatures); !slices.Equal(got, []SigStatus{SigNoKey}) {
				t.Fatalf("%s/%d: without the key: %v", kind, n, got)
			}
		}
	}
}

func TestTwoSigners(t *testing.T) {
	a, b := testEntity(t, "ed25519"), testEntity(t, "v6")
	var buf bytes.Buffer
	if _, err := Sign(bytes.NewReader(payload(1000)), &buf, SignOptions{Signers: []Signer{signerOf(a, 0), signerOf(b, 0)}}); err != nil {
		t.Fatal(err)
	}
	res, _ := decryptSigned(t, buf.Bytes(), entityKeys{a, b}, false)
	if got := statuses(res.Signatures); !slices.Equal(got, []SigStatus{SigGood, SigGood}) {
		t.Fatalf("signatures %v", got)
	}
	if res.Signatures[0].Key != a.PrimaryKey {
		t.Fatal("the first signature is not the first signer's")
	}
	// v4 and v6 signatures over SHA256 need two hashes: the v6 one is salted.
	if len(res.Hashes) != 2 {
		t.Fatalf("hashes %v", res.Hashes)
	}
}

// TestNoHashWithoutSignature: decrypting an unsigned message runs no
// signature hash, unless the legacy form is asked for.
func TestNoHashWithoutSignature(t *testing.T) {
	msg := encryptSym(t, payload(5000), EncryptOptions{})
	res, _ := decryptSigned(t, msg, nil, false)
	if len(res.Hashes) != 0 || len(res.Signatures) != 0 {
		t.Fatalf("hashes %v, signatures %v on an unsigned message", res.Hashes, res.Signatures)
	}
	res, _ = decryptSigned(t, msg, nil, true)
	if !slices.Equal(res.Hashes, []packet.HashAlgo{packet.HashSHA1, packet.HashRIPEMD160}) {
		t.Fatalf("legacy hashes %v", res.Hashes)
	}
}

// TestSignatureForms: old GnuPG's literal-then-signature, the
// signature-first form, and tampering with an unencrypted signed message.
func TestSignatureForms(t *testing.T) {
	e := testEntity(t, "ed25519")
	pt := payload(3000)
	var buf bytes.Buffer
	// SHA1, what old GnuPG's form was hashed with: made before the
	// cut-off, so the policy still checks it.
	if _, err := Sign(bytes.NewReader(pt), &buf, SignOptions{Signers: []Signer{signerOf(e, packet.HashSHA1)}, Time: SHA1Cutoff.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	p := packets(t, buf.Bytes())
	if len(p) != 3 || p[0][0]&0x3f != byte(packet.TagOnePassSignature) {
		t.Fatalf("Sign wrote %d packets", len(p))
	}
	ops, lit, sig := p[0], p[1], p[2]
	keys := entityKeys{e}

	legacy := slices.Concat(lit, sig)
	res, out := decryptSigned(t, legacy, keys, false)
	if got := statuses(res.Signatures); !slices.Equal(got, []SigStatus{SigUnchecked}) || len(res.Hashes) != 0 || !bytes.Equal(out, pt) {
		t.Fatalf("literal+signature without the flag: %v, hashes %v", got, res.Hashes)
	}
	res, _ = decryptSigned(t, legacy, keys, true)
	if got := statuses(res.Signatures); !slices.Equal(got, []SigStatus{SigGood}) || res.Signatures[0].Form != FormLegacy {
		t.Fatalf("literal+signature with the flag: %v", got)
	}

	first := slices.Concat(sig, lit)
	res, _ = decryptSigned(t, first, keys, false)
	if got := statuses(res.Signatures); !slices.Equal(got, []SigStatus{SigGood}) || res.Signatures[0].Form != FormPrefixed {
		t.Fatalf("signature first: %v", got)
	}

	// A bit flipped in the data (the last byte of the literal packet)
	// and one in the signature's MPIs.
	badData := slices.Concat(ops, lit, sig)
	badData[len(ops)+len(lit)-1] ^= 1
	badSig := slices.Concat(ops, lit, sig)
	badSig[len(badSig)-5] ^= 1
	for name, m := range map[string][]byte{"data": badData, "signature": badSig} {
		res, _ = decryptSigned(t, m, keys, false)
		if got := statuses(res.Signatures); !slices.Equal(got, []SigStatus{SigBad}) {
			t.Fatalf("flipped %s: %v", name, got)
		}
	}

	// A one-pass packet whose signature never comes.
	res, _ = decryptSigned(t, slices.Concat(ops, lit), keys, false)
	if got := statuses(res.Signatures); !slices.Equal(got, []SigStatus{SigError}) {
		t.Fatalf("missing signature: %v", got)
	}
}

func TestDetached(t *testing.T) {
	for _, kind := range []string{"ed25519", "v6"} {
		e := testEntity(t, kind)
		pt := payload(300000)
		var sig bytes.Buffer
		if _, err := DetachSign(bytes.NewReader(pt), &sig, SignOptions{Signers: []Signer{signerOf(e, 0)}, Armor: true}); err != nil {
			t.Fatal(err)
		}
		res, err := VerifyDetached(bytes.NewReader(sig.Bytes()), bytes.NewReader(pt), VerifyOptions{Signers: entityKeys{e}})
		if err != nil || !slices.Equal(statuses(res), []SigStatus{SigGood}) {
			t.Fatalf("%s: %v %v", kind, statuses(res), err)
		}
		pt[1000] ^= 1
		res, err = VerifyDetached(bytes.NewReader(sig.Bytes()), bytes.NewReader(pt), VerifyOptions{Signers: entityKeys{e}})
		if err != nil || !slices.Equal(statuses(res), []SigStatus{SigBad}) {
			t.Fatalf("%s changed data: %v %v", kind, statuses(res), err)
		}
	}
	if _, err := VerifyDetached(bytes.NewReader(nil), bytes.NewReader(nil), VerifyOptions{}); err == nil {
		t.Fatal("an empty signature file verified")
	}
}

// Two armored detached signatures one after the other (two signers'
// .asc files concatenated, as python-gnupg's tests write them) are both
// checked, as gpg checks them; one over other data is bad.
func TestDetachedConcatenated(t *testing.T) {
	a, b := testEntity(t, "ed25519"), testEntity(t, "v6")
	pt := payload(1000)
	sign := func(e *v2.Entity, data []byte) []byte {
		var sig bytes.Buffer
		if _, err := DetachSign(bytes.NewReader(data), &sig, SignOptions{Signers: []Signer{signerOf(e, 0)}, Armor: true}); err != nil {
			t.Fatal(err)
		}
		return append(sig.Bytes(), '\n')
	}
	keys := entityKeys{a, b}
	res, err := VerifyDetached(bytes.NewReader(slices.Concat(sign(a, pt), sign(b, pt))), bytes.NewReader(pt), VerifyOptions{Signers: keys})
	if err != nil || !slices.Equal(statuses(res), []SigStatus{SigGood, SigGood}) {
		t.Fatalf("two good signatures: %v %v", statuses(res), err)
	}
	res, err = VerifyDetached(bytes.NewReader(slices.Concat(sign(a, pt), sign(b, payload(10)))), bytes.NewReader(pt), VerifyOptions{Signers: keys})
	if err != nil || !slices.Equal(statuses(res), []SigStatus{SigGood, SigBad}) {
		t.Fatalf("a good and a bad signature: %v %v", statuses(res), err)
	}
}

func TestLockedSignerRefused(t *testing.T) {
	e := testEntity(t, "ed25519")
	k := *e.PrivateKey
	k.Encrypted = true
	_, err := Sign(bytes.NewReader(nil), io.Discard, SignOptions{Signers: []Signer{{Key: &k}}})
	if err == nil {
		t.Fatal("signed with a locked key")
	}
	_, err = Sign(bytes.NewReader(nil), io.Discard, SignOptions{Signers: []Signer{{Key: e.PrivateKey, Hash: packet.HashMD5}}})
	if err == nil {
		t.Fatal("signed with MD5")
	}
	if errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
}

func TestCRLFWriter(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"a\nb\r\nc"}, "a\r\nb\r\nc"},
		{[]string{"a\r", "\nb\n"}, "a\r\nb\r\n"},
		{[]string{"\n", "\n"}, "\r\n\r\n"},
		{[]string{"x\r", "y\n"}, "x\ry\r\n"},
	} {
		var b bytes.Buffer
		w := &crlfWriter{w: &b}
		for _, s := range tc.in {
			w.Write([]byte(s))
		}
		if b.String() != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, b.String(), tc.want)
		}
	}
}

// BenchmarkVerify1MiB measures decryption of a signed 16 MiB message
// against an unsigned one, to show what the signature hash costs.
func BenchmarkDecryptSigned(b *testing.B) {
	e := testEntity(b, "ed25519")
	pt := payload(16 << 20)
	for _, signed := range []bool{false, true} {
		opt := EncryptOptions{Passphrase: []byte("pw"), S2KCount: 1024}
		if signed {
			opt.Signers = []Signer{signerOf(e, packet.HashSHA256)}
		}
		var buf bytes.Buffer
		if _, err := Encrypt(bytes.NewReader(pt), &buf, opt); err != nil {
			b.Fatal(err)
		}
		name := "unsigned"
		if signed {
			name = "SHA256"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(pt)))
			for b.Loop() {
				if _, err := Decrypt(bytes.NewReader(buf.Bytes()), io.Discard, DecryptOptions{Keys: passKeys{[]byte("pw")}, Signers: entityKeys{e}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDetachedV3 checks a v3 signature (RFC 4880 section 5.2.2), which
// gpg 2.2 verifies and GnuPG's own test messages are full of: the data's
// hash ends with the type and creation time alone.
func TestDetachedV3(t *testing.T) {
	e, err := v2.NewEntity("V3", "", "v3@example.org", &gcpacket.Config{Algorithm: gcpacket.PubKeyAlgoRSA, RSABits: 2048})
	if err != nil {
		t.Fatal(err)
	}
	pt := payload(5000)
	created := uint32(1141658202)
	var tm [4]byte
	binary.BigEndian.PutUint32(tm[:], created)
	h := sha256.New()
	h.Write(pt)
	h.Write([]byte{0x00})
	h.Write(tm[:])
	digest := h.Sum(nil)
	s, err := rsa.SignPKCS1v15(rand.Reader, e.PrivateKey.PrivateKey.(*rsa.PrivateKey), crypto.SHA256, digest)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte{3, 5, 0x00}
	body = append(body, tm[:]...)
	body = binary.BigEndian.AppendUint64(body, e.PrimaryKey.KeyId)
	body = append(body, 1, byte(packet.HashSHA256), digest[0], digest[1])
	body = binary.BigEndian.AppendUint16(body, uint16(new(big.Int).SetBytes(s).BitLen()))
	body = append(body, bytes.TrimLeft(s, "\x00")...)
	sig := packet.AppendHeader(nil, packet.TagSignature, int64(len(body)))
	sig = append(sig, body...)

	res, err := VerifyDetached(bytes.NewReader(sig), bytes.NewReader(pt), VerifyOptions{Signers: entityKeys{e}})
	if err != nil || !slices.Equal(statuses(res), []SigStatus{SigGood}) {
		t.Fatalf("v3: %v %v", statuses(res), err)
	}
	if res[0].Sig.Version != 3 || !res[0].Sig.Created.Equal(time.Unix(int64(created), 0)) {
		t.Errorf("v3 signature read as version %d made %v", res[0].Sig.Version, res[0].Sig.Created)
	}
	pt[100] ^= 1
	res, err = VerifyDetached(bytes.NewReader(sig), bytes.NewReader(pt), VerifyOptions{Signers: entityKeys{e}})
	if err != nil || !slices.Equal(statuses(res), []SigStatus{SigBad}) {
		t.Fatalf("v3 over changed data: %v %v", statuses(res), err)
	}
}

// A text signature holds over the text whatever its line endings, and
// says it is one (type 0x01) in the one-pass packet and the signature,
// so a reader hashes the text the same way.
func TestTextSignatures(t *testing.T) {
	for _, kind := range []string{"ed25519", "v6"} {
		e := testEntity(t, kind)
		lf, crlfText := []byte("one\ntwo\n\nthree"), []byte("one\r\ntwo\r\n\r\nthree")
		var sig bytes.Buffer
		if _, err := DetachSign(bytes.NewReader(lf), &sig, SignOptions{Signers: []Signer{signerOf(e, 0)}, Text: true}); err != nil {
			t.Fatal(err)
		}
		for _, data := range [][]byte{lf, crlfText} {
			res, err := VerifyDetached(bytes.NewReader(sig.Bytes()), bytes.NewReader(data), VerifyOptions{Signers: entityKeys{e}})
			if err != nil || !slices.Equal(statuses(res), []SigStatus{SigGood}) || res[0].Sig.SigType != packet.SigText {
				t.Fatalf("%s detached over %q: %v %v", kind, data, statuses(res), err)
			}
		}
		var msg bytes.Buffer
		if _, err := Sign(bytes.NewReader(crlfText), &msg, SignOptions{Signers: []Signer{signerOf(e, 0)}, Text: true, Literal: packet.Literal{Format: 'u'}}); err != nil {
			t.Fatal(err)
		}
		// Text literal data is written with the local line endings.
		res, out := decryptSigned(t, msg.Bytes(), entityKeys{e}, false)
		if !bytes.Equal(out, lf) || !slices.Equal(statuses(res.Signatures), []SigStatus{SigGood}) || res.Signatures[0].Sig.SigType != packet.SigText {
			t.Fatalf("%s inline: %q %v", kind, out, statuses(res.Signatures))
		}
	}
}

// TestStore: a message neither encrypted nor signed, compressed or not,
// reads back as such (nothing encrypted, no signatures, so
// UnencryptedAuthentic withholds it); Store refuses signers.
func TestStore(t *testing.T) {
	data := bytes.Repeat([]byte("stored, not sealed\n"), 5000)
	for _, c := range []packet.CompressionAlgo{packet.CompressNone, packet.CompressZLIB} {
		var msg bytes.Buffer
		if _, err := Store(bytes.NewReader(data), &msg, SignOptions{Compress: c, Literal: packet.Literal{Format: 'b', FileName: "x"}}); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		res, err := Decrypt(bytes.NewReader(msg.Bytes()), &out, DecryptOptions{})
		if err != nil || !bytes.Equal(out.Bytes(), data) || res.Literal.FileName != "x" {
			t.Fatalf("%v: %v, %d bytes", c, err, out.Len())
		}
		if res.Encrypted || len(res.Signatures) != 0 || UnencryptedAuthentic(res.Signatures) == nil {
			t.Fatalf("%v: encrypted %v, %d signatures", c, res.Encrypted, len(res.Signatures))
		}
	}
	if _, err := Store(bytes.NewReader(data), io.Discard, SignOptions{Signers: []Signer{{}}}); err == nil {
		t.Fatal("Store signed")
	}
}
