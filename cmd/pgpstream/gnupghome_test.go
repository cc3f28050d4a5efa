package main

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

// gnupgKey is a key gpg made in the test's home.
type gnupgKey struct {
	mail, pass string
	fpr        string
}

// TestGnuPGHome uses a home made by gpg as it is: pgpstream lists gpg's
// keys (RSA, Ed25519 with Curve25519, P-256, DSA with ElGamal), decrypts
// what gpg encrypted and signs through gpg-agent, encrypts
// to gpg's keys and verifies gpg's signatures, without importing
// anything; gpg reads what pgpstream made; and gpg's files are left byte
// for byte as they were.
func TestGnuPGHome(t *testing.T) {
	h := gnupgtest.New(t)
	t.Cleanup(func() { stopAgent(h.Dir) })
	keys := []*gnupgKey{
		{mail: "rsa@gpg.test"},
		{mail: "ed@gpg.test", pass: "ed pass"},
		{mail: "nist@gpg.test", pass: "nist pass"},
		{mail: "dsa@gpg.test", pass: "dsa pass"},
	}
	keys[0].fpr = h.GenKey("Rsa <rsa@gpg.test>", "rsa3072", "rsa3072", "")
	keys[1].fpr = h.GenKey("Ed <ed@gpg.test>", "ed25519", "cv25519", keys[1].pass)
	keys[2].fpr = h.GenKey("Nist <nist@gpg.test>", "nistp256", "nistp256", keys[2].pass)
	keys[3].fpr = h.GenKey("Dsa <dsa@gpg.test>", "dsa2048", "elg2048", keys[3].pass)

	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.txt")
	data := []byte("a message between gpg and pgpstream\n")
	if err := os.WriteFile(plain, data, 0o600); err != nil {
		t.Fatal(err)
	}
	// What gpg makes for pgpstream to read.
	gpgArgs := func(k *gnupgKey, args ...string) []string {
		return append([]string{"--batch", "--yes", "--trust-model", "always", "--pinentry-mode", "loopback", "--passphrase", k.pass}, args...)
	}
	for _, k := range keys {
		base := filepath.Join(dir, "gpg-"+k.mail)
		h.Run(nil, "gpg", gpgArgs(k, "-e", "-r", k.mail, "-o", base+".gpg", plain)...)
		h.Run(nil, "gpg", gpgArgs(k, "-u", k.mail, "-b", "-o", base+".sig", plain)...)
		h.Run(nil, "gpg", gpgArgs(k, "-u", k.mail, "--clear-sign", "-o", base+".asc", plain)...)
	}

	// From here until gpg reads pgpstream's output, only pgpstream runs,
	// and the agent is stopped: pgpstream must start it itself.
	before := gnupgFiles(t, h.Dir)
	stopAgentWait(h.Dir)
	ps := func(args ...string) []byte {
		t.Helper()
		return mustRun(t, nil, append([]string{"--homedir", h.Dir, "--batch", "--yes"}, args...)...)
	}
	agentRunning := func() bool {
		_, err := os.Stat(filepath.Join(h.Dir, "S.gpg-agent"))
		return err == nil
	}

	// Public keys come from pubring.kbx, and listing them, encrypting
	// and verifying do not start the agent.
	out := string(ps("--list-keys", "--with-colons"))
	for _, k := range keys {
		if !strings.Contains(out, "fpr:::::::::"+k.fpr+":") {
			t.Errorf("--list-keys lacks %s:\n%s", k.fpr, out)
		}
		if !regexp.MustCompile(`(?m)^pub:u:`).MatchString(out) {
			t.Errorf("gpg's own keys are not ultimately valid as trustdb.gpg says:\n%s", out)
		}
	}
	for _, k := range keys {
		ps("-e", "-r", k.mail, "-o", filepath.Join(dir, "ps-"+k.mail+".gpg"), plain)
		if code, out, stderr := runInProcess(nil, "--homedir", h.Dir, "--status-fd", "1", "--verify", filepath.Join(dir, "gpg-"+k.mail+".sig"), plain); code != 0 || !strings.Contains(string(out), "GOODSIG") {
			t.Errorf("verifying gpg's signature by %s: exit %d\n%s%s", k.mail, code, out, stderr)
		}
		if code, out, stderr := runInProcess(nil, "--homedir", h.Dir, "--status-fd", "1", "--verify", filepath.Join(dir, "gpg-"+k.mail+".asc")); code != 0 || !strings.Contains(string(out), "GOODSIG") {
			t.Errorf("verifying gpg's clear-signed text by %s: exit %d\n%s%s", k.mail, code, out, stderr)
		}
	}
	if agentRunning() {
		t.Errorf("listing public keys, encrypting or verifying started gpg-agent")
	}

	// --no-autostart starts none for the secret keys either, as gpg's
	// (gpg -K then lists none).
	out = string(ps("--no-autostart", "--list-secret-keys", "--with-colons"))
	if agentRunning() || strings.Contains(out, "\nsec:") || strings.HasPrefix(out, "sec:") {
		t.Errorf("--no-autostart --list-secret-keys: agent started %v\n%s", agentRunning(), out)
	}

	// Secret keys are the agent's.
	out = string(ps("--list-secret-keys", "--with-colons"))
	for _, k := range keys {
		if !regexp.MustCompile(`(?m)^sec:u:[^\n]*:` + k.fpr[24:] + `:[^\n]*:\+:`).MatchString(out) {
			t.Errorf("--list-secret-keys does not show %s with its secret part:\n%s", k.mail, out)
		}
	}
	if !agentRunning() {
		t.Errorf("--list-secret-keys did not start gpg-agent")
	}
	human := string(ps("--list-secret-keys"))
	if !strings.HasPrefix(human, filepath.Join(h.Dir, "pubring.kbx")+"\n") || strings.Count(human, "\nsec ") != len(keys) || strings.Count(human, "\nssb ") != len(keys) {
		t.Errorf("--list-secret-keys:\n%s", human)
	}

	// Decrypt what gpg encrypted, sign for gpg to verify; the protected
	// keys' passphrases through the agent's loopback.
	for _, k := range keys {
		base := filepath.Join(dir, "gpg-"+k.mail)
		loop := []string{"--pinentry-mode", "loopback", "--passphrase", k.pass}
		got := ps(append(loop, "-d", base+".gpg")...)
		if string(got) != string(data) {
			t.Errorf("%s: decrypted %q", k.mail, got)
		}
		pbase := filepath.Join(dir, "ps-"+k.mail)
		ps(append(loop, "-u", k.mail, "-b", "-o", pbase+".sig", plain)...)
		ps(append(loop, "-u", k.mail, "-s", "-o", pbase+".signed", plain)...)
		ps(append(loop, "-u", k.mail, "--clear-sign", "-o", pbase+".asc", plain)...)
	}

	// A wrong passphrase, once the agent forgot the right one, is one
	// line naming the key.
	h.Run(nil, "gpgconf", "--reload", "gpg-agent")
	code, _, stderr := runInProcess(nil, "--homedir", h.Dir, "--batch", "--pinentry-mode", "loopback", "--passphrase", "wrong", "-d", filepath.Join(dir, "gpg-nist@gpg.test.gpg"))
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != 2 || !strings.HasPrefix(lines[0], "pgpstream: error: ") || !strings.Contains(lines[0], "bad passphrase") || !regexp.MustCompile(`key [0-9A-F]{16}`).MatchString(lines[0]) || !strings.Contains(stderr, "hint: check the passphrase") || strings.Contains(stderr, "goroutine") {
		t.Errorf("wrong passphrase: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runInProcess(nil, "--homedir", h.Dir, "--batch", "--pinentry-mode", "loopback", "--passphrase", "wrong", "-u", "ed@gpg.test", "-b", "-o", filepath.Join(dir, "bad.sig"), plain)
	if code != 2 || !strings.Contains(stderr, "bad passphrase") || strings.Contains(stderr, "goroutine") {
		t.Errorf("signing with a wrong passphrase: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.sig")); err == nil {
		t.Errorf("a failed signature left its output")
	}

	// An import goes to gpg's own pubring.kbx, where gpg lists it;
	// deleting a public key whose secret part the agent holds is refused
	// as gpg refuses it (the secret key is deleted through the agent:
	// TestGnuPGDeleteSecret). Nothing else of gpg's changes.
	other := t.TempDir()
	mustRun(t, nil, "--homedir", other, "--batch", "--passphrase", "", "--quick-gen-key", "Stream <s@pgpstream.test>")
	pub := mustRun(t, nil, "--homedir", other, "--export")
	mustRun(t, pub, "--homedir", h.Dir, "--batch", "--import")
	if _, err := os.Stat(filepath.Join(h.Dir, "pubring.pgp")); err == nil {
		t.Errorf("the import went to pubring.pgp, not to gpg's ring")
	}
	if !strings.Contains(string(h.Run(nil, "gpg", "--batch", "--list-keys")), "s@pgpstream.test") {
		t.Errorf("gpg does not list the key pgpstream imported")
	}
	if !strings.Contains(string(ps("--list-keys")), "s@pgpstream.test") {
		t.Errorf("the imported key is not listed")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--delete-keys", keys[0].fpr}, "--delete-secret-keys"},
	} {
		code, _, stderr := runInProcess(nil, append([]string{"--homedir", h.Dir, "--batch", "--yes"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
			t.Errorf("%s: exit %d\n%s", c.args[0], code, stderr)
		}
	}

	after := gnupgFiles(t, h.Dir)
	for name, sum := range before {
		if name == "pubring.kbx" {
			continue // the import's, checked above through gpg
		}
		if after[name] != sum {
			t.Errorf("gpg's %s changed", name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("pgpstream made %s among gpg's files", name)
		}
	}

	// gpg reads what pgpstream made.
	for _, k := range keys {
		pbase := filepath.Join(dir, "ps-"+k.mail)
		got := h.Run(nil, "gpg", gpgArgs(k, "-d", pbase+".gpg")...)
		if string(got) != string(data) {
			t.Errorf("gpg decrypted pgpstream's message to %s: %q", k.mail, got)
		}
		for _, args := range [][]string{{"--verify", pbase + ".sig", plain}, {"--verify", pbase + ".asc"}, {"-d", "-o", "/dev/null", pbase + ".signed"}} {
			out := string(h.Run(nil, "gpg", append([]string{"--batch", "--status-fd", "1"}, args...)...))
			if !strings.Contains(out, "[GNUPG:] GOODSIG ") || !strings.Contains(out, k.fpr) {
				t.Errorf("gpg %s by %s:\n%s", args[0], k.mail, out)
			}
		}
	}
}

// TestGnuPGHomeNoAgent: when gpg-agent cannot be started, the keys whose
// secret part is in pgpstream's own secring.pgp still work, and a key
// only the agent holds gets a clear error, not a crash.
func TestGnuPGHomeNoAgent(t *testing.T) {
	h := gnupgtest.New(t)
	t.Cleanup(func() { stopAgent(h.Dir) })
	h.GenKey("Ed <ed@gpg.test>", "ed25519", "cv25519", "")
	mustRun(t, nil, "--homedir", h.Dir, "--batch", "--passphrase", "", "--quick-gen-key", "Own <own@pgpstream.test>")
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.txt")
	os.WriteFile(plain, []byte("no agent\n"), 0o600)
	toGpg := filepath.Join(dir, "gpg.gpg")
	h.Run(nil, "gpg", "--batch", "--trust-model", "always", "-e", "-r", "ed@gpg.test", "-o", toGpg, plain)
	toOwn := filepath.Join(dir, "own.gpg")
	mustRun(t, nil, "--homedir", h.Dir, "--batch", "-e", "-r", "own@pgpstream.test", "-o", toOwn, plain)

	stopAgentWait(h.Dir)
	t.Setenv("PATH", t.TempDir()) // neither gpgconf nor gpg-agent
	if got := mustRun(t, nil, "--homedir", h.Dir, "--batch", "-d", toOwn); string(got) != "no agent\n" {
		t.Errorf("own key without the agent: %q", got)
	}
	mustRun(t, nil, "--homedir", h.Dir, "--batch", "-u", "own@pgpstream.test", "-b", "-o", filepath.Join(dir, "own.sig"), plain)
	code, _, stderr := runInProcess(nil, "--homedir", h.Dir, "--batch", "-d", toGpg)
	if code != 2 || !strings.Contains(stderr, "gpg-agent") || strings.Contains(stderr, "goroutine") {
		t.Errorf("gpg's key without the agent: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runInProcess(nil, "--homedir", h.Dir, "--batch", "-u", "ed@gpg.test", "-b", "-o", filepath.Join(dir, "gpg.sig"), plain)
	if code != 2 || !strings.Contains(stderr, "gpg-agent is not running and gpgconf, which starts it, is not installed") || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
		t.Errorf("signing with gpg's key without the agent: exit %d\n%s", code, stderr)
	}
}

// stopAgentWait is stopAgent that waits (up to 5 s) for the agent's
// socket to go: gpgconf returns before the agent is gone.
func stopAgentWait(home string) {
	stopAgent(home)
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(filepath.Join(home, "S.gpg-agent")); err != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// gnupgFiles hashes gpg's files in home: its rings, trust database and
// the agent's key files.
func gnupgFiles(t *testing.T, home string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	names := []string{"pubring.kbx", "pubring.kbx~", "pubring.gpg", "trustdb.gpg"}
	keyFiles, _ := filepath.Glob(filepath.Join(home, "private-keys-v1.d", "*"))
	for _, f := range keyFiles {
		names = append(names, filepath.Join("private-keys-v1.d", filepath.Base(f)))
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(home, n))
		if err != nil {
			continue
		}
		out[n] = sha256.Sum256(b)
	}
	return out
}
