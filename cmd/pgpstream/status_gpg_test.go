package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestStatusAgainstGPG runs each operation with gpg 2.2 and with
// pgpstream, on the same inputs, in two homes holding the same keys and
// ownertrust (testdata/status, made by its regenerate.sh), and compares
// what the programs that drive gpg read: the --status-fd stream line by
// line, the --with-colons listings field by field, the exit code, and
// the "gpg: " lines of standard error that clients grep.
//
// Only what must differ is normalised, each rule with its reason (see
// normalise); what pgpstream does differently on purpose is listed in
// the case, line by line, with its reason, and the test fails if that
// line stops appearing, so the list stays true.
//
// pgpstream runs in-process as "gpg" (so its messages begin "gpg: ", as
// they do through a gpg symlink) with a home of its own, never gpg's.
func TestStatusAgainstGPG(t *testing.T) {
	lookTool(t, "gpg")
	gpgHome, pgpHome := statusHome(t), statusHome(t)
	for _, args := range [][]string{
		{"--import", statusFile("public.asc"), statusFile("secret.asc"), statusFile("frank-sec.asc")},
		{"--import-ownertrust", statusFile("ownertrust.txt")},
		// gpg checks its trust database on first use and then looks
		// every key up, writing KEY_CONSIDERED for each into whatever
		// command comes next; do it here, outside the comparison.
		{"--check-trustdb"},
	} {
		if r := runGPG(t, gpgHome, args...); r.code != 0 {
			t.Fatalf("gpg %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
		if args[0] == "--check-trustdb" {
			continue // pgpstream keeps no database to check
		}
		if r := runPGP(pgpHome, args...); r.code != 0 {
			t.Fatalf("pgpstream %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}

	for _, c := range statusCases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if c.fresh {
				// Import cases start from empty homes, so that what is
				// new and what is unchanged is the same on both sides.
				g, p := statusHome(t), statusHome(t)
				if c.pre != nil {
					for _, h := range []func(...string) result{
						func(a ...string) result { return runGPG(t, g, a...) },
						func(a ...string) result { return runPGP(p, a...) },
					} {
						if r := h(c.pre...); r.code != 0 {
							t.Fatalf("%s: exit %d\n%s", strings.Join(c.pre, " "), r.code, r.stderr)
						}
					}
				}
				compareRuns(t, c, runGPG(t, g, args...), runPGP(p, args...))
				return
			}
			compareRuns(t, c, runGPG(t, gpgHome, args...), runPGP(pgpHome, args...))
		})
	}
}

// statusCase is one operation run on both sides.
type statusCase struct {
	name  string
	args  []string // after the common options (see commonArgs)
	fresh bool     // run in empty homes (after pre, when set)
	pre   []string // with fresh: a command run first on both sides
	// listing compares standard output as --with-colons records.
	listing bool
	// known are the differences kept on purpose, each with its reason.
	known []knownDiff
}

// knownDiff is a line one side writes and the other does not, or writes
// otherwise. gpg or pgp (either may be empty) must occur in that side's
// normalised stream; they are taken out before the comparison.
type knownDiff struct {
	gpg, pgp string
	why      string
}

// exitDiff marks a case whose exit codes differ on purpose: the "line"
// compared is "exit N".
func exitDiff(gpg, pgp, why string) knownDiff {
	return knownDiff{gpg: "exit " + gpg, pgp: "exit " + pgp, why: why}
}

// The fixture's keys (testdata/status/regenerate.sh): alice RSA 2048,
// bob Ed25519+Cv25519, carol with an expired encryption subkey beside a
// good one, dave expired at the end of 2024, erin revoked, mallory never
// imported, frank protected by the passphrase "key secret". alice, bob
// and carol have ownertrust ultimate.
const (
	aliceFpr = "6D8F6B7CB0C468DE86FD3BC6BD79CDDDA56917F8"
	bobFpr   = "714D0717C3006A78FB6719F67A22C4988B82112C"
	erinFpr  = "F87CB4DF19CD65F5A1D6DB61612B3E04870DD956"
)

var statusCases = []statusCase{
	// Import.
	{name: "import-public", fresh: true, args: []string{"--import", statusFile("public.asc")}},
	{name: "import-secret", fresh: true, args: []string{"--import", statusFile("secret.asc")}},
	{name: "import-secret-over-public", fresh: true, pre: []string{"--import", statusFile("public.asc")},
		args: []string{"--import", statusFile("secret.asc")}},
	// python-gnupg's scan_keys: listed, counted, nothing imported.
	{name: "import-dry-run-show", fresh: true, listing: true, args: []string{"--with-colons", "--dry-run", "--import-options", "import-show", "--import", statusFile("public.asc")}},
	{name: "import-dry-run", fresh: true, args: []string{"--dry-run", "--import", statusFile("public.asc")}},
	// DELETE_PROBLEM tells python-gnupg and GPGME why nothing was deleted.
	{name: "delete-with-secret", fresh: true, pre: []string{"--import", statusFile("secret.asc")}, args: []string{"--yes", "--delete-keys", aliceFpr}},
	{name: "delete-missing", fresh: true, args: []string{"--yes", "--delete-keys", "0000000000000000000000000000000000000000"}},
	{name: "import-new-subkey", fresh: true, pre: []string{"--import", statusFile("carol-old.asc")},
		args: []string{"--import", statusFile("public.asc")}},
	{name: "import-again", fresh: true, pre: []string{"--import", statusFile("public.asc"), statusFile("secret.asc")},
		args: []string{"--import", statusFile("public.asc"), statusFile("secret.asc")}},

	// Encryption and its failures.
	{name: "encrypt-rsa", args: []string{"-e", "-r", "alice", "-o", "/dev/null", statusFile("data.txt")}},
	{name: "encrypt-ed25519", args: []string{"-e", "-r", "bob", "-o", "/dev/null", statusFile("data.txt")}},
	{name: "encrypt-expired-subkey", args: []string{"-e", "-r", "carol", "-o", "/dev/null", statusFile("data.txt")}},
	{name: "encrypt-unknown", args: []string{"-e", "-r", "nobody", "-o", "/dev/null", statusFile("data.txt")}},
	{name: "encrypt-expired", args: []string{"-e", "-r", "dave", "-o", "/dev/null", statusFile("data.txt")}},
	{name: "encrypt-revoked", args: []string{"-e", "-r", "erin", "-o", "/dev/null", statusFile("data.txt")}},
	// Named by fingerprint or key ID, gpg finds the unusable key and
	// says so (reason 0, GPG_ERR_UNUSABLE_PUBKEY); by name it does not.
	{name: "encrypt-revoked-fpr", args: []string{"-e", "-r", erinFpr, "-o", "/dev/null", statusFile("data.txt")}},
	{name: "encrypt-revoked-keyid", args: []string{"-e", "-r", "0x" + erinFpr[24:], "-o", "/dev/null", statusFile("data.txt")}},
	// frank's key is of unknown validity (no owner trust): refused.
	{name: "encrypt-untrusted", args: []string{"-e", "-r", "frank", "-o", "/dev/null", statusFile("data.txt")}},
	{name: "encrypt-untrusted-always", args: []string{"--trust-model", "always", "-e", "-r", "frank", "-o", "/dev/null", statusFile("data.txt")}},
	{name: "encrypt-two", args: []string{"-e", "-r", "bob", "-r", "alice", "-o", "/dev/null", statusFile("data.txt")},
		known: []knownDiff{{gpg: "[GNUPG:] KEY_CONSIDERED " + bobFpr + " 0", pgp: "[GNUPG:] KEY_CONSIDERED " + bobFpr + " 0",
			why: "the same line in another place: gpg takes the -r options last first, pgpstream in command-line order"}}},
	{name: "encrypt-one-unknown", args: []string{"-e", "-r", "alice", "-r", "nobody", "-o", "/dev/null", statusFile("data.txt")},
		known: []knownDiff{{pgp: "[GNUPG:] KEY_CONSIDERED " + aliceFpr + " 0",
			why: "gpg takes the -r options last first (its list is built by prepending) and stops at nobody; pgpstream goes in command-line order"}}},
	{name: "symmetric-encrypt", args: []string{"-c", "--passphrase", "message secret", "-o", "/dev/null", statusFile("data.txt")},
		known: []knownDiff{{gpg: "[GNUPG:] NEED_PASSPHRASE_SYM 9 3 2", pgp: "[GNUPG:] NEED_PASSPHRASE_SYM 9 3 8",
			why: "the S2K's hash: pgpstream's iterated S2K uses SHA-256, gpg 2.2's SHA-1"}}},

	// Decryption.
	{name: "symmetric-decrypt", args: []string{"--passphrase", "message secret", "-d", statusFile("symmetric.pgp")}},
	{name: "symmetric-wrong-passphrase", args: []string{"--passphrase", "wrong", "-d", statusFile("symmetric.pgp")}},
	{name: "decrypt-rsa", args: []string{"-d", statusFile("alice.pgp")}},
	{name: "decrypt-other-recipient", args: []string{"-d", statusFile("bob-mallory.pgp")}},
	{name: "decrypt-no-seckey", fresh: true, pre: []string{"--import", statusFile("public.asc")},
		args: []string{"-d", statusFile("bob-mallory.pgp")}},
	// The wrong passphrase first: gpg-agent keeps the right one.
	{name: "decrypt-protected-wrong-passphrase", args: []string{"--passphrase", "wrong", "-d", statusFile("frank.pgp")}},
	{name: "decrypt-protected", args: []string{"--passphrase", "key secret", "-d", statusFile("frank.pgp")}},

	// Signing. --digest-algo: gpg and pgpstream choose the default hash
	// by different rules (gpg takes SHA-512 for RSA keys and the
	// recipients' first preference for -se); the lines are compared for
	// one hash.
	{name: "sign-detached-rsa", args: []string{"--digest-algo", "SHA256", "-u", "alice", "--detach-sign", "-o", "/dev/null", statusFile("data.txt")}},
	{name: "sign-ed25519", args: []string{"--digest-algo", "SHA256", "-u", "bob", "-s", "-o", "/dev/null", statusFile("data.txt")}},
	{name: "sign-protected", args: []string{"--digest-algo", "SHA256", "--passphrase", "key secret", "-u", "frank", "--detach-sign", "-o", "/dev/null", statusFile("data.txt")}},
	{name: "clear-sign", args: []string{"--digest-algo", "SHA256", "-u", "bob", "--clear-sign", "-o", "/dev/null", statusFile("data.txt")}},
	{name: "sign-encrypt", args: []string{"--digest-algo", "SHA256", "-u", "bob", "-s", "-e", "-r", "alice", "-o", "/dev/null", statusFile("data.txt")},
		known: []knownDiff{
			{gpg: "[GNUPG:] KEY_CONSIDERED " + bobFpr + " 2", pgp: "[GNUPG:] KEY_CONSIDERED " + bobFpr + " 2",
				why: "the same line in another place: pgpstream looks the recipients up before the signer, gpg the signer first"},
			{gpg: "[GNUPG:] BEGIN_ENCRYPTION 2 9", pgp: "[GNUPG:] BEGIN_ENCRYPTION 2 9",
				why: "the same line in another place: gpg writes it when its first buffered block leaves, after SIG_CREATED on a small input; pgpstream before the first byte"},
		}},

	// Verification.
	{name: "verify-rsa", args: []string{"--verify", statusFile("alice.sig"), statusFile("data.txt")}},
	{name: "verify-ed25519", args: []string{"--verify", statusFile("bob.sig"), statusFile("data.txt")}},
	// -q leaves the verdict: scripts run gpg -q and grep "Good signature".
	{name: "verify-quiet", args: []string{"-q", "--verify", statusFile("bob.sig"), statusFile("data.txt")}},
	{name: "verify-inline", args: []string{"--verify", statusFile("bob-signed.pgp")}},
	{name: "verify-bad", args: []string{"--verify", statusFile("alice.sig"), statusFile("ownertrust.txt")}},
	{name: "verify-expired-sig", args: []string{"--verify", statusFile("expired.sig"), statusFile("data.txt")}},
	{name: "verify-expired-key", args: []string{"--verify", statusFile("dave.sig"), statusFile("data.txt")}},
	{name: "verify-revoked-key", args: []string{"--verify", statusFile("erin.sig"), statusFile("data.txt")},
		known: []knownDiff{
			exitDiff("0", "1", "pgpstream does not call a revoked key's signature good: it exits 1 where gpg exits 0 after REVKEYSIG"),
			{pgp: "[GNUPG:] FAILURE gpg-exit 33554433", why: "the same exit 1, as gpg reports it"},
		}},
	{name: "verify-trust-always", args: []string{"--trust-model", "always", "--verify", statusFile("erin.sig"), statusFile("data.txt")},
		known: []knownDiff{
			exitDiff("0", "1", "as verify-revoked-key"),
			{pgp: "[GNUPG:] FAILURE gpg-exit 33554433", why: "as verify-revoked-key"},
		}},
	{name: "verify-trust-always-good", args: []string{"--trust-model", "always", "--verify", statusFile("bob.sig"), statusFile("data.txt")}},
	{name: "verify-bad-trust-always", args: []string{"--trust-model", "always", "--verify", statusFile("alice.sig"), statusFile("ownertrust.txt")}},
	{name: "verify-expired-key-trust-always", args: []string{"--trust-model", "always", "--verify", statusFile("dave.sig"), statusFile("data.txt")}},
	{name: "verify-no-pubkey", args: []string{"--verify", statusFile("mallory.sig"), statusFile("data.txt")}},
	{name: "decrypt-signed", args: []string{"-d", statusFile("bob-signed.pgp")}},
	{name: "verify-clear-signed", args: []string{"--verify", statusFile("bob-clear.asc")}},
	{name: "decrypt-clear-signed", args: []string{"-d", statusFile("bob-clear.asc")}},
	{name: "decrypt-signed-encrypted", args: []string{"-d", statusFile("bob-to-alice.pgp")}},

	// Listings.
	{name: "list-keys", listing: true, args: []string{"--with-colons", "--list-keys"}},
	{name: "list-secret-keys", listing: true, args: []string{"--with-colons", "--list-secret-keys"}},
	{name: "fingerprint-keygrip", listing: true, args: []string{"--with-colons", "--with-keygrip", "--fingerprint", "bob", "carol"}},
	{name: "fixed-list-mode", listing: true, args: []string{"--with-colons", "--fixed-list-mode", "--with-fingerprint", "--list-keys", "carol", "dave", "erin"}},
	{name: "fingerprint-twice", listing: true, args: []string{"--with-colons", "--fingerprint", "--fingerprint", "alice"}},
	{name: "keygrip-secret", listing: true, args: []string{"--with-colons", "--with-keygrip", "-K", aliceFpr}},
	{name: "list-revoked", listing: true, args: []string{"--with-colons", "-k", erinFpr}},
	{name: "list-sigs", listing: true, args: []string{"--with-colons", "--list-sigs", "alice", "carol", erinFpr}},
	{name: "check-sigs", listing: true, args: []string{"--with-colons", "--check-sigs", "bob", "dave"}},
	// The human listings, which Emacs and scripts read too.
	{name: "human-list-keys", listing: true, args: []string{"--list-keys"}},
	{name: "human-list-secret-keys", listing: true, args: []string{"--list-secret-keys"}},
	{name: "human-fingerprint-keygrip", listing: true, args: []string{"--fingerprint", "--with-keygrip", "--list-keys", "bob", "carol"}},
	{name: "human-list-sigs", listing: true, args: []string{"--list-sigs", "alice", erinFpr}},
	{name: "human-check-sigs", listing: true, args: []string{"--check-sigs", "bob", "dave"}},
	{name: "human-subkey-fingerprint", listing: true, args: []string{"--with-subkey-fingerprint", "--list-keys", "dave", "erin"}},
}

// commonArgs are passed to both sides, as python-gnupg and GPGME pass
// them: status on standard error, no terminal, the passphrase taken
// from the command line (gpg needs the loopback pinentry for that).
var commonArgs = []string{"--batch", "--no-tty", "--status-fd", "2", "--pinentry-mode", "loopback"}

// statusHome is a new private home (0700: gpg and pgpstream warn of
// anything wider); gpg's agent in it is stopped at the end.
func statusHome(t *testing.T) string {
	h := t.TempDir()
	if err := os.Chmod(h, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopAgent(h) })
	return h
}

func statusFile(name string) string { return filepath.Join("testdata", "status", name) }

type result struct {
	code           int
	stdout, stderr string
}

func runGPG(t *testing.T, home string, args ...string) result {
	t.Helper()
	cmd := exec.Command("gpg", append(append([]string{}, commonArgs...), args...)...)
	cmd.Env = append(os.Environ(), "GNUPGHOME="+home, "LC_ALL=C", "TZ=UTC")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("gpg: %v", err)
		}
		code = ee.ExitCode()
	}
	return result{code, o.String(), e.String()}
}

