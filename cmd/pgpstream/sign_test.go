package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

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

// stopAgent stops the gpg-agent that gpg started for home. gpgconf asks
// the agent through gpg-connect-agent, which has been seen to hang on a
// loaded machine; the test must not hang with it, so it gets 10 s.
func stopAgent(home string) {
	if _, err := exec.LookPath("gpgconf"); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "gpgconf", "--kill", "all")
		cmd.Env = append(os.Environ(), "GNUPGHOME="+home)
		cmd.WaitDelay = time.Second
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
		code, _, stderr := runInProcess(nil, append([]string{"--batch", "--yes"}, args...)...)
		return code, stderr
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
