package filter

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/internal/testpeer"
	"github.com/pgpstream/pgpstream/packet"
)

// requirePeer skips when a peer program is missing, unless
// PGPSTREAM_REQUIRE_PEERS is set (CI), where a missing peer fails.
func requirePeer(t *testing.T, name string) {
	t.Helper()
	testpeer.Need(t, name)
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// TestRNPInterop has rnp (which writes and reads LibrePGP's tag 20 with
// --aead) encrypt for pgpstream and decrypt what pgpstream wrote, OCB and
// EAX, to a public key and to a passphrase.
func TestRNPInterop(t *testing.T) {
	requirePeer(t, "rnp")
	requirePeer(t, "rnpkeys")
	const fpr = "542E73C68886342B2177207826B4AB37B098AE9B"
	keyFile, err := filepath.Abs(filepath.Join("..", "testdata", "aead", "key-sec.asc"))
	if err != nil {
		t.Fatal(err)
	}
	privs, el := readSecretKeys(t, keyFile)
	var pub *gcpacket.PublicKey
	for _, s := range el[0].Subkeys {
		pub = s.PublicKey
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "rnp")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	run(t, "rnpkeys", "--homedir", home, "--import", keyFile)
	pt := seqPayload(300000)
	in := filepath.Join(dir, "in")
	if err := os.WriteFile(in, pt, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []packet.AEADAlgo{packet.AEADOCB, packet.AEADEAX} {
		m := strings.ToLower(mode.String())
		for _, sym := range []bool{false, true} {
			name := m + map[bool]string{false: "-pk", true: "-sym"}[sym]
			keys := secretKeys{privs: privs}
			// rnp → pgpstream
			ct := filepath.Join(dir, name+".rnp.pgp")
			if sym {
				keys = secretKeys{pass: []byte("interop")}
				run(t, "rnp", "--homedir", home, "-c", "--aead="+m, "--password", "interop", "--output", ct, in)
			} else {
				run(t, "rnp", "--homedir", home, "--encrypt", "-r", fpr, "--aead="+m, "--output", ct, in)
			}
			data, err := os.ReadFile(ct)
			if err != nil {
				t.Fatal(err)
			}
			for _, threads := range []int{1, 2} {
				var out bytes.Buffer
				res, err := Decrypt(bytes.NewReader(data), &out, DecryptOptions{Keys: keys, Threads: threads})
				if err != nil || !bytes.Equal(out.Bytes(), pt) {
					t.Fatalf("%s: reading rnp's message: %v", name, err)
				}
				if res.Mode() != "AEAD (tag 20) "+mode.String() {
					t.Errorf("%s: rnp wrote %s", name, res.Mode())
				}
			}
			// pgpstream → rnp, 64 B and 64 KiB chunks
			for _, cb := range []byte{0, 10} {
				opt := EncryptOptions{Format: AEADv1, AEAD: mode, ChunkByte: cb, Cipher: packet.CipherAES128, Threads: 2}
				if sym {
					opt.Passphrase, opt.S2KCount = []byte("interop"), 65536
				} else {
					opt.Recipients = []Recipient{{Pub: pub}}
				}
				var buf bytes.Buffer
				if _, err := Encrypt(bytes.NewReader(pt), &buf, opt); err != nil {
					t.Fatal(err)
				}
				ours := filepath.Join(dir, name+".ours.pgp")
				back := filepath.Join(dir, name+".back")
				os.Remove(back)
				if err := os.WriteFile(ours, buf.Bytes(), 0o600); err != nil {
					t.Fatal(err)
				}
				pass := ""
				if sym {
					pass = "interop"
				}
				run(t, "rnp", "--homedir", home, "--password", pass, "--decrypt", "--output", back, ours)
				got, err := os.ReadFile(back)
				if err != nil || !bytes.Equal(got, pt) {
					t.Fatalf("%s chunk byte %d: rnp read back %d bytes (%v)", name, cb, len(got), err)
				}
			}
		}
	}
}