// runPGP runs pgpstream in-process, named gpg as a symlink would name it.
func runPGP(home string, args ...string) result {
	var o, e bytes.Buffer
	full := append(append([]string{"gpg", "--homedir", home}, commonArgs...), args...)
	code := run(full, bytes.NewReader(nil), &o, &e)
	return result{code, o.String(), e.String()}
}

// grepped are the "gpg: " lines of standard error that clients read:
// Emacs and scripts the signature verdicts, pass "public key is", and
// import and encryption results.
var grepped = regexp.MustCompile(`^gpg: (Good signature from|BAD signature from|Expired signature from|key [0-9A-F]{16}: |public key is |Total number processed)`)

func compareRuns(t *testing.T, c statusCase, g, p result) {
	t.Helper()
	gl, pl := normalise(g, c.listing), normalise(p, c.listing)
	for _, k := range c.known {
		if k.gpg != "" {
			var ok bool
			if gl, ok = remove(gl, k.gpg); !ok {
				t.Errorf("known difference no longer there: gpg does not write %q (%s)", k.gpg, k.why)
			}
		}
		if k.pgp != "" {
			var ok bool
			if pl, ok = remove(pl, k.pgp); !ok {
				t.Errorf("known difference no longer there: pgpstream does not write %q (%s)", k.pgp, k.why)
			}
		}
	}
	if d := lineDiff(gl, pl); d != "" {
		t.Errorf("%s\ngpg's stderr:\n%s\npgpstream's stderr:\n%s", d, g.stderr, p.stderr)
	}
}

