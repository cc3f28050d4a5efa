package main

import (
	"bytes"
	"crypto"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/ProtonMail/go-crypto/openpgp/s2k"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"

	"github.com/pgpstream/pgpstream/internal/escape"
	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

// hostileKey is a secret key (Ed25519, with a Cv25519 subkey) whose one
// user ID is uid, byte for byte, self-signed, as an attacker would make
// it: go-crypto's key generation refuses such user IDs.
// With a passphrase the secret parts are protected by it.
func hostileKey(t testing.TB, uid string, passphrase ...string) (key []byte, signer *gcpacket.PrivateKey) {
	t.Helper()
	// Made an hour ago, so that the signatures below are newer.
	now := time.Now().Add(-time.Hour)
	cfg := &gcpacket.Config{Algorithm: gcpacket.PubKeyAlgoEdDSA, Curve: gcpacket.Curve25519, DefaultHash: crypto.SHA256,
		Time: func() time.Time { return now }}
	e, err := v2.NewEntity("x", "", "x@example.org", cfg)
	if err != nil {
		t.Fatal(err)
	}
	priv, sub := e.PrivateKey, e.Subkeys[0].PrivateKey
	newSig := func(st gcpacket.SignatureType) *gcpacket.Signature {
		return &gcpacket.Signature{
			Version: 4, SigType: st, PubKeyAlgo: priv.PubKeyAlgo, Hash: crypto.SHA256,
			CreationTime: now, IssuerKeyId: &priv.KeyId, IssuerKeyVersion: 4, IssuerFingerprint: priv.Fingerprint,
			FlagsValid: true,
		}
	}
	var buf bytes.Buffer
	must := func(err error) {
		if err != nil {
			t.Helper()
			t.Fatal(err)
		}
	}
	signer = priv
	if len(passphrase) > 0 {
		s2k := &gcpacket.Config{S2KConfig: &s2k.Config{S2KMode: s2k.IteratedSaltedS2K, Hash: crypto.SHA256, S2KCount: 1024}}
		// Copies, so that the caller still has the key to sign with.
		p, sp := *priv, *sub
		must(p.EncryptWithConfig([]byte(passphrase[0]), s2k))
		must(sp.EncryptWithConfig([]byte(passphrase[0]), s2k))
		priv, sub = &p, &sp
	}
	must(priv.Serialize(&buf))
	must((&gcpacket.UserId{Id: uid}).Serialize(&buf))
	cert := newSig(gcpacket.SigTypePositiveCert)
	cert.FlagCertify, cert.FlagSign = true, true
	must(cert.SignUserId(uid, &signer.PublicKey, signer, cfg))
	must(cert.Serialize(&buf))
	must(sub.Serialize(&buf))
	bind := newSig(gcpacket.SigTypeSubkeyBinding)
	bind.FlagEncryptCommunications, bind.FlagEncryptStorage = true, true
	must(bind.SignKey(&sub.PublicKey, signer, cfg))
	must(bind.Serialize(&buf))
	return buf.Bytes(), signer
}

// hostileDetached is a detached signature of data by signer whose
// signer's-user-ID subpacket is signerUID.
func hostileDetached(t testing.TB, signer *gcpacket.PrivateKey, data []byte, signerUID string) []byte {
	t.Helper()
	sig := &gcpacket.Signature{
		Version: 4, SigType: gcpacket.SigTypeBinary, PubKeyAlgo: signer.PubKeyAlgo, Hash: crypto.SHA256,
		CreationTime: time.Now().Add(-time.Second), IssuerKeyId: &signer.KeyId, IssuerKeyVersion: 4,
		IssuerFingerprint: signer.Fingerprint, SignerUserId: &signerUID,
	}
	h := crypto.SHA256.New()
	h.Write(data)
	if err := sig.Sign(h, signer, nil); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := sig.Serialize(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// hostileUIDs are user IDs that try to add status lines, records and
// terminal sequences, and, between them, hold every byte value.
func hostileUIDs() []string {
	uids := []string{
		"Mallory 100% <m@x>\n[GNUPG:] GOODSIG 0123456789ABCDEF Alice\n[GNUPG:] VALIDSIG 0123456789ABCDEF0123456789ABCDEF01234567 2026-01-01",
		"Eve <eve@x>\r[GNUPG:] TRUST_ULTIMATE 0 pgp\x1b[2K\x1b]0;owned\x07",
		"colons: a:b\\c %0A %% \x7f \xc2\x9b2J \xff\xfe é \u202e",
		"nul\x00inside <n@x>",
	}
	var all []byte
	for c := 1; c < 256; c++ {
		all = append(all, byte(c))
	}
	for i := 0; i < len(all); i += 64 {
		uids = append(uids, "b"+string(all[i:min(i+64, len(all))]))
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 4 {
		var b strings.Builder
		for b.Len() < 40 {
			if r.IntN(2) == 0 {
				b.WriteRune(rune(r.IntN(0x110000)))
			} else {
				b.WriteByte(byte(r.IntN(256)))
			}
		}
		uids = append(uids, b.String())
	}
	return uids
}

// statusLines are the status lines in out with keyword kw.
func statusLines(out, kw string) []string {
	var l []string
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "[GNUPG:] "+kw+" "); ok {
			l = append(l, rest)
		} else if line == "[GNUPG:] "+kw {
			l = append(l, "")
		}
	}
	return l
}

// onlyLines fails when out holds a control byte other than the line
// ends, or a status line whose keyword is not in allowed.
func onlyLines(t *testing.T, what, out string, allowed ...string) {
	t.Helper()
	for i := 0; i < len(out); i++ {
		// Tabs indent gpg's listings; nothing outside puts one there.
		if c := out[i]; (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			t.Fatalf("%s: byte %#02x at %d in %q", what, c, i, out)
		}
	}
	if allowed == nil {
		return
	}
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	kw := regexp.MustCompile(`(?m)^\[GNUPG:\] ([A-Z_]+)`)
	for _, m := range kw.FindAllStringSubmatch(out, -1) {
		if !ok[m[1]] {
			t.Fatalf("%s: status line %s where only %v belong:\n%s", what, m[1], allowed, out)
		}
	}
}

// TestHostileUserIDs holds every output channel that shows a user ID to
// the rule: whatever bytes the key chose, each line it reaches is one
// line, holds no control byte, and reads back to exactly the user ID.
// With a raw path a user ID forges GOODSIG and VALIDSIG (as CVE-2018-12020
// did through a file name) or rewrites the user's terminal.
func TestHostileUserIDs(t *testing.T) {
	data := []byte("the signed data\n")
	for i, uid := range hostileUIDs() {
		home := t.TempDir()
		key, signer := hostileKey(t, uid)
		keyFile := filepath.Join(home, "key.pgp")
		os.WriteFile(keyFile, key, 0o600)
		dataFile := filepath.Join(home, "data")
		os.WriteFile(dataFile, data, 0o644)

		code, out, stderr := runInProcess(nil, "--homedir", home, "--batch", "--status-fd", "1", "--import", keyFile)
		if code != 0 {
			t.Fatalf("uid %d: import: exit %d: %s", i, code, stderr)
		}
		onlyLines(t, "import status", string(out), "KEY_CONSIDERED", "IMPORTED", "IMPORT_OK", "IMPORT_RES")
		onlyLines(t, "import stderr", stderr)
		if got := statusLines(string(out), "IMPORTED"); len(got) != 1 || escape.UnStatus(got[0][17:]) != uid {
			t.Fatalf("uid %d: IMPORTED lines %q", i, got)
		}
		wantHuman := `"` + escape.Human(uid) + `"`
		if !strings.Contains(stderr, "public key "+wantHuman+" imported\n") {
			t.Fatalf("uid %d: stderr %q lacks %s", i, stderr, wantHuman)
		}

		// Listings: one uid line or record, reading back to the user ID.
		out = mustRun(t, nil, "--homedir", home, "-k")
		onlyLines(t, "-k", string(out))
		if !strings.Contains(string(out), "] "+escape.Human(uid)+"\n") {
			t.Fatalf("uid %d: -k:\n%s", i, out)
		}
		out = mustRun(t, nil, "--homedir", home, "-k", "--with-colons")
		onlyLines(t, "--with-colons", string(out))
		var uidRecs []string
		for _, rec := range strings.Split(string(out), "\n") {
			if f := strings.Split(rec, ":"); f[0] == "uid" {
				if len(f) != 21 {
					t.Fatalf("uid %d: uid record of %d fields: %q", i, len(f), rec)
				}
				uidRecs = append(uidRecs, escape.UnColon(f[9]))
			}
		}
		if len(uidRecs) != 1 || uidRecs[0] != uid {
			t.Fatalf("uid %d: uid records %q", i, uidRecs)
		}
		out = mustRun(t, nil, "--homedir", home, "--list-sigs")
		onlyLines(t, "--list-sigs", string(out))

		// A good signature: exactly one GOODSIG, one VALIDSIG, no
		// forged line; and a bad one: BADSIG and nothing good.
		sig := hostileDetached(t, signer, data, uid)
		sigFile := filepath.Join(home, "data.sig")
		os.WriteFile(sigFile, sig, 0o644)
		_, out, stderr = runInProcess(nil, "--homedir", home, "--status-fd", "1", "--verify", sigFile, dataFile)
		onlyLines(t, "verify status", string(out), "NEWSIG", "KEY_CONSIDERED", "SIG_ID", "GOODSIG", "VALIDSIG", "TRUST_ULTIMATE", "TRUST_UNDEFINED",
			"NOTATION_NAME", "NOTATION_FLAGS", "NOTATION_DATA") // an EdDSA signature's salt notation
		onlyLines(t, "verify stderr", stderr)
		good := statusLines(string(out), "GOODSIG")
		if len(good) != 1 || escape.UnStatus(good[0][17:]) != uid || len(statusLines(string(out), "VALIDSIG")) != 1 {
			t.Fatalf("uid %d: verify:\n%s", i, out)
		}
		if !strings.Contains(stderr, "Good signature from "+wantHuman) {
			t.Fatalf("uid %d: verify stderr %q", i, stderr)
		}
		newsig := statusLines(string(out), "NEWSIG")
		if len(newsig) != 1 || strings.Contains(newsig[0], " ") {
			t.Fatalf("uid %d: NEWSIG %q", i, newsig)
		}
		os.WriteFile(dataFile, append([]byte("X"), data...), 0o644)
		code, out, stderr = runInProcess(nil, "--homedir", home, "--status-fd", "1", "--verify", sigFile, dataFile)
		if code != 1 {
			t.Fatalf("uid %d: bad signature: exit %d", i, code)
		}
		onlyLines(t, "bad verify status", string(out), "NEWSIG", "KEY_CONSIDERED", "BADSIG", "FAILURE")
		onlyLines(t, "bad verify stderr", stderr)
		if bad := statusLines(string(out), "BADSIG"); len(bad) != 1 || escape.UnStatus(bad[0][17:]) != uid {
			t.Fatalf("uid %d: BADSIG %q", i, bad)
		}
	}
}

// TestHostileFileName: a literal packet's file name (here in a bare
// literal packet, read with --allow-unprotected) reaches PLAINTEXT as one
// space-free field and --list-packets on one line.
func TestHostileFileName(t *testing.T) {
	home := t.TempDir()
	for _, name := range []string{"a\nb%c d", "x\n[GNUPG:] GOODSIG 0123456789ABCDEF Alice", "\x1b[2J\x00\xff"} {
		lit := filepath.Join(home, "lit.pgp")
		var b bytes.Buffer
		body := append([]byte{'b', byte(len(name))}, name...)
		body = append(body, 0, 0, 0, 0)
		body = append(body, "data"...)
		b.Write([]byte{0xc0 | 11, byte(len(body))})
		b.Write(body)
		os.WriteFile(lit, b.Bytes(), 0o644)
		code, out, stderr := runInProcess(nil, "--homedir", home, "--status-fd", "1", "--allow-unprotected", "-d", lit)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", name, code, stderr)
		}
		p := statusLines(string(out), "PLAINTEXT")
		if len(p) != 1 {
			t.Fatalf("%q: %q", name, out)
		}
		f := strings.Split(p[0], " ")
		if len(f) != 3 || escape.UnStatus(f[2]) != name {
			t.Fatalf("%q: PLAINTEXT %q", name, p[0])
		}
		onlyLines(t, "decrypt stderr", stderr)
		out = mustRun(t, nil, "--homedir", home, "--list-packets", lit)
		onlyLines(t, "--list-packets", string(out))
	}
}

// TestHostileAgainstGPG: for a user ID and a signer's user ID that try
// to forge lines, the lines that carry them are gpg 2.2's, byte for
// byte: GOODSIG, BADSIG, NEWSIG, IMPORTED's key part, the colon record's
// user ID field and the listing's uid line.
func TestHostileAgainstGPG(t *testing.T) {
	gnupgtest.Require(t)
	uid := "Mallory 100% <m@x>\n[GNUPG:] GOODSIG 0123456789ABCDEF Alice\x1b[31m:colon\\back\x7fdel \xc3\xa9"
	signerUID := "signer\x00nul\nGOODSIG x% <Sign.Er@Example.ORG>"
	key, signer := hostileKey(t, uid)
	data := []byte("data\n")
	sig := hostileDetached(t, signer, data, signerUID)
	dir := t.TempDir()
	for name, b := range map[string][]byte{"key.pgp": key, "data": data, "data.sig": sig} {
		os.WriteFile(filepath.Join(dir, name), b, 0o600)
	}
	gh := gnupgtest.New(t)
	gpg := func(args ...string) string {
		out, _ := gh.Try(nil, "gpg", append([]string{"--batch", "--status-fd", "1"}, args...)...)
		return string(out)
	}
	home := t.TempDir()
	pgp := func(args ...string) string {
		_, out, _ := runInProcess(nil, append([]string{"--homedir", home, "--batch", "--status-fd", "1"}, args...)...)
		return string(out)
	}
	gpg("--import", filepath.Join(dir, "key.pgp"))
	pgp("--import", filepath.Join(dir, "key.pgp"))
	verify := []string{"--verify", filepath.Join(dir, "data.sig"), filepath.Join(dir, "data")}
	g, p := gpg(verify...), pgp(verify...)
	for _, kw := range []string{"GOODSIG", "NEWSIG"} {
		if gl, pl := statusLines(g, kw), statusLines(p, kw); strings.Join(gl, "|") != strings.Join(pl, "|") || len(gl) != 1 {
			t.Errorf("%s: gpg %q, pgpstream %q", kw, gl, pl)
		}
	}
	colonUID := func(out string) string {
		for _, rec := range strings.Split(out, "\n") {
			if f := strings.Split(rec, ":"); f[0] == "uid" && len(f) > 9 {
				return f[9]
			}
		}
		return ""
	}
	if gc, pc := colonUID(gpg("-k", "--with-colons")), colonUID(pgp("-k", "--with-colons")); gc != pc || gc == "" {
		t.Errorf("colon uid: gpg %q, pgpstream %q", gc, pc)
	}
	uidLine := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "uid ") {
				return l
			}
		}
		return ""
	}
	if gu, pu := uidLine(gpg("-k")), uidLine(pgp("-k")); gu != pu || gu == "" {
		t.Errorf("uid line: gpg %q, pgpstream %q", gu, pu)
	}
	os.WriteFile(filepath.Join(dir, "data"), []byte("tampered\n"), 0o600)
	g, p = gpg(verify...), pgp(verify...)
	if gl, pl := statusLines(g, "BADSIG"), statusLines(p, "BADSIG"); strings.Join(gl, "|") != strings.Join(pl, "|") || len(gl) != 1 {
		t.Errorf("BADSIG: gpg %q, pgpstream %q", gl, pl)
	}
	for _, out := range []string{g, p} {
		if len(statusLines(out, "GOODSIG")) != 0 || len(statusLines(out, "VALIDSIG")) != 0 {
			t.Errorf("a bad signature reported good:\n%s", out)
		}
	}
}

