package keyring

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
	"github.com/pgpstream/pgpstream/internal/testpeer"
	"github.com/pgpstream/pgpstream/keybox"
	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// TestGnuPGSaveUnits saves into each of gpg's rings, over a file that
// holds one of every kind of unit save meets: a key left unchanged, one
// changed, one deleted, one pgpstream cannot read (no user ID), a key
// stored twice, and, in the keybox, gpgsm's certificate. Each unit save
// did not change is written back byte for byte, in its place; the
// deleted key and the second copy are gone, the new key is at the end;
// and gpg (and gpgsm) read the result.
func TestGnuPGSaveUnits(t *testing.T) {
	for _, name := range []string{kbxName, gpgRingName} {
		t.Run(name, func(t *testing.T) { testSaveUnits(t, name) })
	}
}

func testSaveUnits(t *testing.T, name string) {
	h := gnupgtest.New(t)
	t.Cleanup(func() { killAgent(h.Dir) })
	path := filepath.Join(h.Dir, name)
	if name == gpgRingName {
		// gpg keeps using a pubring.gpg it finds (and makes no keybox).
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	} else {
		testpeer.Need(t, "gpgsm")
	}
	unchanged := h.GenKey("Unchanged <unchanged@gpg.test>", "ed25519", "cv25519", "")

	// Keys made elsewhere, which gpg imports: their secret parts are not
	// in the home's agent, so pgpstream may change and delete them.
	src, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gen := func(uid string) (string, []byte) {
		k, err := src.Generate(GenOptions{UserID: uid})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := src.Export(&b, []string{k.Fingerprint()}, false, false); err != nil {
			t.Fatal(err)
		}
		return k.Fingerprint(), b.Bytes()
	}
	changed, changedPub := gen("Changed <changed@pgpstream.test>")
	deleted, deletedPub := gen("Deleted <deleted@pgpstream.test>")
	twice, twicePub := gen("Twice <twice@pgpstream.test>")
	noUID, noUIDPub := gen("No UID <nouid@pgpstream.test>")
	fresh, freshPub := gen("New <new@pgpstream.test>")
	for _, pub := range [][]byte{changedPub, deletedPub, twicePub} {
		h.Run(pub, "gpg", "--batch", "--import")
	}
	if err := src.AddUserID(changed, "Changed Two <changed2@pgpstream.test>", nil); err != nil {
		t.Fatal(err)
	}
	var changedNow bytes.Buffer
	if err := src.Export(&changedNow, []string{changed}, false, false); err != nil {
		t.Fatal(err)
	}

	// What gpg's own import cannot make: a key without a user ID (its
	// key packet alone), which gpg lists and pgpstream does not read,
	// and a second copy of Twice; gpgsm's certificate in the keybox.
	_, _, rest, err := pgppacket.SplitPacket(noUIDPub, 0)
	if err != nil {
		t.Fatal(err)
	}
	keyOnly := noUIDPub[:len(noUIDPub)-len(rest)]
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if name == kbxName {
		blob, err := keybox.EncodeBlob(keyOnly, 1700000000)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, blob...)
		units, err := keyboxFormat{}.units(path, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range units {
			if u.fpr == twice {
				data = append(data, u.data...)
			}
		}
	} else {
		data = append(append(data, keyOnly...), twicePub...)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if name == kbxName {
		h.Run(selfSignedCert(t), "gpgsm", "--batch", "--import")
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	beforeUnits := splitUnits(t, name, path, before)

	r, err := OpenWith(h.Dir, Options{Agent: AgentOptions{Disable: true}})
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Notices(); len(n) != 1 || n[0].Kind != NoticeUnreadableKeys || n[0].File != path || n[0].Count != 1 || n[0].Key != noUID || n[0].Err == nil {
		t.Errorf("notices: %+v, want one of 1 unreadable key, %s", n, noUID)
	}
	if n, err := r.Delete([]string{deleted}, false, false); n != 1 || err != nil {
		t.Fatalf("Delete: %d, %v", n, err)
	}
	if _, err := r.Import(bytes.NewReader(append(changedNow.Bytes(), freshPub...))); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	afterUnits := splitUnits(t, name, path, after)

	// The units, in order: those before, the deleted key and the second
	// copy left out, each other one byte for byte as it was but the
	// changed key's; the new key last.
	var want []ringUnit
	seen := map[string]bool{}
	for _, u := range beforeUnits {
		if u.fpr == deleted || u.fpr != "" && seen[u.fpr] {
			continue
		}
		seen[u.fpr] = true
		want = append(want, u)
	}
	if len(afterUnits) != len(want)+1 {
		t.Fatalf("%d units after the save, want %d: %v", len(afterUnits), len(want)+1, fprs(afterUnits))
	}
	for i, u := range want {
		got := afterUnits[i]
		switch {
		case got.fpr != u.fpr:
			t.Errorf("unit %d is %q, want %q", i, got.fpr, u.fpr)
		case u.fpr == changed:
			if bytes.Equal(got.data, u.data) || !bytes.Contains(got.data, []byte("changed2@pgpstream.test")) {
				t.Errorf("the changed key was not replaced by its new version")
			}
		case u.fpr == twice:
			// Load folded the two copies into one, a change: the
			// key is encoded anew, with the same packets.
			if _, body, _, err := pgppacket.SplitPacket(twicePub, 0); err != nil || !bytes.Contains(got.data, body) {
				t.Errorf("Twice's blob lost its key")
			}
		case !bytes.Equal(got.data, u.data):
			t.Errorf("unit %d (%q) changed:\n%x\nwas\n%x", i, u.fpr, got.data, u.data)
		}
	}
	if last := afterUnits[len(afterUnits)-1]; last.fpr != fresh {
		t.Errorf("the last unit is %q, want the new key %s", last.fpr, fresh)
	}
	if _, err := os.Stat(filepath.Join(h.Dir, pubringName)); err == nil {
		t.Errorf("%s was written beside gpg's ring", pubringName)
	}

	// gpg lists what the file holds, each key once.
	list := string(h.Run(nil, "gpg", "--batch", "--with-colons", "--list-keys"))
	for fpr, n := range map[string]int{unchanged: 1, changed: 1, twice: 1, noUID: 1, fresh: 1, deleted: 0} {
		if c := strings.Count(list, "fpr:::::::::"+fpr+":"); c != n {
			t.Errorf("gpg lists %s %d times, want %d:\n%s", fpr, c, n, list)
		}
	}
	if !strings.Contains(list, "Changed Two <changed2@pgpstream.test>") {
		t.Errorf("gpg does not list the changed key's new user ID:\n%s", list)
	}
	if name == kbxName {
		if out := string(h.Run(nil, "gpgsm", "--batch", "--with-colons", "--list-keys")); !strings.Contains(out, "CN=Save Test") {
			t.Errorf("gpgsm lost its certificate:\n%s", out)
		}
	}
}

// splitUnits is data cut as saveGnuPG cuts it.
func splitUnits(t *testing.T, name, path string, data []byte) []ringUnit {
	t.Helper()
	units, err := formatOf(name, 0).units(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return units
}

func fprs(units []ringUnit) []string {
	var out []string
	for _, u := range units {
		out = append(out, u.fpr)
	}
	return out
}

// selfSignedCert is an X.509 certificate in DER, for gpgsm to keep in
// pubring.kbx.
func selfSignedCert(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "Save Test"},
		NotBefore:             time.Unix(1700000000, 0),
		NotAfter:              time.Unix(1700000000, 0).AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// The facts of a GnuPG home's rings are reported as Notices, each once:
// a keyboxd home (before it is opened, and at its first change), gpg
// 1.x's secret ring, and a v6 key, which gpg's keybox cannot hold, kept
// in pubring.pgp when it is imported and not again at the next change.
func TestGnuPGNotices(t *testing.T) {
	home := t.TempDir()
	if n, err := HomeNotices(home); err != nil || len(n) != 0 {
		t.Errorf("an empty home: %+v, %v", n, err)
	}
	for name, data := range map[string]string{"common.conf": "use-keyboxd\n", "secring.gpg": ""} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	keyboxd := Notice{Kind: NoticeKeyboxd, File: home, Kept: filepath.Join(home, pubringName)}
	want := []Notice{keyboxd, {Kind: NoticeSecring, File: home}}
	if n, err := HomeNotices(home); err != nil || fmt.Sprint(n) != fmt.Sprint(want) {
		t.Errorf("HomeNotices: %+v, %v; want %+v", n, err, want)
	}
	if err := os.Mkdir(filepath.Join(home, agentKeysDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if n, _ := HomeNotices(home); len(n) != 1 || n[0] != keyboxd {
		t.Errorf("with private-keys-v1.d: %+v, want the keyboxd notice alone", n)
	}
	var told []Notice
	r, err := OpenWith(home, Options{Agent: AgentOptions{Disable: true}, Notify: func(n Notice) { told = append(told, n) }})
	if err != nil {
		t.Fatal(err)
	}
	importFile(t, r, filepath.Join(fixtures, "gpg-ed25519-pub.asc"))
	importFile(t, r, filepath.Join(fixtures, "rfc9580-v6-cert.asc"))
	if len(told) != 1 || told[0] != keyboxd {
		t.Errorf("two changes in a keyboxd home told %+v, want %+v once", told, keyboxd)
	}

	// A home whose gpg keeps pubring.kbx: the v6 key stays in
	// pubring.pgp, once said.
	home = t.TempDir()
	kbx := filepath.Join(home, kbxName)
	if err := os.WriteFile(kbx, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	told = nil
	r, err = OpenWith(home, Options{Agent: AgentOptions{Disable: true}, Notify: func(n Notice) { told = append(told, n) }})
	if err != nil {
		t.Fatal(err)
	}
	importFile(t, r, filepath.Join(fixtures, "rfc9580-v6-cert.asc"))
	importFile(t, r, filepath.Join(fixtures, "gpg-ed25519-pub.asc"))
	var v6 *Key
	for _, k := range r.keys {
		if k.Version() == 6 {
			v6 = k
		}
	}
	if len(r.keys) != 2 || v6 == nil {
		t.Fatalf("%d keys, v6 %v", len(r.keys), v6)
	}
	if len(told) != 1 || told[0].Kind != NoticeNotInGnuPG || told[0].Key != v6.Fingerprint() || told[0].File != kbx ||
		told[0].Kept != filepath.Join(home, pubringName) || !errors.Is(told[0].Err, keybox.ErrUnsupportedKey) {
		t.Errorf("told %+v, want the v6 key kept in pubring.pgp, once", told)
	}
}
