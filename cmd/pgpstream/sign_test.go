package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

func init() {
	// repack OUT IN N...: write IN's top-level packets N... (0-based) to
	// OUT, to build the old signature forms from a one-pass message.
	scriptCmds["repack"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 3 {
			ts.Fatalf("usage: repack OUT IN N...")
		}
		pkts := splitPackets(ts, readScriptFile(ts, args[1]))
		var out []byte
		for _, a := range args[2:] {
			i, err := strconv.Atoi(a)
			ts.Check(err)
			out = append(out, pkts[i]...)
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), out, 0o644))
	}
	// gpgcleanup: stop the gpg-agent of this script's GNUPGHOME when
	// the script ends, however it ends.
	scriptCmds["gpgcleanup"] = func(ts *testscript.TestScript, neg bool, args []string) {
		home := ts.Getenv("GNUPGHOME")
		ts.Defer(func() { stopAgent(home) })
	}
}

func stopAgent(home string) {
	if _, err := exec.LookPath("gpgconf"); err == nil {
		cmd := exec.Command("gpgconf", "--kill", "all")
		cmd.Env = append(os.Environ(), "GNUPGHOME="+home)
		cmd.Run()
	}
}

func splitPackets(ts *testscript.TestScript, msg []byte) [][]byte {
	var out [][]byte
	r := iobuf.NewReader(bytes.NewReader(msg), 0)
	for {
		h, err := packet.ReadHeader(r)
		if err == io.EOF {
			return out
		}
		ts.Check(err)
		body, err := packet.NewBody(r, h).ReadAll(16 << 20)
		ts.Check(err)
		out = append(out, append(packet.AppendHeader(nil, h.Tag, int64(len(body))), body...))
	}
}

// TestSignExitCodes checks gpg's exit codes, which scripts cannot tell
// apart: 0 good, 1 bad signature, 2 no key or an error.
func TestSignExitCodes(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	t.Setenv("PGPSTREAM_HOME", home)
	plain := filepath.Join(dir, "plain.txt")
	os.WriteFile(plain, []byte("Hello, world!\n"), 0o644)
	pgp := func(args ...string) (int, string) {
		var stderr bytes.Buffer
		code := run(append([]string{"pgpstream", "--batch", "--yes"}, args...), bytes.NewReader(nil), io.Discard, &stderr)
		return code, stderr.String()
	}
	if code, out := pgp("--quick-gen-key", "Ed <ed@pgpstream.test>", "ed25519"); code != 0 {
		t.Fatal(out)
	}
	signed := filepath.Join(dir, "s.pgp")
	if code, out := pgp("-s", "-o", signed, plain); code != 0 {
		t.Fatal(out)
	}
	if code, out := pgp("--verify", signed); code != 0 {
		t.Fatalf("good signature: exit %d: %s", code, out)
	}
	b, _ := os.ReadFile(signed)
	b[len(b)-3] ^= 1
	bad := filepath.Join(dir, "bad.pgp")
	os.WriteFile(bad, b, 0o644)
	if code, out := pgp("--verify", bad); code != 1 {
		t.Fatalf("bad signature: exit %d: %s", code, out)
	}
	if code, out := pgp("-d", "-o", filepath.Join(dir, "out"), bad); code != 1 {
		t.Fatalf("bad signature, --decrypt: exit %d: %s", code, out)
	}
	if code, out := pgp("--homedir", filepath.Join(dir, "empty"), "--verify", signed); code != 2 {
		t.Fatalf("no key: exit %d: %s", code, out)
	}
	if code, _ := pgp("--verify", plain); code != 2 {
		t.Fatalf("not OpenPGP: exit %d", code)
	}
}

// TestGnuPG24SignedVector decrypts and checks GnuPG 2.4.8's signed message
// in LibrePGP's AEAD packet (tag 20).
func TestGnuPG24SignedVector(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "aead")
	home := t.TempDir()
	var stderr, stdout bytes.Buffer
	if code := run([]string{"pgpstream", "--homedir", home, "--import", filepath.Join(dir, "key-sec.asc")}, nil, io.Discard, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	stderr.Reset()
	code := run([]string{"pgpstream", "--homedir", home, "--batch", "--status-fd", "1", "-d", filepath.Join(dir, "signed-aead-1000.gpg")}, nil, &stdout, &stderr)
	if code != 0 && bytes.Contains(stderr.Bytes(), []byte("unsupported")) {
		t.Skipf("AEAD (tag 20) not supported: %s", stderr.String())
	}
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !bytes.Contains(stdout.Bytes(), []byte("[GNUPG:] GOODSIG 26B4AB37B098AE9B pgpstream anchor <anchor@pgpstream.test>\n")) {
		t.Fatalf("no GOODSIG:\n%s\n%s", stdout.String(), stderr.String())
	}
}
