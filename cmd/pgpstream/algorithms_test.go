package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

// versionList is the comma-separated list on --version's line "NAME: ..."
// (the read ones, flush left) or "  NAME: ..." (the written ones).
func versionList(t *testing.T, out, name string, written bool) []string {
	t.Helper()
	indent := ""
	if written {
		indent = "  "
	}
	m := regexp.MustCompile(`(?m)^` + indent + name + `: (.*)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("--version has no %q line:\n%s", indent+name+":", out)
	}
	list, _, _ := strings.Cut(m[1], " (")
	return strings.Split(list, ", ")
}

// configList is --list-config's cfg:NAME: list.
func configList(t *testing.T, name string) []string {
	t.Helper()
	out := string(mustRun(t, nil, "--no-options", "--list-config", "--with-colons", name))
	v, ok := strings.CutPrefix(strings.TrimSpace(out), "cfg:"+name+":")
	if !ok {
		t.Fatalf("--list-config %s: %q", name, out)
	}
	return strings.Split(v, ";")
}

// --version and --list-config say what is read and what is written: every
// cipher, hash and compression gpg writes is listed as read, a message in
// each decrypts, and what is listed as written is what the options that
// choose it accept.
func TestVersionSaysWhatIsRead(t *testing.T) {
	h := gnupgtest.New(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	os.Mkdir(home, 0o700)
	version := string(mustRun(t, nil, "--homedir", home, "--version"))
	ciphers := versionList(t, version, "Cipher", false)
	hashes := versionList(t, version, "Hash", false)
	compressions := versionList(t, version, "Compression", false)
	if !slices.Equal(ciphers, configList(t, "readciphername")) || !slices.Equal(hashes, configList(t, "readdigestname")) ||
		!slices.Equal(compressions, configList(t, "readcompressname")) {
		t.Errorf("--version and --list-config disagree on what is read:\n%s", version)
	}

	// What gpg's --version lists, pgpstream reads.
	gpgVersion := string(h.Run(nil, "gpg", "--version"))
	gpgVersion = strings.ReplaceAll(gpgVersion, ",\n        ", ", ")
	for _, name := range []string{"Cipher", "Hash", "Compression"} {
		for _, a := range versionList(t, gpgVersion, name, false) {
			if !slices.Contains(versionList(t, version, name, false), a) {
				t.Errorf("gpg writes %s %s; pgpstream's --version does not list it as read", name, a)
			}
		}
	}

	plain := []byte("read with every algorithm\n")
	os.WriteFile(filepath.Join(dir, "plain.txt"), plain, 0o600)
	decrypts := func(what string, gpgArgs ...string) {
		t.Helper()
		msg := filepath.Join(dir, "msg.gpg")
		h.Run(nil, "gpg", append(append([]string{"--batch", "--yes", "--pinentry-mode", "loopback", "--passphrase", "pw"}, gpgArgs...),
			"-c", "-o", msg, filepath.Join(dir, "plain.txt"))...)
		code, out, stderr := runInProcess(nil, "--homedir", home, "--batch", "--passphrase", "pw", "-d", msg)
		if code != 0 || string(out) != string(plain) {
			t.Errorf("%s: a message gpg made does not decrypt: exit %d %s", what, code, stderr)
		}
	}
	for _, c := range ciphers {
		// Salted S2K: gpg's iterated one costs it most of a second
		// to calibrate, for each message.
		decrypts("cipher "+c, "--s2k-mode", "1", "--cipher-algo", c, "--compress-algo", "none")
	}
	for _, c := range compressions {
		decrypts("compression "+c, "--s2k-mode", "1", "--compress-algo", c)
	}
	for _, d := range hashes {
		if strings.HasPrefix(d, "SHA3") {
			continue // gpg 2.2 has no SHA-3: below
		}
		decrypts("hash "+d, "--s2k-mode", "3", "--s2k-count", "1024", "--s2k-digest-algo", d, "--compress-algo", "none")
	}

	// What pgpstream writes: each listed one is accepted, and read back.
	mustRun(t, nil, "--homedir", home, "--batch", "--passphrase", "", "--key-version", "6", "--quick-gen-key", "V6 <v6@example.org>", "ed25519")
	mustRun(t, nil, "--homedir", home, "--batch", "--passphrase", "", "--key-version", "6", "--quick-gen-key", "E448 <e448@example.org>", "ed448")
	for _, d := range versionList(t, version, "Hash", true) {
		if d == "SHA1" {
			continue // not with a version 6 key; checked with gpg's key in sign_test
		}
		signed := mustRun(t, plain, "--homedir", home, "--batch", "-u", "v6@example.org", "--digest-algo", d, "-s")
		if code, out, stderr := runInProcess(signed, "--homedir", home, "--batch", "-d"); code != 0 || string(out) != string(plain) {
			t.Errorf("a %s signature by a version 6 Ed25519 key does not verify: exit %d %s", d, code, stderr)
		}
	}
	for _, c := range versionList(t, version, "Cipher", true) {
		for _, a := range versionList(t, version, "AEAD", true) {
			msg := mustRun(t, plain, "--homedir", home, "--batch", "--passphrase", "pw", "--cipher-algo", c, "--force-seipdv2", "--aead-algo", a, "-c")
			if code, out, stderr := runInProcess(msg, "--homedir", home, "--batch", "--passphrase", "pw", "-d"); code != 0 || string(out) != string(plain) {
				t.Errorf("SEIPD v2 with %s and %s does not decrypt: exit %d %s", c, a, code, stderr)
			}
		}
	}
	for _, c := range versionList(t, version, "Compression", true) {
		msg := mustRun(t, plain, "--homedir", home, "--batch", "--passphrase", "pw", "--compress-algo", c, "-c")
		if code, out, _ := runInProcess(msg, "--homedir", home, "--batch", "--passphrase", "pw", "-d"); code != 0 || string(out) != string(plain) {
			t.Errorf("compression %s does not read back", c)
		}
	}
	if !slices.Equal(versionList(t, version, "Cipher", true), configList(t, "ciphername")) {
		t.Errorf("--version and cfg:ciphername disagree on what is written")
	}
	// The Ed448 key signs, its X448 subkey is encrypted to, and both are
	// read back.
	msg := mustRun(t, plain, "--homedir", home, "--batch", "-r", "e448@example.org", "-u", "e448@example.org", "-s", "-e")
	if code, out, stderr := runInProcess(msg, "--homedir", home, "--batch", "-d"); code != 0 || string(out) != string(plain) {
		t.Errorf("X448: exit %d %s", code, stderr)
	}
	for _, a := range []string{"X448", "ED448", "X25519", "ED25519"} {
		if !slices.Contains(versionList(t, version, "Pubkey", false), a) {
			t.Errorf("--version's Pubkey line does not list %s", a)
		}
	}
}
