package inspect

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/packet"
)

const vectors = "../testdata/aead"

// vectorKeys opens the GnuPG 2.4.8 vectors: the secret key of
// key-sec.asc and the passphrase "interop".
type vectorKeys struct{ privs []*gcpacket.PrivateKey }

func (k vectorKeys) DecryptionKeys(p *packet.PKESK) []*gcpacket.PrivateKey {
	var out []*gcpacket.PrivateKey
	for _, priv := range k.privs {
		if p.Wildcard() || p.Matches(priv) {
			out = append(out, priv)
		}
	}
	return out
}
func (vectorKeys) Unlock(*gcpacket.PrivateKey) error { return nil }
func (vectorKeys) Passphrase() ([]byte, error)       { return []byte("interop"), nil }

func readVectorKeys(t *testing.T) vectorKeys {
	t.Helper()
	f, err := os.Open(filepath.Join(vectors, "key-sec.asc"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	el, err := openpgp.ReadArmoredKeyRing(f)
	if err != nil {
		t.Fatal(err)
	}
	var k vectorKeys
	for _, e := range el {
		k.privs = append(k.privs, e.PrivateKey)
		for _, s := range e.Subkeys {
			k.privs = append(k.privs, s.PrivateKey)
		}
	}
	return k
}

// gnupgListings splits listing.txt, gpg 2.4.8's --list-packets of every
// vector, into the listing proper per file (gpg's log lines dropped).
func gnupgListings(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vectors, "listing.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var name string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if n, ok := strings.CutPrefix(l, "===== "); ok {
			name = strings.TrimSpace(n)
			if strings.Contains(name, ":") {
				name = "" // a note, not a listing
			}
			continue
		}
		if name == "" || strings.HasPrefix(l, "gpg: ") || strings.HasPrefix(l, "      \"") || strings.HasPrefix(l, "[GNUPG:]") {
			continue
		}
		out[name] += l
	}
	return out
}

func listVector(t *testing.T, name string, opt ListOptions) (string, error) {
	t.Helper()
	f, err := os.Open(filepath.Join(vectors, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	opt.Packet = func(p *Packet) { b.WriteString(p.Text()) }
	err = ListPackets(f, opt)
	return b.String(), err
}

// The listing of every GnuPG 2.4.8 vector, decrypted with its key or
// passphrase, is gpg's line for line. Two differences are gpg's: 2.4
// writes "aead 2, s2k" where 2.2 (which pgpstream follows) writes
// "aead 2,s2k", and gpg lists nothing after a literal packet with partial
// lengths, where pgpstream goes on to the signature.
func TestListPacketsMatchesGnuPG(t *testing.T) {
	keys := readVectorKeys(t)
	want := gnupgListings(t)
	if len(want) < 10 {
		t.Fatalf("listing.txt has %d listings", len(want))
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			var key []byte
			got, err := listVector(t, name, ListOptions{Keys: keys, SessionKey: func(_ packet.CipherAlgo, _ packet.AEADAlgo, k []byte) { key = k }})
			if err != nil {
				t.Fatal(err)
			}
			if key == nil && !strings.HasPrefix(name, "key-") {
				t.Error("no session key reported")
			}
			w = strings.ReplaceAll(w, "aead 2, s2k", "aead 2,s2k")
			if name == "signed-aead-1000.gpg" {
				if !strings.HasPrefix(got, w) || !strings.Contains(got[len(w):], ":signature packet: algo 22") {
					t.Errorf("got\n%s\nwant a signature after\n%s", got, w)
				}
				return
			}
			if got != w {
				t.Errorf("got\n%s\nwant\n%s", got, w)
			}
		})
	}
}

// Without keys the encrypted data is listed from outside, and the error
// says it was not decrypted.
func TestListPacketsWithoutKey(t *testing.T) {
	got, err := listVector(t, "aead-1000.gpg", ListOptions{Keys: vectorKeys{}})
	if !errors.Is(err, ErrNotDecrypted) {
		t.Fatalf("err = %v, want ErrNotDecrypted", err)
	}
	if !strings.Contains(got, ":aead encrypted packet: cipher=9 aead=2 cb=16") || strings.Contains(got, "literal") {
		t.Errorf("listing:\n%s", got)
	}
	if _, err := listVector(t, "aead-1000.gpg", ListOptions{}); err != nil {
		t.Errorf("without Keys nothing is tried: %v", err)
	}
}

