package keyring

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDefaultHome(t *testing.T) {
	t.Setenv("PGPSTREAM_HOME", "/x/y")
	if got := DefaultHome(); got != "/x/y" {
		t.Errorf("DefaultHome = %q", got)
	}
	t.Setenv("PGPSTREAM_HOME", "")
	t.Setenv("HOME", "/home/someone")
	if got := DefaultHome(); got != "/home/someone/.pgpstream" {
		t.Errorf("DefaultHome = %q", got)
	}
}

func TestParsePattern(t *testing.T) {
	cases := []struct {
		in   string
		isID int
		bang bool
		sub  string
	}{
		{"CB186C4F0609A697E4D52DFA6C722B0C1F1E27C18A56708F6525EC27BAD9ACC9", 1, false, ""},
		{"0xa5cd3c0eee8a03067092ee2445642e9541f32e66", 1, false, ""},
		{"A5CD 3C0E EE8A 0306 7092  EE24 4564 2E95 41F3 2E66", 1, false, ""},
		{"45642E9541F32E66", 2, false, ""},
		{"45642E9541F32E66!", 2, true, ""},
		{"41F32E66", 3, false, ""},
		{"Alice", 0, false, "alice"},
		{"deadbeefcafe", 0, false, "deadbeefcafe"}, // 12 hex digits: not an ID
		{"Bob!", 0, false, "bob!"},
		{"*Bob", 0, false, "bob"},
	}
	for _, c := range cases {
		m, err := parsePattern(c.in)
		if err != nil || m.isID != c.isID || m.bang != c.bang || m.substr != c.sub {
			t.Errorf("parsePattern(%q) = %+v, %v", c.in, m, err)
		}
	}
	if _, err := parsePattern("  "); err == nil {
		t.Error("empty pattern accepted")
	}
}

func TestEmailOf(t *testing.T) {
	for in, want := range map[string]string{
		"A B <a@b.test>":       "a@b.test",
		"a@b.test":             "a@b.test",
		"Name (c) <x@y> <z@w>": "x@y",
		"Eve <eve@example.org> <alice@example.org>": "eve@example.org",
		"no address":          "",
		"<only@address.test>": "only@address.test",
		"broken <a@b.test":    "",
	} {
		if got := emailOf(in); got != want {
			t.Errorf("emailOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSelectAndDelete(t *testing.T) {
	r := openRing(t)
	importFile(t, r, filepath.Join(fixtures, "gpg-rsa3072-sec.pgp"))
	importFile(t, r, filepath.Join(fixtures, "gpg-ed25519-pub.asc"))
	importFile(t, r, filepath.Join(fixtures, "rfc9580-v6-cert.asc"))

	all, err := r.Select(nil, false)
	if err != nil || len(all) != 3 {
		t.Fatalf("Select(all) = %d, %v", len(all), err)
	}
	sec, _ := r.Select(nil, true)
	if len(sec) != 1 || sec[0].Fingerprint() != gpgRSAFpr {
		t.Fatalf("Select(secret) = %d", len(sec))
	}
	// A subkey ID selects its certificate.
	if ks, err := r.Select([]string{"583226BC709AA082"}, false); err != nil || len(ks) != 1 || ks[0].Fingerprint() != gpgEdFpr {
		t.Fatalf("Select(subkey id): %v", err)
	}
	if _, err := r.Select([]string{"nobody@nowhere"}, false); !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), "nobody@nowhere") {
		t.Fatalf("unmatched pattern: %v", err)
	}
	// Names are searched together, as gpg does: one that matches nothing
	// beside one that matches is no error.
	if ks, err := r.Select([]string{"583226BC709AA082", "-", "nobody@nowhere"}, false); err != nil || len(ks) != 1 {
		t.Fatalf("Select(subkey id, -, nobody): %d %v", len(ks), err)
	}
	if _, err := r.Select([]string{"-", "nobody@nowhere"}, false); !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), `"-"`) {
		t.Fatalf("no pattern matched: %v", err)
	}
	if _, err := r.Select([]string{"ed@gpg.test"}, true); !errors.Is(err, ErrNoKey) {
		t.Fatalf("secret select of public-only key: %v", err)
	}
	if _, err := r.Recipients("nobody"); !errors.Is(err, ErrNoKey) {
		t.Fatalf("Recipients(nobody): %v", err)
	}

	// Deletion takes full fingerprints only: a pattern, a key ID or a
	// primary key's "!" form could name keys the caller did not mean (a
	// subkey's "FPR!" deletes that subkey: TestDeleteSubkey).
	for _, spec := range []string{"rsa@gpg.test", "gpg.test", "1F060F8EF634804B", gpgRSAFpr + "!"} {
		if _, err := r.Delete([]string{spec}, true, false); !errors.Is(err, ErrNotFingerprint) {
			t.Fatalf("Delete(%q): %v", spec, err)
		}
		if _, err := r.DeleteSecret([]string{spec}, false); !errors.Is(err, ErrNotFingerprint) {
			t.Fatalf("DeleteSecret(%q): %v", spec, err)
		}
	}
	if _, err := r.Delete([]string{gpgRSAFpr}, false, false); err == nil || !strings.Contains(err.Error(), "secret") {
		t.Fatalf("deleting a key with a secret part: %v", err)
	}
	if n, err := r.DeleteSecret([]string{"0x" + strings.ToLower(gpgRSAFpr)}, false); err != nil || n != 1 {
		t.Fatalf("DeleteSecret: %d %v", n, err)
	}
	if n, err := r.Delete([]string{gpgRSAFpr, gpgEdFpr}, false, false); err != nil || n != 2 {
		t.Fatalf("Delete: %d %v", n, err)
	}
	r2, err := Open(r.home)
	if err != nil {
		t.Fatal(err)
	}
	left, _ := r2.Select(nil, false)
	if len(left) != 1 || left[0].Fingerprint() != rfcV6Fpr {
		t.Fatalf("after delete: %d keys", len(left))
	}
	if fi, err := os.Stat(filepath.Join(r.home, secringName)); err != nil || fi.Size() != 0 {
		t.Fatalf("secring after deleting the only secret key: %v", err)
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(r.home)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("leftover %s", e.Name())
		}
	}
}