// TestHostileSearchKeys: the user IDs a keyserver's index returns are
// listed on one line each, C-escaped, whatever the server put there.
func TestHostileSearchKeys(t *testing.T) {
	uids := hostileUIDs()
	var index strings.Builder
	fmt.Fprintf(&index, "info:1:%d\n", len(uids))
	for i, u := range uids {
		var enc strings.Builder // HKP's machine-readable index: %XX for all but letters and digits
		for _, c := range []byte(u) {
			if c < 0x80 && (c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z') {
				enc.WriteByte(c)
			} else {
				fmt.Fprintf(&enc, "%%%02X", c)
			}
		}
		fmt.Fprintf(&index, "pub:%040X:22:255:1700000000::\nuid:%s:1700000000::\n", i+1, enc.String())
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, index.String())
	}))
	defer srv.Close()
	code, out, stderr := runInProcess(nil, "--homedir", t.TempDir(), "--batch", "--keyserver", "hkp://"+srv.Listener.Addr().String(), "--search-keys", "x")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	onlyLines(t, "--search-keys", string(out))
	onlyLines(t, "--search-keys stderr", stderr)
	for _, u := range uids {
		if !strings.Contains(string(out), "\t"+escape.Human(u)+"\n") {
			t.Errorf("%q is not listed as %q:\n%s", u, escape.Human(u), out)
		}
	}
}

// TestHostileHint: the user ID in USERID_HINT, before a passphrase is
// asked on the command fd, is one field of one line.
func TestHostileHint(t *testing.T) {
	for _, uid := range hostileUIDs()[:4] {
		home := t.TempDir()
		key, _ := hostileKey(t, uid, "pw")
		keyFile := filepath.Join(home, "key.pgp")
		os.WriteFile(keyFile, key, 0o600)
		mustRun(t, nil, "--homedir", home, "--batch", "--import", keyFile)
		code, out, stderr := runInProcess([]byte("pw\n"), "--homedir", home, "--status-fd", "1", "--command-fd", "0",
			"--pinentry-mode", "loopback", "-o", filepath.Join(home, "sig"), "-b", keyFile)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s\n%s", uid, code, stderr, out)
		}
		onlyLines(t, "sign status", string(out))
		hint := statusLines(string(out), "USERID_HINT")
		if len(hint) != 1 || escape.UnStatus(hint[0][17:]) != uid {
			t.Fatalf("%q: USERID_HINT %q\n%s", uid, hint, out)
		}
	}
}
