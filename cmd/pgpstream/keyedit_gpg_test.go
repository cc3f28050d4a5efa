package main

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

// editFixture is the same keys in a GnuPG home and in a pgpstream home:
// Alice's (secret, two user IDs, an encryption subkey, owner trust
// ultimate), Bob's and Carol's (public).
type editFixture struct {
	alice, bob, carol string // fingerprints
	sec, pub, trust   []byte
}

func newEditFixture(t *testing.T) *editFixture {
	src := gnupgtest.New(t)
	f := &editFixture{}
	f.alice = src.GenKey("Alice <alice@example.org>", "ed25519", "cv25519", "")
	src.Run(nil, "gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--quick-add-uid", f.alice, "Alice Work <alice@work.example>")
	f.bob = src.GenKey("Bob <bob@example.org>", "ed25519", "", "")
	f.carol = src.GenKey("Carol <carol@example.org>", "ed25519", "", "")
	f.sec = src.Run(nil, "gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--export-secret-keys", f.alice)
	f.pub = src.Run(nil, "gpg", "--export", f.bob, f.carol)
	f.trust = []byte(f.alice + ":6:\n")
	return f
}

// homes makes a GnuPG home and a pgpstream home holding the fixture.
func (f *editFixture) homes(t *testing.T) (*gnupgtest.Home, string) {
	g := gnupgtest.New(t)
	g.Run(f.sec, "gpg", "--batch", "--import")
	g.Run(f.pub, "gpg", "--batch", "--import")
	g.Run(f.trust, "gpg", "--batch", "--import-ownertrust")
	// gpg would check its trust database on the first command, and
	// write lines of its own for that.
	g.Run(nil, "gpg", "--batch", "--check-trustdb")
	ours := t.TempDir()
	mustRun(t, f.sec, "--homedir", ours, "--batch", "--import")
	mustRun(t, f.pub, "--homedir", ours, "--batch", "--import")
	mustRun(t, f.trust, "--homedir", ours, "--import-ownertrust")
	return g, ours
}

// TestEditKeyAgainstGPG drives --edit-key through the command fd, as
// GPGME and scripts do, with the same answers to gpg and to pgpstream on
// the same keys: the questions (status lines) must come in the same
// order with the same keywords, and the key must come out the same, as
// --list-sigs --with-colons shows it (timestamps aside, and the order of
// the user IDs, which gpg lists primary first).
func TestEditKeyAgainstGPG(t *testing.T) {
	gnupgtest.Require(t)
	f := newEditFixture(t)
	cases := []struct {
		name    string
		key     string
		opts    []string
		answers []string
		listing bool // compare the resulting key
	}{
		{"sign", f.bob, nil, []string{"sign", "y", "save"}, true},
		{"lsign", f.bob, nil, []string{"lsign", "y", "save"}, true},
		{"tsign", f.carol, nil, []string{"tsign", "2", "1", "", "y", "save"}, true},
		{"sign declined", f.bob, nil, []string{"sign", "n", "save"}, true},
		{"sign class", f.bob, []string{"--ask-cert-level"}, []string{"sign", "2", "y", "save"}, true},
		{"sign all asked", f.alice, nil, []string{"sign", "n", "quit"}, true},
		{"already signed", f.alice, nil, []string{"uid 1", "sign", "save"}, true},
		{"trust", f.bob, nil, []string{"trust", "4", "quit"}, true},
		{"trust ultimate", f.bob, nil, []string{"trust", "5", "y", "quit"}, true},
		{"expire", f.alice, nil, []string{"expire", "1y", "save"}, true},
		{"expire subkey", f.alice, nil, []string{"key 1", "expire", "2y", "save"}, true},
		{"adduid", f.alice, nil, []string{"adduid", "New Name", "new@example.org", "a comment", "save"}, true},
		{"deluid", f.alice, nil, []string{"uid 2", "deluid", "y", "save"}, true},
		{"deluid unselected", f.alice, nil, []string{"deluid", "save"}, true},
		{"revuid", f.alice, nil, []string{"uid 2", "revuid", "y", "4", "moved", "", "y", "save"}, true},
		{"revkey", f.alice, nil, []string{"key 1", "revkey", "y", "1", "gone", "", "y", "save"}, true},
		{"primary", f.alice, nil, []string{"uid 2", "primary", "save"}, true},
		{"addkey", f.alice, []string{"--expert"}, []string{"addkey", "12", "1", "0", "save"}, false},
		{"addkey rsa", f.alice, nil, []string{"addkey", "6", "2048", "0", "save"}, false},
		{"quit saves", f.bob, nil, []string{"sign", "y", "quit", "y"}, true},
		{"quit discards", f.bob, nil, []string{"sign", "y", "quit", "n"}, true},
		{"bad commands", f.bob, nil, []string{"frob", "key 9", "uid 9", "quit"}, true},
		// GPGME's t-edit: fpr, expire (never), select user ID 1, primary,
		// quit and save.
		{"gpgme t-edit", f.alice, nil, []string{"fpr", "expire", "0", "1", "primary", "quit", "Y"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, ours := f.homes(t)
			in := []byte(strings.Join(tc.answers, "\n") + "\n")
			args := append(append([]string{"--no-tty", "--status-fd", "1", "--command-fd", "0"}, tc.opts...), "--edit-key", tc.key)
			gpgOut, err := g.Try(in, "gpg", append([]string{"--pinentry-mode", "loopback", "--passphrase", ""}, args...)...)
			if err != nil {
				t.Fatalf("gpg: %v", err)
			}
			code, ourOut, stderr := runInProcess(in, append([]string{"--homedir", ours}, args...)...)
			if code != 0 {
				t.Fatalf("pgpstream: exit %d\n%s", code, stderr)
			}
			if a, b := normStatus(gpgOut), normStatus(ourOut); a != b {
				t.Errorf("status lines differ\ngpg:\n%s\npgpstream:\n%s", a, b)
			}
			if tc.listing {
				gl := g.Run(nil, "gpg", "--list-sigs", "--with-colons", tc.key)
				ol := mustRun(t, nil, "--homedir", ours, "--list-sigs", "--with-colons", tc.key)
				if a, b := normColons(gl), normColons(ol); a != b {
					t.Errorf("the key differs\ngpg:\n%s\npgpstream:\n%s", a, b)
				}
			} else {
				gl := g.Run(nil, "gpg", "--list-keys", "--with-colons", tc.key)
				ol := mustRun(t, nil, "--homedir", ours, "--list-keys", "--with-colons", tc.key)
				if a, b := countRecords(gl, "sub"), countRecords(ol, "sub"); a != b {
					t.Errorf("gpg has %d subkeys, pgpstream %d", a, b)
				}
			}
			gt := g.Run(nil, "gpg", "--export-ownertrust")
			ot := mustRun(t, nil, "--homedir", ours, "--export-ownertrust")
			if a, b := trustLines(gt), trustLines(ot); a != b {
				t.Errorf("owner trust differs\ngpg:\n%s\npgpstream:\n%s", a, b)
			}
		})
	}
}

