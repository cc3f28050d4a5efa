package tofu

import (
	"database/sql"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeKeys is a keyring for the policy: ultimate keys, and which key
// certified which key's address.
type fakeKeys struct {
	ultimate map[string]bool
	certs    map[[3]string]bool // {signer, signee, email}
}

func (f *fakeKeys) Ultimate(fpr string) bool { return f.ultimate[fpr] }
func (f *fakeKeys) SignedByUltimate(fpr, email string) bool {
	for c := range f.certs {
		if c[1] == fpr && c[2] == email && f.ultimate[c[0]] {
			return true
		}
	}
	return false
}
func (f *fakeKeys) CrossSigned(a, b, email string) bool {
	return f.certs[[3]string{a, b, email}] && f.certs[[3]string{b, a, email}]
}

const (
	fprA = "1938C3A0E4674B6C217AC0B987DB2814EC38277E"
	fprB = "DC463A16E42F03240D76E8BA8B48C6BD871C2247"
	fprC = "0123456789ABCDEF0123456789ABCDEF01234567"
)

var t0 = time.Unix(1480943782, 0)

func open(t *testing.T, path string, keys Keys, utks ...string) *DB {
	t.Helper()
	d, err := Open(path, keys, utks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func validity(t *testing.T, d *DB, fpr string, uids ...string) (Trust, []Binding) {
	t.Helper()
	var us []UserID
	for _, u := range uids {
		us = append(us, UserID{Name: u})
	}
	v, b, err := d.Validity(fpr, us, t0)
	if err != nil {
		t.Fatal(err)
	}
	return v, b
}

func policy(t *testing.T, d *DB, fpr, uid string) Policy {
	t.Helper()
	p, err := d.Policy(fpr, uid, t0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFirstUseAndConflict(t *testing.T) {
	keys := &fakeKeys{ultimate: map[string]bool{}, certs: map[[3]string]bool{}}
	d := open(t, filepath.Join(t.TempDir(), FileName), keys)
	alice := "Alice <Alice@Example.org>"
	if v, b := validity(t, d, fprA, alice); v != TrustMarginal || b[0].Policy != Auto || b[0].Email != "alice@example.org" {
		t.Fatalf("a first binding: %v %+v, want marginal under auto", v, b)
	}
	for def, want := range map[Policy]Trust{Good: TrustFully, Unknown: TrustUnknown, Bad: TrustNever, Ask: TrustUndefined, Auto: TrustMarginal} {
		d.Default = def
		if v, _ := validity(t, d, fprA, alice); v != want {
			t.Errorf("default policy %v: validity %v, want %v", def, v, want)
		}
	}
	d.Default = Auto
	// A second key with the address: both bindings need the user.
	if v, b := validity(t, d, fprB, "Mallory <alice@example.org>"); v != TrustUndefined || b[0].Policy != Ask ||
		len(b[0].Conflicts) != 2 || b[0].Conflicts[0].Fingerprint != fprB || b[0].Conflicts[1].Fingerprint != fprA {
		t.Fatalf("a conflicting binding: %v %+v", v, b)
	}
	if p := policy(t, d, fprA, alice); p != Ask {
		t.Errorf("the first binding after the conflict: %v, want ask", p)
	}
	// The same person's two keys: cross-signed, no conflict.
	keys.certs[[3]string{fprA, fprB, "alice@example.org"}] = true
	keys.certs[[3]string{fprB, fprA, "alice@example.org"}] = true
	if p := policy(t, d, fprB, "Mallory <alice@example.org>"); p != Auto {
		t.Errorf("cross-signed: %v, want auto", p)
	}
	if p := policy(t, d, fprA, alice); p != Auto {
		t.Errorf("cross-signed, the other: %v, want auto", p)
	}
	// A policy set by the user stands, whatever the default.
	if old, err := d.SetPolicy(fprA, []string{alice}, Bad, t0); err != nil || len(old) != 1 || old[0] != Auto {
		t.Fatal(old, err)
	}
	d.Default = Good
	if v, _ := validity(t, d, fprA, alice); v != TrustNever {
		t.Errorf("policy bad: %v, want never", v)
	}
}

func TestUltimate(t *testing.T) {
	dir := t.TempDir()
	keys := &fakeKeys{ultimate: map[string]bool{}, certs: map[[3]string]bool{{fprA, fprB, "b@x"}: true}}
	d := open(t, filepath.Join(dir, FileName), keys)
	if p := policy(t, d, fprB, "<b@x>"); p != Auto {
		t.Fatalf("before: %v", p)
	}
	d.Close()
	// A set of ultimate keys the file has not seen drops every cached
	// policy: B, certified by A, is now good.
	keys.ultimate[fprA] = true
	d = open(t, filepath.Join(dir, FileName), keys, KeyID(fprA))
	if p := policy(t, d, fprB, "<b@x>"); p != Good {
		t.Errorf("certified by an ultimate key: %v, want good", p)
	}
	if v, _ := validity(t, d, fprA, "<a@x>"); v != TrustUltimate {
		t.Errorf("the ultimate key: %v", v)
	}
}

func TestValidityOfUserIDs(t *testing.T) {
	d := open(t, filepath.Join(t.TempDir(), FileName), &fakeKeys{})
	v, _, err := d.Validity(fprA, []UserID{{Name: "<a@x>", Expired: true}}, t0)
	if err != nil || v != TrustNever {
		t.Errorf("only expired user IDs: %v %v, want never", v, err)
	}
	if old, err := d.SetPolicy(fprA, []string{"<b@x>"}, Good, t0); err != nil || old[0] != None {
		t.Fatal(old, err)
	}
	if v, _ := validity(t, d, fprA, "<a@x>", "<b@x>"); v != TrustFully {
		t.Errorf("auto and good: %v, want the better", v)
	}
}

func TestSignatureHistory(t *testing.T) {
	d := open(t, filepath.Join(t.TempDir(), FileName), &fakeKeys{})
	uid := []UserID{{Name: "Alice <alice@x>"}}
	reg := func(digest string, at time.Time) {
		t.Helper()
		if err := d.RegisterSignature(fprA, uid, []byte(digest), time.Unix(1476180730, 0), "", at); err != nil {
			t.Fatal(err)
		}
	}
	reg("one", t0)
	reg("one", t0.Add(time.Hour)) // seen again: not counted
	reg("two", t0)
	reg("three", t0.Add(48*time.Hour))
	if err := d.RegisterEncryption(fprA, uid, t0); err != nil {
		t.Fatal(err)
	}
	s, err := d.Stats(fprA, "alice@x")
	if err != nil {
		t.Fatal(err)
	}
	want := Stats{Signatures: 3, SignatureDays: 2, FirstSignature: t0.Unix(), LastSignature: t0.Unix() + 48*3600,
		Encryptions: 1, EncryptionDays: 1, FirstEncryption: t0.Unix(), LastEncryption: t0.Unix()}
	if s != want {
		t.Errorf("stats %+v\nwant  %+v", s, want)
	}
	if s.Validity() != 2 || s.Summary(Ask) != 0 || s.Summary(Auto) != 2 {
		t.Errorf("validity %d, summaries %d %d", s.Validity(), s.Summary(Ask), s.Summary(Auto))
	}
	var digest string
	d.db.QueryRow(`select sig_digest from signatures limit 1`).Scan(&digest)
	if digest != "b25l" { // base64 of "one", unpadded, as gpg writes it
		t.Errorf("sig_digest %q", digest)
	}
}

func TestKeyChanged(t *testing.T) {
	keys := &fakeKeys{ultimate: map[string]bool{fprC: true}, certs: map[[3]string]bool{}}
	d := open(t, filepath.Join(t.TempDir(), FileName), keys, KeyID(fprC))
	if p := policy(t, d, fprA, "<a@x>"); p != Auto {
		t.Fatal(p)
	}
	keys.certs[[3]string{fprC, fprA, "a@x"}] = true
	if p := policy(t, d, fprA, "<a@x>"); p != Auto {
		t.Errorf("cached: %v", p)
	}
	if err := d.KeyChanged(fprA); err != nil {
		t.Fatal(err)
	}
	if p := policy(t, d, fprA, "<a@x>"); p != Good {
		t.Errorf("after the key changed: %v, want good", p)
	}
}

func TestDamagedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	d := open(t, path, &fakeKeys{})
	policy(t, d, fprA, "<a@x>")
	d.Close()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`update version set version = 7`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if _, err := Open(path, &fakeKeys{}, nil); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "version 7") {
		t.Errorf("a file of another version: %v", err)
	}
}

// TestConcurrentWriters: two processes' handles recording at once lose
// no signature, the second waiting for the first's lock.
func TestConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	a := open(t, path, &fakeKeys{})
	b := open(t, path, &fakeKeys{})
	var wg sync.WaitGroup
	for i, d := range []*DB{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 20 {
				if err := d.RegisterSignature(fprA, []UserID{{Name: "<a@x>"}}, []byte{byte(i), byte(n)}, t0, "", t0); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if s, err := a.Stats(fprA, "a@x"); err != nil || s.Signatures != 40 {
		t.Errorf("%d signatures recorded (%v), want 40", s.Signatures, err)
	}
}

func TestEmailAndPolicyNames(t *testing.T) {
	for uid, want := range map[string]string{
		"Alice <Alice@Example.ORG>": "alice@example.org",
		"BOB@X.TEST":                "bob@x.test",
		"Host.Example":              "host.example",
		"Ünïcode NAME":              "Ünïcode name",
	} {
		if got := Email(uid); got != want {
			t.Errorf("Email(%q) = %q, want %q", uid, got, want)
		}
	}
	for _, p := range Policies {
		if q, err := ParsePolicy(strings.ToUpper(p.String())); err != nil || q != p {
			t.Errorf("%v: %v %v", p, q, err)
		}
	}
	if _, err := ParsePolicy("maybe"); err == nil {
		t.Error("an unknown policy parsed")
	}
	if CombinePGP(TrustFully, TrustNever) != TrustNever || CombinePGP(TrustMarginal, TrustFully) != TrustFully ||
		CombinePGP(TrustUnknown, TrustUndefined) != TrustUndefined {
		t.Error("CombinePGP")
	}
}
