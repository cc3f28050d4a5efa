package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

// TestWebOfTrustAgainstGPG builds a web of trust with gpg (certifications
// of every kind the pgp model weighs), puts the same keys, certifications
// and owner trusts into a fresh GnuPG home and a pgpstream home, and
// compares what each finds valid: the validity and owner trust of every
// key and user ID in --with-colons, --check-trustdb's report, and the
// TRUST_ line after a good signature by each of seven keys.
func TestWebOfTrustAgainstGPG(t *testing.T) {
	gnupgtest.Require(t)
	src := gnupgtest.New(t)
	names := []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "ken", "leo", "mallory", "nick", "olga"}
	fpr := map[string]string{}
	for _, n := range names {
		fpr[n] = src.GenKey(fmt.Sprintf("%s <%s@example.org>", strings.ToUpper(n[:1])+n[1:], n), "ed25519", "", "")
	}
	pass := []string{"--batch", "--pinentry-mode", "loopback", "--passphrase", ""}
	sign := func(by, what string, extra ...string) {
		t.Helper()
		src.Run(nil, "gpg", append(append(append([]string{}, pass...), extra...), "-u", fpr[by], "--quick-sign-key", fpr[what])...)
	}
	lsign := func(by, what string) {
		t.Helper()
		src.Run(nil, "gpg", append(append([]string{}, pass...), "-u", fpr[by], "--quick-lsign-key", fpr[what])...)
	}
	// A second user ID on mallory, certified by nobody.
	src.Run(nil, "gpg", append(append([]string{}, pass...), "--quick-add-uid", fpr["mallory"], "Mallory Two <m2@example.org>")...)
	sign("alice", "bob")   // full owner trust: a complete introducer
	sign("alice", "carol") // marginal owner trust
	sign("alice", "dave")  // marginal owner trust
	sign("bob", "erin")    // one complete: full
	sign("carol", "frank") // two marginals: marginal
	sign("dave", "frank")
	sign("carol", "grace") // three marginals: full
	sign("dave", "grace")
	sign("erin", "grace")
	sign("ivan", "judy")                              // ivan is not valid: judy stays unknown
	sign("alice", "ken", "--default-cert-level", "1") // a persona certification: below min-cert-level
	lsign("alice", "leo")                             // local: counts in the ring that has it
	src.Run(nil, "gpg", append(append([]string{}, pass...), "-u", fpr["alice"], "--quick-sign-key", fpr["mallory"], "Mallory <mallory@example.org>")...)
	sign("grace", "nick") // grace is full but of unknown owner trust: undefined
	// A trust signature: alice says heidi introduces fully, one level.
	in := "tsign\n2\n1\n\ny\nsave\n"
	src.Run([]byte(in), "gpg", append(append([]string{}, pass...), "--no-tty", "--command-fd", "0", "-u", fpr["alice"], "--edit-key", fpr["heidi"])...)
	sign("alice", "heidi")
	sign("heidi", "olga")
	// A signature by each of some keys, for the TRUST_ line that follows
	// a good signature.
	signers := []string{"frank", "grace", "nick", "judy", "olga", "leo", "mallory"}
	sigs := map[string][]byte{}
	for _, n := range signers {
		sigs[n] = src.Run([]byte("signed by "+n+"\n"), "gpg", append(append([]string{}, pass...), "-u", fpr[n], "-s")...)
	}
	pub := src.Run(nil, "gpg", "--export", "--export-options", "export-local-sigs")
	trust := strings.Join([]string{fpr["alice"] + ":6:", fpr["bob"] + ":5:", fpr["carol"] + ":4:", fpr["dave"] + ":4:", fpr["erin"] + ":4:", fpr["ivan"] + ":5:", fpr["judy"] + ":3:"}, "\n") + "\n"

	for _, tc := range []struct {
		name string
		opts []string
	}{
		{"defaults", nil},
		{"depth 1", []string{"--max-cert-depth", "1"}},
		{"two marginals", []string{"--marginals-needed", "2"}},
		{"level 1 counts", []string{"--min-cert-level", "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := gnupgtest.New(t)
			g.Run(pub, "gpg", "--batch", "--import-options", "import-local-sigs", "--import")
			g.Run([]byte(trust), "gpg", "--batch", "--import-ownertrust")
			ours := t.TempDir()
			mustRun(t, pub, "--homedir", ours, "--batch", "--import-options", "import-local-sigs", "--import")
			mustRun(t, []byte(trust), "--homedir", ours, "--import-ownertrust")

			// gpg reports on standard error; the trust database is
			// due for a check after the import, so --batch checks it.
			gCheck, err := g.Try(nil, "sh", "-c", "gpg --batch "+strings.Join(tc.opts, " ")+" --check-trustdb 2>&1")
			if err != nil {
				t.Fatal(err)
			}
			code, _, oCheck := runInProcess(nil, append(append([]string{"--homedir", ours}, tc.opts...), "--check-trustdb")...)
			if code != 0 {
				t.Fatalf("--check-trustdb: exit %d\n%s", code, oCheck)
			}
			if a, b := trustReport(string(gCheck), "gpg: "), trustReport(oCheck, "pgpstream: "); a != b || !strings.Contains(a, "depth: 0") {
				t.Errorf("--check-trustdb differs\ngpg:\n%s\npgpstream:\n%s", a, b)
			}
			gl := g.Run(nil, "gpg", append(append([]string{"--batch"}, tc.opts...), "--list-keys", "--with-colons")...)
			ol := mustRun(t, nil, append(append([]string{"--homedir", ours}, tc.opts...), "--list-keys", "--with-colons")...)
			if a, b := validities(gl), validities(ol); a != b {
				t.Errorf("validities differ\ngpg:\n%s\npgpstream:\n%s", a, b)
			}
			for _, n := range signers {
				gs, err := g.Try(sigs[n], "gpg", append(append([]string{"--batch", "--status-fd", "1"}, tc.opts...), "--verify")...)
				if err != nil {
					t.Fatalf("gpg --verify %s: %v", n, err)
				}
				_, ost, _ := runInProcess(sigs[n], append(append([]string{"--homedir", ours, "--status-fd", "1"}, tc.opts...), "--verify")...)
				if a, b := trustLine(gs), trustLine(ost); a != b || a == "" {
					t.Errorf("%s's signature: gpg says %q, pgpstream %q", n, a, b)
				}
			}
		})
	}
}

// validities is, per key and user ID of a colon listing, the validity
// and (for keys) owner trust fields, keyed by what they are of.
func validities(b []byte) string {
	var out []string
	var key string
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Split(l, ":")
		switch f[0] {
		case "pub":
			key = f[4]
			out = append(out, fmt.Sprintf("pub %s validity %s ownertrust %s", key, f[1], f[8]))
		case "uid":
			out = append(out, fmt.Sprintf("uid %s %q validity %s", key, f[9], f[1]))
		}
	}
	return strings.Join(out, "\n")
}

// trustReport is --check-trustdb's parameter and depth lines, without
// the program's name.
func trustReport(out, prefix string) string {
	var r []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimPrefix(l, prefix)
		if strings.HasPrefix(l, "marginals needed") || strings.HasPrefix(l, "depth:") {
			r = append(r, l)
		}
	}
	return strings.Join(r, "\n")
}

// trustLine is the TRUST_ status line of a verification.
func trustLine(b []byte) string {
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "[GNUPG:] TRUST_") {
			return l
		}
	}
	return ""
}