// TestEditKeyInputEnds: the command fd ending before save saves nothing,
// and says so.
func TestEditKeyInputEnds(t *testing.T) {
	gnupgtest.Require(t)
	f := newEditFixture(t)
	_, ours := f.homes(t)
	before := mustRun(t, nil, "--homedir", ours, "--export", f.bob)
	code, _, stderr := runInProcess([]byte("sign\ny\n"), "--homedir", ours, "--no-tty", "--command-fd", "0", "--edit-key", f.bob)
	if code != 2 || !strings.Contains(stderr, "not saved") {
		t.Errorf("exit %d, %q; want 2 and that nothing was saved", code, stderr)
	}
	if after := mustRun(t, nil, "--homedir", ours, "--export", f.bob); !bytes.Equal(before, after) {
		t.Error("the key changed")
	}
}

var keyCreated = regexp.MustCompile(`KEY_CREATED S [0-9A-F]+`)

// normStatus is the status lines with the new subkey's fingerprint blanked.
func normStatus(b []byte) string {
	return keyCreated.ReplaceAllString(string(b), "KEY_CREATED S FPR")
}

func countRecords(b []byte, typ string) int {
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, typ+":") {
			n++
		}
	}
	return n
}

func trustLines(b []byte) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// normColons is a colon listing with the times blanked (new signatures'
// creation, and expiry dates, which differ by the seconds between the two
// runs), the user IDs in sorted order (gpg lists the primary one first),
// and each component's signatures sorted (gpg puts a revocation before
// the signatures it revokes, pgpstream after).
func normColons(b []byte) string {
	var head []string
	var groups [][]string
	var subs []string
	cur := &head
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(l, ":")
		switch f[0] {
		case "tru":
			continue
		case "uid":
			groups = append(groups, nil)
			cur = &groups[len(groups)-1]
		case "sub":
			cur = &subs
		}
		switch f[0] {
		case "sig", "rev", "uid":
			if len(f) > 6 {
				f[5], f[6] = "", ""
			}
		case "pub", "sub":
			if len(f) > 6 {
				f[6] = ""
			}
		}
		*cur = append(*cur, strings.Join(f, ":"))
	}
	for _, g := range groups {
		sort.Strings(g[1:])
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i][0] < groups[j][0] })
	sortSubSigs(subs)
	var out bytes.Buffer
	for _, part := range append(append([][]string{head}, groups...), subs) {
		for _, l := range part {
			out.WriteString(l + "\n")
		}
	}
	return out.String()
}

// sortSubSigs sorts each run of sig and rev records.
func sortSubSigs(lines []string) {
	isSig := func(l string) bool { return strings.HasPrefix(l, "sig:") || strings.HasPrefix(l, "rev:") }
	for i := 0; i < len(lines); i++ {
		j := i
		for j < len(lines) && isSig(lines[j]) {
			j++
		}
		sort.Strings(lines[i:j])
		if j > i {
			i = j - 1
		}
	}
}