// normalise turns one run into the lines compared: "exit N", the status
// lines (or, for a listing, the colon records), then the grepped stderr
// lines. Each rule says why the two sides may differ there:
//
//   - SIG_CREATED's timestamp is the moment of signing.
//   - KEY_CONSIDERED, KEYEXPIRED and KEYREVOKED are written by gpg once
//     per key lookup, and it looks the same key up two to four times in
//     one operation; clients act on the first (GPGME takes the key named
//     before INV_RECP), so a line repeated verbatim is dropped.
//   - A listing's status stream holds only gpg's key-lookup lines
//     (KEY_CONSIDERED, KEYEXPIRED); python-gnupg, the one client that
//     lists with --status-fd, ignores them, so only the records count.
//   - A full human listing begins with the ring file's name, which is
//     gpg's pubring.kbx on one side and pgpstream's own file on the other.
//   - The tru record's field 4 is when the trust database was created,
//     which differs between two homes.
//   - The key IDs and fingerprints in stderr lines are compared as they
//     are; only the program name, "gpg:", must be the same, and it is.
func normalise(r result, listing bool) []string {
	out := []string{"exit " + strconv.Itoa(r.code)}
	seen := map[string]bool{}
	for _, l := range strings.Split(r.stderr, "\n") {
		rest, ok := strings.CutPrefix(l, "[GNUPG:] ")
		if !ok || listing {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "SIG_CREATED":
			if len(f) > 5 {
				f[5] = "TIME"
			}
			l = "[GNUPG:] " + strings.Join(f, " ")
		case "KEY_CONSIDERED", "KEYEXPIRED", "KEYREVOKED":
			if seen[l] {
				continue
			}
			seen[l] = true
		}
		out = append(out, l)
	}
	if listing {
		lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
		if len(lines) > 1 && strings.Trim(lines[1], "-") == "" {
			// A full human listing names the ring file above it:
			// gpg's pubring.kbx, pgpstream's own file.
			lines[0], lines[1] = "RING", "----"
		}
		for _, l := range lines {
			if strings.HasPrefix(l, "tru:") {
				if f := strings.Split(l, ":"); len(f) > 3 {
					f[3] = "CREATED"
					l = strings.Join(f, ":")
				}
			}
			out = append(out, l)
		}
	}
	for _, l := range strings.Split(r.stderr, "\n") {
		if grepped.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

func remove(lines []string, line string) ([]string, bool) {
	for i, l := range lines {
		if l == line {
			return append(lines[:i:i], lines[i+1:]...), true
		}
	}
	return lines, false
}

// lineDiff names the first line where the two lists part (for colon
// records, the fields that differ) and shows both lists whole.
func lineDiff(gpg, pgp []string) string {
	i := 0
	for i < len(gpg) && i < len(pgp) && gpg[i] == pgp[i] {
		i++
	}
	if i == len(gpg) && i == len(pgp) {
		return ""
	}
	at := func(l []string) string {
		if i < len(l) {
			return l[i]
		}
		return "(nothing)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d:\n  gpg:       %s\n  pgpstream: %s\n", i+1, at(gpg), at(pgp))
	if g, p := at(gpg), at(pgp); !strings.HasPrefix(g, "[GNUPG:]") && strings.Count(g, ":") > 2 && strings.Count(p, ":") > 2 {
		gf, pf := strings.Split(g, ":"), strings.Split(p, ":")
		if len(gf) != len(pf) {
			fmt.Fprintf(&b, "  field counts: gpg %d, pgpstream %d\n", len(gf)-1, len(pf)-1)
		}
		for j := 0; j < min(len(gf), len(pf)); j++ {
			if gf[j] != pf[j] {
				fmt.Fprintf(&b, "  field %d: gpg %q, pgpstream %q\n", j+1, gf[j], pf[j])
			}
		}
	}
	fmt.Fprintf(&b, "gpg:\n  %s\npgpstream:\n  %s", strings.Join(gpg, "\n  "), strings.Join(pgp, "\n  "))
	return b.String()
}
