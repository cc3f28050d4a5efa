package keyring

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
	"github.com/pgpstream/pgpstream/keybox"
	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// killAgent stops the home's agent, with a timeout: gpgconf has been
// seen to hang on a loaded machine.
func killAgent(home string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "gpgconf", "--homedir", home, "--kill", "gpg-agent")
	c.WaitDelay = time.Second
	c.Run()
	// gpgconf returns before the agent is gone; wait for its socket.
	for i := 0; i < 100 && agentRunning(home); i++ {
		time.Sleep(50 * time.Millisecond)
	}
}

func agentRunning(home string) bool {
	_, err := os.Stat(filepath.Join(home, "S.gpg-agent"))
	return err == nil
}

// TestGnuPGRings reads a GnuPG home's keybox and writes into it: each
// key once, gpg's owner trust, imports and deletions where gpg sees
// them, and the agent started only for secret keys.
func TestGnuPGRings(t *testing.T) {
	h := gnupgtest.New(t)
	t.Cleanup(func() { killAgent(h.Dir) })
	ed := h.GenKey("Ed <ed@gpg.test>", "ed25519", "cv25519", "")
	rsa := h.GenKey("Rsa <rsa@gpg.test>", "rsa2048", "rsa2048", "")
	// A pgpstream home's key, and gpg's Ed key, in pgpstream's own ring too.
	other, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	own, err := other.Generate(GenOptions{UserID: "Own <own@pgpstream.test>"})
	if err != nil {
		t.Fatal(err)
	}
	var ownPub bytes.Buffer
	if err := other.Export(&ownPub, nil, false, false); err != nil {
		t.Fatal(err)
	}
	kbx, _ := os.ReadFile(filepath.Join(h.Dir, "pubring.kbx"))
	trustdb, _ := os.ReadFile(filepath.Join(h.Dir, "trustdb.gpg"))
	killAgent(h.Dir)

	// A keybox imports as gpg --import reads one.
	if st, err := other.Import(bytes.NewReader(kbx)); err != nil || st.Imported != 2 {
		t.Errorf("importing pubring.kbx: %+v, %v", st, err)
	}

	r, err := Open(h.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Notices()) != 0 {
		t.Errorf("notices: %+v", r.Notices())
	}
	if _, err := r.Import(bytes.NewReader(ownPub.Bytes())); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Import(bytes.NewReader(h.Run(nil, "gpg", "--export", ed))); err != nil {
		t.Fatal(err)
	}
	if agentRunning(h.Dir) {
		t.Errorf("opening the ring and importing public keys started gpg-agent")
	}
	// The imported key is in gpg's keybox, where gpg sees it; the Ed
	// key's import changed nothing, and its blob is as gpg wrote it.
	if _, err := os.Stat(filepath.Join(h.Dir, "pubring.pgp")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pubring.pgp in a GnuPG home: %v", err)
	}
	if list := h.Run(nil, "gpg", "--with-colons", "--list-keys"); !bytes.Contains(list, []byte(own.Fingerprint())) {
		t.Fatalf("gpg does not list the imported key:\n%s", list)
	}
	kbxNow, _ := os.ReadFile(filepath.Join(h.Dir, "pubring.kbx"))
	if !bytes.HasPrefix(kbxNow, kbx) {
		t.Errorf("gpg's blobs changed by the import of other keys")
	}

	r, err = Open(h.Dir)
	if err != nil {
		t.Fatal(err)
	}
	all, err := r.Select(nil, false)
	if err != nil || len(all) != 3 {
		t.Fatalf("%d keys (%v), want gpg's two and pgpstream's one", len(all), err)
	}
	for _, fpr := range []string{ed, rsa} {
		if v := r.Validity(fpr, ModelPGP); v != TrustUltimate {
			t.Errorf("%s: validity %v, want ultimate as gpg's trustdb.gpg has it", fpr, v)
		}
	}
	if v := r.Validity(own.Fingerprint(), ModelPGP); v != TrustUnknown {
		t.Errorf("the imported key: validity %v", v)
	}
	if agentRunning(h.Dir) {
		t.Errorf("listing public keys started gpg-agent")
	}

	// Secret keys: gpg's two, through the agent.
	secret, err := r.Select(nil, true)
	if err != nil || len(secret) != 2 {
		t.Fatalf("%d secret keys (%v), want gpg's two", len(secret), err)
	}
	if r.AgentError() != nil || !agentRunning(h.Dir) {
		t.Fatalf("the agent: %v, running %v", r.AgentError(), agentRunning(h.Dir))
	}
	for _, k := range secret {
		priv := k.PrivateKey(k.Entity().PrimaryKey.Fingerprint)
		if priv == nil || priv.Encrypted || priv.Dummy() {
			t.Errorf("%s: no usable agent key: %+v", k.Fingerprint(), priv)
		}
	}

	// A key deleted from the keybox is gone for gpg too (a key with a
	// secret part in the agent still needs secretToo); the secret export
	// of what gpg-agent holds is a transferable secret key that reads
	// back with its secrets.
	if _, err := r.Delete([]string{rsa}, false, false); !errors.Is(err, ErrHasSecret) {
		t.Errorf("Delete of gpg's key with its secret in the agent: %v", err)
	}
	if n, err := r.Delete([]string{own.Fingerprint()}, false, false); n != 1 || err != nil {
		t.Errorf("Delete of the imported key: %d, %v", n, err)
	}
	if list := h.Run(nil, "gpg", "--with-colons", "--list-keys"); bytes.Contains(list, []byte(own.Fingerprint())) || !bytes.Contains(list, []byte(rsa)) {
		t.Errorf("gpg's listing after the deletion:\n%s", list)
	}
	var sec bytes.Buffer
	if err := r.Export(&sec, []string{rsa}, true, false); err != nil {
		t.Errorf("secret export of the agent's key: %v", err)
	} else if es, err := openpgp.ReadKeyRing(&sec); err != nil || len(es) != 1 || es[0].PrivateKey == nil || es[0].PrivateKey.Dummy() {
		t.Errorf("secret export of the agent's key reads back as %v, %v", es, err)
	} else if es[0].PrivateKey.Encrypted || len(es[0].Subkeys) != 1 || es[0].Subkeys[0].PrivateKey == nil || es[0].Subkeys[0].PrivateKey.Encrypted {
		t.Errorf("the export of keys without a passphrase is not in the clear, as gpg's is")
	}

	if now, _ := os.ReadFile(filepath.Join(h.Dir, "trustdb.gpg")); !bytes.Equal(now, trustdb) {
		t.Errorf("trustdb.gpg changed")
	}

	// A change to gpg's key (a new user ID gpg added, imported here) is
	// written to pubring.pgp; the key is still listed once.
	h.Run(nil, "gpg", "--batch", "--quick-add-uid", ed, "Ed Two <ed2@gpg.test>")
	r, err = Open(h.Dir)
	if err != nil {
		t.Fatal(err)
	}
	// pgpstream reads the new user ID from the keybox already; make
	// pgpstream's own copy (which lacks it) take it by import.
	if _, err := r.Import(bytes.NewReader(h.Run(nil, "gpg", "--export", ed))); err != nil {
		t.Fatal(err)
	}
	r, err = Open(h.Dir)
	if err != nil {
		t.Fatal(err)
	}
	k, err := r.Lookup(ed, false)
	if err != nil || len(k.UserIDs()) != 2 {
		t.Fatalf("Ed after its new user ID: %v, %v", k, err)
	}
	if all, _ := r.Select(nil, false); len(all) != 2 {
		t.Errorf("%d keys after the update, want gpg's 2 (the imported one was deleted)", len(all))
	}
}

