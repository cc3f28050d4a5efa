package keyring

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseExpire(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{"never", time.Time{}, false},
		{"none", time.Time{}, false},
		{"0", time.Time{}, false},
		{"1y", now.AddDate(0, 0, 365), false},
		{"2m", now.AddDate(0, 0, 60), false},
		{"3w", now.AddDate(0, 0, 21), false},
		{"4d", now.AddDate(0, 0, 4), false},
		{"10", now.AddDate(0, 0, 10), false},
		{"seconds=90", now.Add(90 * time.Second), false},
		{"2027-03-04", time.Date(2027, 3, 4, 0, 0, 0, 0, time.UTC), false},
		{"20270304T010203", time.Date(2027, 3, 4, 1, 2, 3, 0, time.UTC), false},
		{"2020-01-01", time.Time{}, true},
		{"bogus", time.Time{}, true},
		{"1x", time.Time{}, true},
		{"seconds=", time.Time{}, true},
	} {
		got, err := ParseExpire(c.in, now)
		if c.bad {
			if !errors.Is(err, ErrBadExpire) {
				t.Errorf("ParseExpire(%q) = %v, %v; want ErrBadExpire", c.in, got, err)
			}
			continue
		}
		if err != nil || !got.Equal(c.want) {
			t.Errorf("ParseExpire(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestParseUsage(t *testing.T) {
	u, def, err := ParseUsage("sign,auth")
	if err != nil || def || !u.Sign || !u.Auth || u.Encrypt {
		t.Fatalf("sign,auth: %+v %v %v", u, def, err)
	}
	if _, def, _ := ParseUsage("default"); !def {
		t.Fatal("default is not default")
	}
	if _, _, err := ParseUsage("bogus"); !errors.Is(err, ErrBadUsage) {
		t.Fatalf("bogus: %v", err)
	}
}

func TestGenerateUsageExpire(t *testing.T) {
	r := openRing(t)
	exp := time.Now().Add(48 * time.Hour).Truncate(time.Second)
	k, err := r.Generate(GenOptions{UserID: "A <a@example.org>", Algo: "ed25519", Usage: "auth", Expires: exp})
	if err != nil {
		t.Fatal(err)
	}
	h := listing(t, r, []string{k.Fingerprint()}, false, false)
	if !strings.Contains(h, "pub   ed25519 "+day(k.Created())+" [CA] [expires: "+day(exp)+"]\n") || strings.Contains(h, "sub ") {
		t.Fatalf("listing:\n%s", h)
	}
	if _, err := r.Generate(GenOptions{UserID: "A <a@example.org>"}); !errors.Is(err, ErrKeyExists) {
		t.Fatalf("duplicate user ID: %v", err)
	}
	if _, err := r.Generate(GenOptions{UserID: "A <a@example.org>", AllowDuplicate: true}); err != nil {
		t.Fatalf("duplicate user ID allowed: %v", err)
	}
	if _, err := r.Generate(GenOptions{UserID: "B", Algo: "bogus", Usage: "bogus"}); !errors.Is(err, ErrUnknownAlgo) {
		t.Fatalf("bogus bogus: %v", err)
	}
	if _, err := r.Generate(GenOptions{UserID: "B", Algo: "ed25519", Usage: "encr"}); !errors.Is(err, ErrBadUsage) {
		t.Fatalf("ed25519 encr: %v", err)
	}
	if _, err := r.Generate(GenOptions{UserID: "B", Algo: "cv25519"}); !errors.Is(err, ErrBadUsage) {
		t.Fatalf("cv25519 primary: %v", err)
	}
	rev, err := os.ReadFile(r.RevocationFile(k))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(rev, []byte("\n:-----BEGIN PGP PUBLIC KEY BLOCK-----\n")) {
		t.Fatalf("revocation file:\n%s", rev)
	}
	// As stored, the file imports nothing; without the colon it revokes.
	if _, err := r.Import(bytes.NewReader(rev)); err == nil {
		t.Fatal("the revocation file imported with its colon")
	}
	st, err := r.Import(bytes.NewReader(bytes.Replace(rev, []byte("\n:-----"), []byte("\n-----"), 1)))
	if err != nil || st.Revocations != 1 {
		t.Fatalf("importing the revocation: %+v %v", st, err)
	}
	k = r.byFingerprint(k.Fingerprint())
	if h := listing(t, r, []string{k.Fingerprint()}, false, false); !strings.Contains(h, "[revoked: "+day(time.Now())+"]") {
		t.Fatalf("revoked listing:\n%s", h)
	}
	if _, err := r.Recipients(k.Fingerprint()); err == nil {
		t.Fatal("a revoked key is a recipient")
	}
}

func TestEditKey(t *testing.T) {
	r := openRing(t)
	pw := []byte("pw")
	pass := func() ([]byte, error) { return pw, nil }
	k, err := r.Generate(GenOptions{UserID: "A <a@example.org>", Passphrase: pw})
	if err != nil {
		t.Fatal(err)
	}
	fpr := k.Fingerprint()
	exp := time.Now().Add(365 * 24 * time.Hour).Truncate(time.Second)
	if err := r.SetExpire(fpr, exp, nil, false, pass); err != nil {
		t.Fatal(err)
	}
	if err := r.SetExpire(fpr, exp, nil, true, pass); err != nil {
		t.Fatal(err)
	}
	h := listing(t, r, nil, false, false)
	if strings.Count(h, "[expires: "+day(exp)+"]") != 2 {
		t.Fatalf("after set-expire:\n%s", h)
	}
	if err := r.SetExpire(fpr, exp, nil, false, func() ([]byte, error) { return []byte("wrong"), nil }); !errors.Is(err, ErrBadPassphrase) {
		t.Fatalf("wrong passphrase: %v", err)
	}
	if err := r.AddUserID(fpr, "A2 <a2@example.org>", pass); err != nil {
		t.Fatal(err)
	}
	if err := r.AddUserID(fpr, "A2 <a2@example.org>", pass); !errors.Is(err, ErrUserIDExists) {
		t.Fatalf("second add: %v", err)
	}
	if _, err := r.Recipients("a2@example.org"); err != nil {
		t.Fatal(err)
	}
	// gpg's quick commands name a user ID exactly or by its name hash.
	if err := r.SetPrimaryUserID(fpr, strings.ToLower(uidHash("A2 <a2@example.org>")), pass); err != nil {
		t.Fatal(err)
	}
	if k, err := r.Lookup(fpr, false); err != nil || k.PrimaryUserID() != "A2 <a2@example.org>" {
		t.Fatalf("after SetPrimaryUserID: %v %q", err, k.PrimaryUserID())
	}
	if err := r.SetPrimaryUserID(fpr, "C <c@example.org>", pass); err == nil {
		t.Fatal("a user ID the key lacks was made primary")
	}
	if err := r.RevokeUserID(fpr, uidHash("A <a@example.org>"), pass); err != nil {
		t.Fatal(err)
	}
	if err := r.RevokeUserID(fpr, "A2 <a2@example.org>", pass); err == nil {
		t.Fatal("revoked the last user ID")
	}
	if _, err := r.Recipients("<a@example.org>"); err == nil {
		t.Fatal("a revoked user ID still names the key")
	}
	h = listing(t, r, nil, false, true)
	if !strings.Contains(h, "uid:r:") {
		t.Fatalf("colon listing:\n%s", h)
	}
	sub, err := r.AddKey(fpr, AddKeyOptions{Algo: "ed25519", Usage: "auth"}, pass)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.AddKey(fpr, AddKeyOptions{Algo: "cv25519", Usage: "sign"}, pass); !errors.Is(err, ErrBadUsage) {
		t.Fatalf("cv25519 sign: %v", err)
	}
	r2, err := Open(r.Home())
	if err != nil {
		t.Fatal(err)
	}
	k = r2.byFingerprint(fpr)
	if h := listing(t, r2, nil, true, false); !strings.Contains(h, "ssb   ed25519 "+day(time.Now())+" [A]\n") {
		t.Fatalf("after add-key:\n%s", h)
	}
	priv := k.PrivateKey(mustHex(t, sub))
	if priv == nil || !priv.Encrypted {
		t.Fatalf("new subkey secret part: %+v", priv)
	}
	if err := Unlock(priv, pw); err != nil {
		t.Fatal(err)
	}
	rev, err := r2.RevocationCertificate(fpr, 1, "lost", pass)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := r2.Import(bytes.NewReader(rev)); err != nil || st.Revocations != 1 {
		t.Fatalf("import revocation: %+v %v", st, err)
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, _, ok := parseHexID(s)
	if !ok {
		t.Fatalf("not hex: %q", s)
	}
	return b
}
