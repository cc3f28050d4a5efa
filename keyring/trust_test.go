package keyring

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gpgIn runs gpg in home, failing the test on an error.
func gpgIn(t *testing.T, home string, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("gpg", append([]string{"--homedir", home, "--batch", "--no-tty", "--pinentry-mode", "loopback", "--passphrase", ""}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gpg %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// fprOf is the first fingerprint in gpg's colon listing of pattern.
func fprOf(t *testing.T, home, pattern string) string {
	t.Helper()
	for _, line := range strings.Split(string(gpgIn(t, home, nil, "--with-colons", "--list-keys", pattern)), "\n") {
		if f := strings.Split(line, ":"); f[0] == "fpr" && len(f) > 9 {
			return f[9]
		}
	}
	t.Fatalf("gpg lists no fingerprint for %s", pattern)
	return ""
}

// TestGnuPGValidity: in a GnuPG home, a key gpg made valid by certifying
// it (--quick-lsign-key, --quick-sign-key) is valid under the pgp model,
// from the validity gpg keeps in trustdb.gpg; a key it did not certify is
// not; an own key is ultimately valid. Under direct, only owner trust
// counts, as in gpg.
func TestGnuPGValidity(t *testing.T) {
	requirePeer(t, "gpg")
	// gpg-agent's socket path must fit in sun_path: a short directory.
	dir, err := os.MkdirTemp("", "pgv")
	if err != nil {
		t.Fatal(err)
	}
	own, other := filepath.Join(dir, "own"), filepath.Join(dir, "other")
	t.Cleanup(func() {
		for _, h := range []string{own, other} {
			exec.Command("gpgconf", "--homedir", h, "--kill", "gpg-agent").Run()
		}
		os.RemoveAll(dir)
	})
	for _, h := range []string{own, other} {
		if err := os.Mkdir(h, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	gen := func(home, uid string) {
		gpgIn(t, home, nil, "--quick-gen-key", uid, "future-default", "default", "never")
	}
	gen(own, "Alice <alice@example.org>")
	for _, uid := range []string{"Bob <bob@example.org>", "Carol <carol@example.org>", "Dave <dave@example.org>"} {
		gen(other, uid)
	}
	gen(other, "Erin <erin@example.org>")
	gpgIn(t, other, nil, "--quick-add-uid", fprOf(t, other, "erin@"), "Erin at Work <erin@work.example>")
	certs := gpgIn(t, other, nil, "--export")
	gpgIn(t, own, certs, "--import")
	alice, bob, carol, dave, erin := fprOf(t, own, "alice@"), fprOf(t, own, "bob@"), fprOf(t, own, "carol@"), fprOf(t, own, "dave@"), fprOf(t, own, "erin@")
	gpgIn(t, own, nil, "--quick-lsign-key", bob)
	gpgIn(t, own, nil, "--quick-sign-key", carol)
	gpgIn(t, own, nil, "--quick-lsign-key", erin, "Erin <erin@example.org>")
	gpgIn(t, own, nil, "--check-trustdb")

	r, err := Open(own)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, fpr, model string
		want             OwnerTrust
	}{
		{"own key", alice, ModelPGP, TrustUltimate},
		{"locally certified", bob, ModelPGP, TrustFully},
		{"certified", carol, ModelPGP, TrustFully},
		{"not certified", dave, ModelPGP, TrustUnknown},
		{"certified, direct model", bob, ModelDirect, TrustUnknown},
	} {
		if got := r.Validity(c.fpr, c.model); got != c.want {
			t.Errorf("%s: validity %v, want %v (gpg: %s)", c.name, got, c.want,
				strings.TrimSpace(string(gpgIn(t, own, nil, "--with-colons", "--list-keys", c.fpr))))
		}
	}

	// Erin's key is valid, by one user ID only: gpg encrypts to it by
	// that user ID's address or by fingerprint, not by the other's.
	if got := r.Validity(erin, ModelPGP); got != TrustFully {
		t.Errorf("a key with one certified user ID: %v, want full", got)
	}
	if _, err := r.Import(bytes.NewReader(certs)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		spec string
		want OwnerTrust
	}{
		{"erin@example.org", TrustFully},
		{"<erin@work.example>", TrustUnknown},
		{"Erin at Work", TrustUnknown},
		{erin, TrustFully},
		{"dave@example.org", TrustUnknown},
	} {
		rcs, err := r.Recipients(c.spec)
		if err != nil {
			t.Fatalf("-r %s: %v", c.spec, err)
		}
		if got := r.RecipientValidity(rcs[0], ModelPGP); got != c.want {
			t.Errorf("-r %s: validity %v, want %v", c.spec, got, c.want)
		}
		cmd := exec.Command("gpg", "--homedir", own, "--batch", "-e", "-r", c.spec, "-o", os.DevNull)
		cmd.Stdin = strings.NewReader("x")
		if err := cmd.Run(); (err == nil) != (c.want == TrustFully) {
			t.Errorf("-r %s: gpg encrypts: %v; pgpstream: %v", c.spec, err == nil, c.want == TrustFully)
		}
	}
}

// gnupgValidity reads nothing from a file that is not a pgp-model trust
// database, and stops on a valid-record chain that loops or runs out.
func TestGnuPGValidityBadFiles(t *testing.T) {
	rec := func(b ...byte) []byte { r := make([]byte, 40); copy(r, b); return r }
	version := func(model byte) []byte { return rec(1, 'g', 'p', 'g', 3, 3, 1, 5, model) }
	fpr := bytes.Repeat([]byte{0xAB}, 20)
	trust := func(first byte) []byte {
		r := rec(12, 0)
		copy(r[2:], fpr)
		r[29] = first
		return r
	}
	valid := func(v, next byte) []byte {
		r := rec(13, 0)
		r[22] = v
		r[26] = next
		return r
	}
	want := strings.Repeat("AB", 20)
	for _, c := range []struct {
		name string
		data []byte
		want OwnerTrust
	}{
		{"pgp", bytes.Join([][]byte{version(1), trust(2), valid(5, 0)}, nil), TrustFully},
		{"two user IDs, the best counts", bytes.Join([][]byte{version(1), trust(2), valid(4, 3), valid(6, 0)}, nil), TrustUltimate},
		{"direct model", bytes.Join([][]byte{version(4), trust(2), valid(5, 0)}, nil), TrustUnknown},
		{"always model", bytes.Join([][]byte{version(3), trust(2), valid(5, 0)}, nil), TrustUnknown},
		{"not a trustdb", bytes.Join([][]byte{rec(1, 'x', 'y', 'z'), trust(2), valid(5, 0)}, nil), TrustUnknown},
		{"loop", bytes.Join([][]byte{version(1), trust(2), valid(5, 2)}, nil), TrustFully},
		{"past the end", bytes.Join([][]byte{version(1), trust(9)}, nil), TrustUnknown},
		{"points at a trust record", bytes.Join([][]byte{version(1), trust(1)}, nil), TrustUnknown},
		{"truncated", bytes.Join([][]byte{version(1), trust(2), valid(5, 0)}, nil)[:100], TrustUnknown},
		{"empty", nil, TrustUnknown},
	} {
		if got := gnupgValidity(c.data)[want].best; got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