// TestGnuPGDeleteSecret deletes the secret parts gpg-agent holds, as
// gpg --delete-secret-keys does: the agent's key files go, the public key
// stays, and gpg sees no secret key any more. A subkey's fingerprint
// names the whole key.
func TestGnuPGDeleteSecret(t *testing.T) {
	h := gnupgtest.New(t)
	t.Cleanup(func() { killAgent(h.Dir) })
	fpr := h.GenKey("Del <del@gpg.test>", "ed25519", "cv25519", "")
	grips := h.Keygrips(fpr)
	r, err := Open(h.Dir)
	if err != nil {
		t.Fatal(err)
	}
	k, err := r.Lookup(fpr, true)
	if err != nil {
		t.Fatal(err)
	}
	sub := fmt.Sprintf("%X", k.Entity().Subkeys[0].PublicKey.Fingerprint)
	if n, err := r.DeleteSecret([]string{sub}, true); err != nil || n != 1 {
		t.Fatalf("DeleteSecret by the subkey's fingerprint: %d, %v", n, err)
	}
	for _, g := range grips {
		if _, err := os.Stat(filepath.Join(h.Dir, "private-keys-v1.d", g+".key")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s.key is still there (%v)", g, err)
		}
	}
	if out := h.Run(nil, "gpg", "--batch", "--with-colons", "--list-secret-keys"); len(out) != 0 {
		t.Errorf("gpg still lists secret keys:\n%s", out)
	}
	if out := h.Run(nil, "gpg", "--batch", "--with-colons", "--list-keys", fpr); !bytes.Contains(out, []byte("pub:")) {
		t.Errorf("the public key is gone:\n%s", out)
	}
	if _, err := r.DeleteSecret([]string{fpr}, true); !errors.Is(err, ErrNoKey) {
		t.Errorf("DeleteSecret again: %v", err)
	}
}