func TestRecipientsFromFile(t *testing.T) {
	for _, f := range []string{"gpg-ed25519-pub.asc", "gpg-rsa3072-sec.pgp", "rfc9580-v6-cert.asc"} {
		rcs, err := RecipientsFromFile(filepath.Join(fixtures, f))
		if err != nil || len(rcs) != 1 || rcs[0].Pub == nil {
			t.Errorf("%s: %+v %v", f, rcs, err)
		}
	}
	if _, err := RecipientsFromFile(filepath.Join(fixtures, "missing")); err == nil {
		t.Error("missing file accepted")
	}
}

// TestNoEncryptionKey checks the error for a certificate without an
// encryption-capable key.
func TestNoEncryptionKey(t *testing.T) {
	r := openRing(t)
	importFile(t, r, filepath.Join(fixtures, "gpg-ed25519-pub.asc"))
	k, _ := r.Select(nil, false)
	// Drop the subkey: the primary key only signs.
	k[0].pub.subs = nil
	if err := k[0].refresh(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Recipients("ed@gpg.test")
	if !errors.Is(err, ErrNoEncryptionKey) || !strings.Contains(err.Error(), gpgEdFpr) {
		t.Fatalf("got %v", err)
	}
}

// TestUnsignedUserIDHidden appends a user ID without a self-signature,
// which anyone can do, and checks it is neither listed nor returned.
func TestUnsignedUserIDHidden(t *testing.T) {
	r := openRing(t)
	importFile(t, r, filepath.Join(fixtures, "gpg-ed25519-pub.asc"))
	var buf bytes.Buffer
	if err := r.Export(&buf, nil, false, false); err != nil {
		t.Fatal(err)
	}
	evil := rawPacket{tag: tagUserID, body: []byte("Mallory <m@evil.test>")}
	evil.writeTo(&buf)
	st, err := r.Import(&buf)
	if err != nil || st.NewUserIDs != 1 {
		t.Fatalf("%+v %v", st, err)
	}
	k, _ := r.Select(nil, false)
	if ids := k[0].UserIDs(); len(ids) != 1 {
		t.Errorf("UserIDs = %q", ids)
	}
	if out := listing(t, r, nil, false, false); strings.Contains(out, "Mallory") {
		t.Errorf("unsigned user ID listed:\n%s", out)
	}
}

func FuzzImport(f *testing.F) {
	for _, name := range []string{"gpg-ed25519-pub.asc", "rfc9580-v6-sec.asc"} {
		if b, err := os.ReadFile(filepath.Join(fixtures, name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte{0xc6, 0x01, 0x04})
	// The parsing half of Import, without the disk writes.
	f.Fuzz(func(t *testing.T, data []byte) {
		pkts, err := decodeKeyData(bytes.NewReader(data))
		if err != nil {
			return
		}
		blocks, err := splitBlocks(pkts)
		if err != nil {
			return
		}
		for _, b := range blocks {
			pb := b
			if b.secret() {
				if pb, err = publicBlock(b); err != nil {
					continue
				}
			}
			if k, err := (&Ring{}).newKey(pb, nil); err == nil {
				k.primaryState(time.Now())
				k.UserIDs()
				merge(pb.clone(), b)
			}
		}
	})
}

func TestRecipientOneUsableKey(t *testing.T) {
	r := openRing(t)
	importFile(t, r, filepath.Join(fixtures, "gpg-ed25519-pub.asc"))
	importFile(t, r, filepath.Join(fixtures, "gpg-rsa3072-pub.asc"))
	// Both user IDs are at gpg.test: the pattern is ambiguous.
	if _, err := r.Recipients("@gpg.test"); !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), gpgEdFpr) || !strings.Contains(err.Error(), gpgRSAFpr) {
		t.Fatalf("two usable keys: %v", err)
	}
	// With one of them unable to encrypt, the other is the one meant.
	ed := r.byFingerprint(gpgEdFpr)
	ed.pub.subs = nil
	if err := ed.refresh(); err != nil {
		t.Fatal(err)
	}
	rcs, err := r.Recipients("@gpg.test")
	if err != nil || len(rcs) != 1 || rcs[0].Key.Fingerprint() != gpgRSAFpr {
		t.Fatalf("one usable key: %v", err)
	}
	// A key ID or fingerprint is one key too; Lookup (for -u) does not
	// filter by usability.
	if _, err := r.Lookup("@gpg.test", false); !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("Lookup: %v", err)
	}
	if k, err := r.Lookup(gpgEdFpr, false); err != nil || k != ed {
		t.Fatalf("Lookup(fingerprint): %v", err)
	}
}
