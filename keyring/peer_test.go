package keyring

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/internal/testpeer"
)

// requirePeer skips the test when the peer program is not installed,
// unless PGPSTREAM_REQUIRE_PEERS is set (as CI sets it): then a missing
// peer is a failure, so a test that stopped testing is noticed.
func requirePeer(t *testing.T, name string) {
	t.Helper()
	testpeer.Need(t, name)
}

// gnupgHome makes a short-lived GNUPGHOME. It lives under os.TempDir, not
// t.TempDir: gpg-agent's socket path must fit in sun_path (108 bytes), and
// test temp paths can be longer than that.
func gnupgHome(t *testing.T) func(args ...string) []byte {
	t.Helper()
	requirePeer(t, "gpg")
	dir, err := os.MkdirTemp("", "pgk")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GNUPGHOME="+dir)
	t.Cleanup(func() {
		kill := exec.Command("gpgconf", "--kill", "gpg-agent")
		kill.Env = env
		kill.Run()
		os.RemoveAll(dir)
	})
	return func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command("gpg", append([]string{"--batch", "--no-tty", "--pinentry-mode", "loopback", "--passphrase", ""}, args...)...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("gpg %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return out
	}
}

// TestGnuPGKeys has gpg make keys, imports them, compares the colon
// listings field by field, and decrypts a message gpg encrypted to them.
func TestGnuPGKeys(t *testing.T) {
	gpg := gnupgHome(t)
	cases := []struct{ primary, sub string }{
		{"ed25519", "cv25519"},
		{"rsa3072", "rsa3072"},
		{"nistp256", "nistp256"},
	}
	r := openRing(t)
	for _, c := range cases {
		mail := c.primary + "@gpg.test"
		gpg("--quick-gen-key", "Peer <"+mail+">", c.primary, "sign,cert", "never")
		fpr := ""
		for _, rec := range colonRecords(string(gpg("--with-colons", "--list-keys", "<"+mail+">")), "fpr") {
			fpr = rec[9]
			break
		}
		gpg("--quick-add-key", fpr, c.sub, "encr", "never")
		want := string(gpg("--with-colons", "--list-keys", fpr))
		st, err := r.Import(bytes.NewReader(gpg("--export-secret-keys", fpr)))
		if err != nil || st.Imported != 1 || st.SecretImported != 1 {
			t.Fatalf("%s: import %+v %v", c.primary, st, err)
		}
		got := listing(t, r, []string{fpr}, false, true)
		// Fields gpg and we must agree on: type, key length, algorithm,
		// key ID, creation, capabilities, curve. Validity and trust
		// differ by design (gpg trusts its own keys ultimately).
		for _, typ := range []string{"pub", "sub", "fpr"} {
			w, g := colonRecords(want, typ), colonRecords(got, typ)
			if len(w) != len(g) {
				t.Fatalf("%s: %d %s records, gpg has %d\nours:\n%s\ngpg:\n%s", c.primary, len(g), typ, len(w), got, want)
			}
			for i := range w {
				for _, f := range []int{0, 2, 3, 4, 5, 6, 9, 11, 16} {
					if f < len(w[i]) && f < len(g[i]) && w[i][f] != g[i][f] {
						t.Errorf("%s: %s field %d: ours %q, gpg %q", c.primary, typ, f+1, g[i][f], w[i][f])
					}
				}
			}
		}
		if u := colonRecords(got, "uid"); len(u) != 1 || u[0][9] != "Peer <"+mail+">" {
			t.Errorf("%s: uid %q", c.primary, u)
		}
	}
	for _, c := range cases {
		mail := c.primary + "@gpg.test"
		in := filepath.Join(t.TempDir(), "plain")
		os.WriteFile(in, []byte("hello from gpg "+c.primary), 0o600)
		out := in + ".gpg"
		gpg("--trust-model", "always", "--compress-algo", "none", "--output", out, "--encrypt", "--recipient", mail, in)
		if got := decryptMessage(t, r, out, nil); got != "hello from gpg "+c.primary {
			t.Errorf("%s: decrypted %q", c.primary, got)
		}
		sessionKeyRoundTrip(t, r, mail, r, nil)
	}
}

// TestGnuPGReadsOurKeys has gpg import keys this package made.
func TestGnuPGReadsOurKeys(t *testing.T) {
	gpg := gnupgHome(t)
	r := openRing(t)
	var fprs []string
	for _, algo := range []string{"ed25519", "nistp256"} {
		k, err := r.Generate(GenOptions{UserID: "Ours <" + algo + "@ours.test>", Algo: algo, Passphrase: []byte("pw")})
		if err != nil {
			t.Fatal(err)
		}
		fprs = append(fprs, k.Fingerprint())
	}
	var sec bytes.Buffer
	if err := r.Export(&sec, nil, true, true); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "sec.asc")
	os.WriteFile(f, sec.Bytes(), 0o600)
	gpg("--passphrase", "pw", "--import", f)
	list := string(gpg("--with-colons", "--list-secret-keys"))
	for _, fp := range fprs {
		if !strings.Contains(list, "fpr:::::::::"+fp+":") {
			t.Errorf("gpg does not list %s:\n%s", fp, list)
		}
	}
	// gpg encrypts to our key; we decrypt.
	in := filepath.Join(t.TempDir(), "plain")
	os.WriteFile(in, []byte("round trip"), 0o600)
	gpg("--trust-model", "always", "--compress-algo", "none", "--output", in+".gpg", "--encrypt", "--recipient", fprs[0], in)
	if got := decryptMessage(t, r, in+".gpg", []byte("pw")); got != "round trip" {
		t.Errorf("decrypted %q", got)
	}
}

func TestSequoiaKey(t *testing.T) {
	requirePeer(t, "sq")
	dir := t.TempDir()
	key := filepath.Join(dir, "sq.pgp")
	if out, err := exec.Command("sq", "key", "generate", "--userid", "Sq <s@sq.test>", "--export", key).CombinedOutput(); err != nil {
		t.Fatalf("sq key generate: %v\n%s", err, out)
	}
	r := openRing(t)
	st := importFile(t, r, key)
	if st.Imported != 1 || st.SecretImported != 1 {
		t.Fatalf("%+v", st)
	}
	sessionKeyRoundTrip(t, r, "s@sq.test", r, nil)
	// sq reads what we export.
	var pub bytes.Buffer
	if err := r.Export(&pub, nil, false, true); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sq", "inspect")
	cmd.Stdin = &pub
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OpenPGP Certificate") {
		t.Errorf("sq inspect: %v\n%s", err, out)
	}
}

func TestRNPKey(t *testing.T) {
	requirePeer(t, "rnpkeys")
	home := filepath.Join(t.TempDir(), "rnp")
	os.Mkdir(home, 0o700)
	run := func(args ...string) []byte {
		out, err := exec.Command("rnpkeys", append([]string{"--homedir", home}, args...)...).Output()
		if err != nil {
			t.Fatalf("rnpkeys %v: %v", args, err)
		}
		return out
	}
	run("--generate-key", "--userid", "R <r@rnp.test>", "--password", "")
	r := openRing(t)
	st, err := r.Import(bytes.NewReader(run("--export-key", "--secret", "r@rnp.test")))
	if err != nil || st.Imported != 1 || st.SecretImported != 1 {
		t.Fatalf("%+v %v", st, err)
	}
	sessionKeyRoundTrip(t, r, "<r@rnp.test>", r, nil)
	if h := listing(t, r, nil, true, false); !strings.Contains(h, "sec   rsa") || !strings.Contains(h, "[expires: ") {
		t.Errorf("listing:\n%s", h)
	}
}