// A modified ciphertext fails its authentication, listed or not.
func TestListPacketsTampered(t *testing.T) {
	for _, name := range []string{"cfb-mdc-1000.gpg", "aead-1000.gpg"} {
		b, err := os.ReadFile(filepath.Join(vectors, name))
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)-30] ^= 1
		err = ListPackets(bytes.NewReader(b), ListOptions{Keys: readVectorKeys(t)})
		if err == nil || errors.Is(err, ErrNotDecrypted) {
			t.Errorf("%s: tampered message listed with err = %v", name, err)
		}
	}
}

// Truncated and garbage input gives an error, never a panic.
func TestListPacketsBadInput(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(vectors, "key-pub.asc"))
	if err != nil {
		t.Fatal(err)
	}
	var bin bytes.Buffer
	if err := ListPackets(bytes.NewReader(b), ListOptions{}); err != nil {
		t.Fatal(err)
	}
	src, _ := OpenStream(bytes.NewReader(b))
	bin.ReadFrom(src)
	for n := 0; n < bin.Len(); n += 7 {
		ListPackets(bytes.NewReader(bin.Bytes()[:n]), ListOptions{})
	}
	for _, in := range []string{"", "not openpgp", "\x00\x01"} {
		if err := ListPackets(strings.NewReader(in), ListOptions{}); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func inspectFile(t *testing.T, name string) *Report {
	t.Helper()
	f, err := os.Open(filepath.Join(vectors, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Inspect(f, func(id uint64, _ []byte) (string, bool, bool) {
		if id == 0x9F1F4C4DFC008376 {
			return "pgpstream anchor <anchor@pgpstream.test>", true, true
		}
		return "", false, false
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestInspect(t *testing.T) {
	r := inspectFile(t, "aead-aes128-chunk64B-70000.gpg")
	if r.Kind != "encrypted message" || r.Encryption == nil || r.Encryption.Packet != "AEAD (tag 20)" ||
		r.Encryption.ChunkSize != 64 || r.Encryption.AEAD != "OCB" || r.Encryption.Cipher != "AES128" || !r.SafeToDecrypt {
		t.Errorf("tag 20: %+v %+v", r, r.Encryption)
	}
	if len(r.Recipients) != 1 || r.Recipients[0].KeyID != "9F1F4C4DFC008376" || !r.Recipients[0].Secret || r.Recipients[0].Algorithm != "ECDH" {
		t.Errorf("recipients: %+v", r.Recipients)
	}
	r = inspectFile(t, "sym-aead-1000.gpg")
	if len(r.Passphrases) != 1 || r.Passphrases[0].Version != 5 || r.Passphrases[0].S2K != "iterated" || r.Passphrases[0].Count == 0 {
		t.Errorf("passphrase: %+v", r.Passphrases)
	}
	r = inspectFile(t, "cfb-mdc-1000.gpg")
	if r.Encryption.Packet != "SEIPD v1" || r.Encryption.Integrity != "MDC" || !r.SafeToDecrypt {
		t.Errorf("SEIPD v1: %+v", r.Encryption)
	}
	r = inspectFile(t, "aead-1000.asc")
	if !r.Armored || r.ArmorType != "PGP MESSAGE" {
		t.Errorf("armor: %+v", r)
	}
	r = inspectFile(t, "key-pub.asc")
	if r.Kind != "certificate" || len(r.Keys) != 2 || !r.Keys[0].Primary || r.Keys[0].Fingerprint != "542E73C68886342B2177207826B4AB37B098AE9B" {
		t.Errorf("certificate: %+v", r)
	}
	if r := inspectFile(t, "key-sec.asc"); r.Kind != "secret key" {
		t.Errorf("secret key: %+v", r)
	}
}

// Tag 9 is reported unsafe, with the reason.
func TestInspectUnprotected(t *testing.T) {
	var msg []byte
	skesk := []byte{4, 9, 3, 8, 1, 2, 3, 4, 5, 6, 7, 8, 0x60}
	msg = packet.AppendHeader(msg, packet.TagSKESK, int64(len(skesk)))
	msg = append(msg, skesk...)
	body := bytes.Repeat([]byte{0x55}, 40)
	msg = packet.AppendHeader(msg, packet.TagSED, int64(len(body)))
	msg = append(msg, body...)
	r, err := Inspect(bytes.NewReader(msg), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.SafeToDecrypt || r.Encryption.Integrity != "none" || len(r.Warnings) == 0 {
		t.Errorf("tag 9: %+v", r)
	}
}
