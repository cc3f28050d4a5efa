package keyring

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gcarmor "github.com/ProtonMail/go-crypto/openpgp/armor"

	"github.com/pgpstream/pgpstream/armor"
)

// armoredFiles are the armored keys and messages that gpg, rnp, sq,
// GnuPG 2.4, go-crypto and RFC 9580 wrote, kept in the repository.
func armoredFiles(t *testing.T) []string {
	var files []string
	for _, g := range []string{"../testdata/peers/*.asc", "../testdata/keys/*.asc", "../testdata/aead/*.asc"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("found only %d armored key files: %q", len(files), files)
	}
	return files
}

// TestArmoredKeysFromPeers checks that pgpstream's armor decoder reads
// every armored file the peers wrote to the same bytes as go-crypto's
// decoder (which keyring used before), and that each key imports.
func TestArmoredKeysFromPeers(t *testing.T) {
	peers := map[string]bool{}
	for _, f := range armoredFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ours, err := armor.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		got, err := io.ReadAll(ours)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		blk, err := gcarmor.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: go-crypto: %v", f, err)
		}
		want, err := io.ReadAll(blk.Body)
		if err != nil {
			t.Fatalf("%s: go-crypto: %v", f, err)
		}
		if ours.Type() != blk.Type || !bytes.Equal(got, want) {
			t.Errorf("%s: decoded %s, %d bytes; go-crypto %s, %d bytes", f, ours.Type(), len(got), blk.Type, len(want))
		}
		if blk.Type != armor.PublicKey && blk.Type != armor.PrivateKey {
			continue
		}
		st := importFile(t, openRing(t), f)
		if st.Imported+st.SecretImported == 0 {
			t.Errorf("%s: imported nothing: %+v", f, st)
		}
		peers[strings.SplitN(filepath.Base(f), "-", 2)[0]] = true
	}
	for _, p := range []string{"gpg", "rnp", "sq"} {
		if !peers[p] {
			t.Errorf("no armored key made by %s was read", p)
		}
	}
}

// TestArmoredExportUnchanged checks that an armored export is byte for
// byte what go-crypto's encoder wrote before keyring used ours: the CRC24
// footer on v4 keys, none on v6 (RFC 9580 §6.1), one newline after END.
func TestArmoredExportUnchanged(t *testing.T) {
	for _, c := range []struct {
		file   string
		secret bool
	}{
		{"../testdata/peers/gpg-ed25519-sec.asc", true},
		{"../testdata/peers/rnp-nistp256-sec.asc", false},
		{"../testdata/keys/rfc9580-v6-sec.asc", true},
		{"../testdata/keys/rfc9580-v6-cert.asc", false},
	} {
		r := openRing(t)
		importFile(t, r, c.file)
		var bin, armored bytes.Buffer
		if err := r.Export(&bin, nil, c.secret, false); err != nil {
			t.Fatal(err)
		}
		if err := r.Export(&armored, nil, c.secret, true); err != nil {
			t.Fatal(err)
		}
		typ := publicKeyBlock
		if c.secret {
			typ = privateKeyBlock
		}
		v6 := strings.Contains(c.file, "v6")
		var want bytes.Buffer
		w, err := gcarmor.EncodeWithChecksumOption(&want, typ, nil, !v6)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(bin.Bytes())
		w.Close()
		want.WriteString("\n")
		if !bytes.Equal(armored.Bytes(), want.Bytes()) {
			t.Errorf("%s: armored export differs from go-crypto's encoding:\n%s\nwant:\n%s", c.file, armored.Bytes(), want.Bytes())
		}
	}
}

// TestArmoredBlocksInText imports every key block of an input that holds
// several, with text before, between and after them, and a block of
// another type in the middle.
func TestArmoredBlocksInText(t *testing.T) {
	var in bytes.Buffer
	in.WriteString("Here are our keys.\n\n")
	for i, f := range []string{"../testdata/peers/gpg-ed25519-sec.asc", "../testdata/peers/gpg-symmetric.asc", "../testdata/keys/rfc9580-v6-cert.asc"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(b)
		in.WriteString("-- \nblock " + string(rune('1'+i)) + "\n")
	}
	r := openRing(t)
	st, err := r.Import(&in)
	if err != nil || st.Processed != 2 || st.Imported != 2 || st.SecretImported != 1 {
		t.Fatalf("%+v %v", st, err)
	}
}