// TestGnuPGLegacyRing reads pubring.gpg, the packet ring gpg uses when a
// home has it and no keybox, and lists a key whose primary secret part
// the agent lacks as sec#.
func TestGnuPGLegacyRing(t *testing.T) {
	h := gnupgtest.New(t)
	t.Cleanup(func() { killAgent(h.Dir) })
	if err := os.WriteFile(filepath.Join(h.Dir, "pubring.gpg"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fpr := h.GenKey("Legacy <legacy@gpg.test>", "ed25519", "cv25519", "")
	if _, err := os.Stat(filepath.Join(h.Dir, "pubring.kbx")); err == nil {
		t.Fatal("gpg made a keybox beside pubring.gpg")
	}
	// Take the primary key's secret out of the agent: gpg then lists
	// the key as sec#.
	grips := h.Keygrips(fpr)
	killAgent(h.Dir)
	if err := os.Remove(filepath.Join(h.Dir, "private-keys-v1.d", grips[0]+".key")); err != nil {
		t.Fatal(err)
	}
	want := h.Run(nil, "gpg", "--batch", "--list-secret-keys")
	r, err := Open(h.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := r.ListKeys(&got, nil, true, false); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"pubring.gpg\n", "\nsec#  ed25519 ", "\nssb   cv25519 "} {
		if !strings.Contains(got.String(), s) || !strings.Contains(string(want), s) {
			t.Errorf("%q: pgpstream\n%s\ngpg\n%s", s, got.String(), want)
		}
	}
	k, err := r.Lookup(fpr, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.SigningKey(time.Now(), nil); err == nil {
		t.Errorf("a key without its primary secret part signs")
	}
}

// TestGnuPGBrokenKeybox: a keybox pgpstream cannot read is damaged at
// byte 0; pgpstream's own keys stay usable, and changeable, in
// pubring.pgp: the damaged keybox is not rewritten.
func TestGnuPGBrokenKeybox(t *testing.T) {
	home := t.TempDir()
	os.Chmod(home, 0o700) // no NoticeUnsafeHome
	r, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Generate(GenOptions{UserID: "Own <own@pgpstream.test>"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "pubring.kbx"), []byte("not a keybox at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	var told []Notice
	r, err = OpenWith(home, Options{Agent: AgentOptions{Disable: true}, Notify: func(n Notice) { told = append(told, n) }})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Damage()
	if len(d) != 1 || !strings.HasSuffix(d[0].Error(), "pubring.kbx: reading stopped at byte 0: blob length 1852797984 is over gpg's limit of 5242880") || d[0].Keys != 0 {
		t.Errorf("damage: %v", d)
	}
	if n := r.Notices(); len(n) != 0 {
		t.Errorf("damage told again as notices: %+v", n) // Damage's alone
	}
	if _, err := r.Lookup("own@pgpstream.test", true); err != nil {
		t.Errorf("own key: %v", err)
	}
	if _, err := r.Generate(GenOptions{UserID: "Two <two@pgpstream.test>"}); err != nil {
		t.Errorf("a change beside a damaged keybox: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "pubring.kbx")); string(b) != "not a keybox at all" {
		t.Errorf("the damaged keybox was rewritten: %q", b)
	}
	want := Notice{Kind: NoticeGnuPGDamaged, File: filepath.Join(home, "pubring.kbx"), Offset: 0, Kept: filepath.Join(home, "pubring.pgp")}
	if len(told) != 1 || told[0] != want {
		t.Errorf("told %+v, want %+v", told, want)
	}
}

// TestGnuPGHomeNotices: what of a GnuPG home cannot be read, short of
// damage that stops reading a ring (Damage), is one typed notice per
// fact in Ring.Notices, in the order found, each with its fields; the
// keys that can be read are used.
func TestGnuPGHomeNotices(t *testing.T) {
	src := openRing(t)
	importFile(t, src, filepath.Join(fixtures, "gpg-ed25519-pub.asc"))
	var pub bytes.Buffer
	if err := src.Export(&pub, nil, false, false); err != nil {
		t.Fatal(err)
	}
	fpr := src.keys[0].Fingerprint()
	_, _, rest, err := pgppacket.SplitPacket(pub.Bytes(), 0)
	if err != nil {
		t.Fatal(err)
	}
	keyOnly := pub.Bytes()[:pub.Len()-len(rest)] // no user ID: not read
	// A v4 RSA key packet without its numbers: the keybox takes it, and
	// the key cannot be parsed.
	broken := []byte{0xc6, 6, 4, 0, 0, 0, 0, 1}
	kbx := keybox.HeaderBlob(1700000000)
	brokenAt := int64(len(kbx))
	for _, kb := range [][]byte{broken, keyOnly, pub.Bytes()} {
		b, err := keybox.EncodeBlob(kb, 1700000000)
		if err != nil {
			t.Fatal(err)
		}
		kbx = append(kbx, b...)
	}

	home := t.TempDir()
	file := func(name string) string { return filepath.Join(home, name) }
	write := func(name string, data []byte, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(file(name), data, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(file(name), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(kbxName, kbx, 0o600)
	write(secringName, nil, 0o644)
	write(trustName, []byte("bogus\n"), 0o600)
	write(trustDBName, bytes.Repeat([]byte("x"), 80), 0o600)
	if err := os.Mkdir(file(gpgRingName), 0o700); err != nil { // read(2): EISDIR
		t.Fatal(err)
	}
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	open := func() *Ring {
		t.Helper()
		r, err := OpenWith(home, Options{Agent: AgentOptions{Disable: true}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// check compares the notices with want, where an Err of anyErr
	// takes any error.
	anyErr := errors.New("any error")
	check := func(r *Ring, want []Notice) {
		t.Helper()
		got := r.Notices()
		if len(got) != len(want) {
			t.Fatalf("notices:\n%+v\nwant\n%+v", got, want)
		}
		for i, n := range got {
			if n.Err != nil && want[i].Err == anyErr {
				n.Err = anyErr
			}
			if n != want[i] {
				t.Errorf("notice %d: %+v, want %+v", i, got[i], want[i])
			}
		}
	}
	r := open()
	want := []Notice{
		{Kind: NoticeUnsafeHome, File: home},
		{Kind: NoticeUnsafeSecring, File: file(secringName)},
		{Kind: NoticeKeySkipped, File: file(kbxName), Offset: brokenAt, Err: anyErr},
		{Kind: NoticeGnuPGUnused, File: file(gpgRingName), Err: anyErr},
		{Kind: NoticeUnreadableKeys, File: file(kbxName), Count: 1, Key: fpr, Err: anyErr},
		{Kind: NoticeTrustUnread, File: file(trustName), Err: anyErr},
		{Kind: NoticeTrustUnread, File: file(trustDBName), Err: errNotTrustDB},
	}
	check(r, want)
	if _, err := r.Lookup(fpr, false); err != nil || len(r.Damage()) != 0 {
		t.Errorf("the key that reads: %v; damage %v", err, r.Damage())
	}
	// A change reads the ring again under its lock, and finds the same.
	if n, err := r.Delete([]string{strings.Repeat("0", 40)}, false, false); n != 0 || !errors.Is(err, ErrNoKey) {
		t.Errorf("deleting no key: %d, %v", n, err)
	}
	check(r, want)

	// The keybox and trustdb.gpg unreadable, the rest private.
	for _, name := range []string{kbxName, trustDBName, trustName, gpgRingName} {
		os.RemoveAll(file(name))
	}
	for _, name := range []string{kbxName, trustDBName} {
		if err := os.Mkdir(file(name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(home, 0o700)
	os.Chmod(file(secringName), 0o600)
	want = []Notice{
		{Kind: NoticeGnuPGUnused, File: file(kbxName), Err: anyErr},
		{Kind: NoticeTrustUnread, File: file(trustDBName), Err: anyErr},
	}
	check(open(), want)

	// An empty trustdb.gpg is none, as gpg takes it.
	os.RemoveAll(file(trustDBName))
	write(trustDBName, nil, 0o600)
	check(open(), want[:1])
}

// TestGnuPGPasswd changes the passphrase of a key gpg-agent holds, as gpg
// --passwd does, and gpg then needs the new one.
func TestGnuPGPasswd(t *testing.T) {
	h := gnupgtest.New(t)
	t.Cleanup(func() { killAgent(h.Dir) })
	fpr := h.GenKey("Ed <ed@gpg.test>", "ed25519", "cv25519", "old pass")
	msg := h.Run([]byte("passwd\n"), "gpg", "--batch", "--trust-model", "always", "-e", "-r", fpr)
	r, err := Open(h.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.ChangePassphrase(fpr, []byte("wrong"), []byte("new pass")); !errors.Is(err, ErrBadPassphrase) {
		t.Fatalf("a wrong old passphrase: %v", err)
	}
	if err := r.ChangePassphrase(fpr, []byte("old pass"), []byte("new pass")); err != nil {
		t.Fatal(err)
	}
	h.Run(nil, "gpgconf", "--reload", "gpg-agent") // forget the cached passphrases
	decrypt := func(pass string) error {
		_, err := h.Try(msg, "gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", pass, "-d")
		return err
	}
	if err := decrypt("old pass"); err == nil {
		t.Errorf("the old passphrase still opens the key")
	}
	if err := decrypt("new pass"); err != nil {
		t.Errorf("the new passphrase: %v", err)
	}
}

// TestGnuPGSaveLegacyAndMove: in a home whose gpg keeps pubring.gpg (and
// no keybox), an import is saved into pubring.gpg, no keybox is made, and
// the keys an earlier pgpstream left in the home's pubring.pgp move there
// too; gpg lists all of them.
func TestGnuPGSaveLegacyAndMove(t *testing.T) {
	h := gnupgtest.New(t)
	t.Cleanup(func() { killAgent(h.Dir) })
	if err := os.WriteFile(filepath.Join(h.Dir, "pubring.gpg"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h.GenKey("Legacy <legacy@gpg.test>", "ed25519", "cv25519", "")

	// An earlier pgpstream's own ring in the home, and a key to import.
	made := func(uid string) []byte {
		home := t.TempDir()
		r, err := Open(home)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Generate(GenOptions{UserID: uid}); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := r.Export(&b, nil, false, false); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	if err := os.WriteFile(filepath.Join(h.Dir, "pubring.pgp"), made("Old <old@pgpstream.test>"), 0o600); err != nil {
		t.Fatal(err)
	}
	var told []Notice
	r, err := OpenWith(h.Dir, Options{GnuPGHome: h.Dir, Notify: func(n Notice) { told = append(told, n) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Import(bytes.NewReader(made("New <new@pgpstream.test>"))); err != nil {
		t.Fatal(err)
	}
	moved := Notice{Kind: NoticeMovedToGnuPG, File: filepath.Join(h.Dir, "pubring.pgp"), Kept: filepath.Join(h.Dir, "pubring.gpg")}
	if len(told) != 1 || told[0] != moved {
		t.Errorf("told %+v, want %+v", told, moved)
	}
	if _, err := os.Stat(filepath.Join(h.Dir, "pubring.kbx")); err == nil {
		t.Errorf("a keybox was made beside gpg's pubring.gpg")
	}
	if _, err := os.Stat(filepath.Join(h.Dir, "pubring.pgp")); err == nil {
		t.Errorf("pubring.pgp is still there after its keys moved")
	}
	if _, err := os.Stat(filepath.Join(h.Dir, "pubring.gpg.lock")); err == nil {
		t.Errorf("gpg's lock was left behind")
	}
	got := string(h.Run(nil, "gpg", "--batch", "--list-keys"))
	for _, s := range []string{"legacy@gpg.test", "old@pgpstream.test", "new@pgpstream.test"} {
		if !strings.Contains(got, s) {
			t.Errorf("gpg does not list %s:\n%s", s, got)
		}
	}
	// And pgpstream reads the same ring back, once per key.
	r, err = OpenWith(h.Dir, Options{GnuPGHome: h.Dir})
	if err != nil {
		t.Fatal(err)
	}
	var list bytes.Buffer
	if err := r.ListKeys(&list, nil, false, false); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"legacy@gpg.test", "old@pgpstream.test", "new@pgpstream.test"} {
		if strings.Count(list.String(), s) != 1 {
			t.Errorf("pgpstream lists %s %d times:\n%s", s, strings.Count(list.String(), s), list.String())
		}
	}
}
