package filter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/packet"
)

// Unwrap writes the packets inside the encrypted data, for each format,
// compressed or not, armored or not, across a partial-length chunk: what
// it writes is a signed message that verifies and holds the plaintext,
// with the compressed packet kept as it was. The encryption's check is
// still made: a changed byte fails as ErrAuthentication, and no
// signature is reported, since none is read.
func TestUnwrap(t *testing.T) {
	e := testEntity(t, "ed25519")
	// Public keys: SEIPD v2's SKESK would ask for Argon2, too slow here.
	privs, el := readSecretKeys(t, filepath.Join("..", "testdata", "aead", "key-sec.asc"))
	var rcpt []Recipient
	for _, sk := range el[0].Subkeys {
		rcpt = append(rcpt, Recipient{Pub: sk.PublicKey})
	}
	keys := secretKeys{privs: privs}
	for _, f := range []Format{SEIPDv1, SEIPDv2, AEADv1} {
		for _, comp := range []packet.CompressionAlgo{packet.CompressNone, packet.CompressZLIB} {
			for _, n := range []int{0, 1000, ChunkSize + 1} {
				if n > ChunkSize && comp != packet.CompressNone {
					continue // the chunk boundary is the literal packet's
				}
				name := fmt.Sprintf("%v/%v/%d", f, comp, n)
				pt := payload(n)
				var ct bytes.Buffer
				_, err := Encrypt(bytes.NewReader(pt), &ct, EncryptOptions{
					Recipients: rcpt, Cipher: packet.CipherAES256, Format: f, AEAD: packet.AEADOCB, Compress: comp,
					Signers: []Signer{signerOf(e, packet.HashSHA256)},
				})
				if err != nil {
					t.Fatal(err)
				}
				var un bytes.Buffer
				res, err := Decrypt(bytes.NewReader(ct.Bytes()), &un, DecryptOptions{Keys: keys, Signers: entityKeys{e}, Unwrap: true})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(res.Signatures) != 0 || res.Literal.Format != 0 || res.Bytes != int64(un.Len()) || !res.Encrypted {
					t.Errorf("%s: result %+v", name, res)
				}
				first := packet.TagOnePassSignature
				if comp != packet.CompressNone {
					first = packet.TagCompressed
				}
				if h, _, err := packet.ParseHeader(un.Bytes(), 0); err != nil || h.Tag != first {
					t.Errorf("%s: unwrapped data starts with %v (%v), want %v", name, h.Tag, err, first)
				}
				sres, got := decryptSigned(t, un.Bytes(), entityKeys{e}, false)
				if !bytes.Equal(got, pt) || !slices.Equal(statuses(sres.Signatures), []SigStatus{SigGood}) {
					t.Errorf("%s: unwrapped message: %d bytes, %v", name, len(got), statuses(sres.Signatures))
				}

				var arm bytes.Buffer
				if _, err := Decrypt(bytes.NewReader(ct.Bytes()), &arm, DecryptOptions{Keys: keys, Unwrap: true, UnwrapArmor: true}); err != nil {
					t.Fatalf("%s armored: %v", name, err)
				}
				if !strings.HasPrefix(arm.String(), "-----BEGIN PGP MESSAGE-----\n") {
					t.Errorf("%s: armored output starts %q", name, arm.String()[:min(40, arm.Len())])
				}
				if _, got := decryptSigned(t, arm.Bytes(), entityKeys{e}, false); !bytes.Equal(got, pt) {
					t.Errorf("%s: armored unwrapped message differs", name)
				}

				bad := bytes.Clone(ct.Bytes())
				bad[len(bad)-1] ^= 1
				_, err = Decrypt(bytes.NewReader(bad), io.Discard, DecryptOptions{Keys: keys, Unwrap: true})
				if !errors.Is(err, ErrAuthentication) {
					t.Errorf("%s: last byte changed: %v", name, err)
				}
			}
		}
	}
}

// A message that is not encrypted is read as without Unwrap, as gpg
// reads it: its literal data is written and its signature checked.
func TestUnwrapNotEncrypted(t *testing.T) {
	e := testEntity(t, "ed25519")
	pt := payload(1000)
	var msg bytes.Buffer
	if _, err := Sign(bytes.NewReader(pt), &msg, SignOptions{Signers: []Signer{signerOf(e, 0)}}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := Decrypt(bytes.NewReader(msg.Bytes()), &out, DecryptOptions{Signers: entityKeys{e}, Unwrap: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), pt) || !slices.Equal(statuses(res.Signatures), []SigStatus{SigGood}) {
		t.Errorf("%d bytes, %v", out.Len(), statuses(res.Signatures))
	}
}
