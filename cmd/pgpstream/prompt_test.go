package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

// exchange is one run of gpg or pgpstream driven as a client drives it:
// its status lines (on standard error, with --status-fd 2) are read as
// they come, and answer may write to its standard input in reply.
type exchange struct {
	status []string // the status lines, without "[GNUPG:] "
	stdout []byte
	stderr string
	err    error
}

// converse runs cmd. answer is called for every status line; what it
// returns is written to the program's standard input, and close ends
// that input.
func converse(t *testing.T, cmd *exec.Cmd, answer func(line string) (reply string, close bool)) exchange {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	var ex exchange
	var msgs strings.Builder
	r := bufio.NewReader(errPipe)
	closed := false
	for {
		line, err := r.ReadString('\n')
		if s, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "[GNUPG:] "); ok {
			ex.status = append(ex.status, s)
			if answer != nil && !closed {
				reply, c := answer(s)
				if reply != "" {
					io.WriteString(in, reply)
				}
				if c {
					in.Close()
					closed = true
				}
			}
		} else {
			msgs.WriteString(line)
		}
		if err != nil {
			break
		}
	}
	if !closed {
		in.Close()
	}
	ex.err = cmd.Wait()
	ex.stdout, ex.stderr = stdout.Bytes(), msgs.String()
	return ex
}

// questions keeps the lines of the command protocol and the passphrase
// requests: what a client reacts to. (gpg relays INQUIRE_MAXLEN once or
// twice; it is left out.)
func questions(status []string) []string {
	var out []string
	for _, s := range status {
		kw, _, _ := strings.Cut(s, " ")
		switch kw {
		case "GET_HIDDEN", "GET_BOOL", "GET_LINE", "GOT_IT", "NEED_PASSPHRASE_SYM", "NEED_PASSPHRASE":
			if strings.HasPrefix(kw, "NEED_PASSPHRASE") {
				// Which key, and the S2K hash (gpg's SHA-1 or
				// pgpstream's SHA-256), differ by design.
				s = kw
			}
			out = append(out, s)
		}
	}
	return out
}

// peers is a GnuPG home for gpg and a pgpstream home beside it, with a
// symmetric message gpg made (passphrase "pw") and plain.txt.
type peers struct {
	h       *gnupgtest.Home
	dir     string // the work directory
	pgpHome string
}

func newPeers(t *testing.T) *peers {
	h := gnupgtest.New(t)
	p := &peers{h: h, dir: t.TempDir()}
	p.pgpHome = filepath.Join(p.dir, "pgphome")
	if err := os.Mkdir(p.pgpHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "plain.txt"), []byte("hello, asked\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.gpg(t, nil, "--batch", "--pinentry-mode", "loopback", "--passphrase", "pw", "-c", "-o", "sym.gpg", "plain.txt")
	return p
}

func (p *peers) cmd(t *testing.T, gpg bool, args ...string) *exec.Cmd {
	var c *exec.Cmd
	if gpg {
		c = exec.Command("gpg", args...)
	} else {
		c = pgpstreamCmd(t, append([]string{"--homedir", p.pgpHome}, args...)...)
	}
	c.Dir = p.dir
	c.Env = p.h.Env()
	return c
}

func (p *peers) gpg(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	c := p.cmd(t, true, args...)
	c.Stdin = bytes.NewReader(stdin)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("gpg %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (p *peers) pgpstream(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	c := p.cmd(t, false, args...)
	c.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("pgpstream %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// both runs the same conversation with gpg and with pgpstream and
// returns the two (gpg's first). A failing gpg fails the test: the
// conversation itself is wrong.
func (p *peers) both(t *testing.T, answers []string, args ...string) (exchange, exchange) {
	t.Helper()
	g := converse(t, p.cmd(t, true, args...), replies(answers...))
	if g.err != nil {
		t.Fatalf("gpg %s: %v\n%s", strings.Join(args, " "), g.err, g.stderr)
	}
	q := converse(t, p.cmd(t, false, args...), replies(answers...))
	return g, q
}

func sameQuestions(t *testing.T, what string, g, q exchange) {
	t.Helper()
	gq, pq := questions(g.status), questions(q.status)
	if strings.Join(gq, "\n") != strings.Join(pq, "\n") {
		t.Errorf("%s: gpg asked\n\t%s\npgpstream asked\n\t%s\n(pgpstream: %v %s)", what, strings.Join(gq, "\n\t"), strings.Join(pq, "\n\t"), q.err, q.stderr)
	}
	if q.err != nil {
		t.Errorf("%s: pgpstream failed: %v\n%s", what, q.err, q.stderr)
	}
}

// replies answers each question from a queue, as a client would.
func replies(answers ...string) func(string) (string, bool) {
	return func(s string) (string, bool) {
		if strings.HasPrefix(s, "GET_") && len(answers) > 0 {
			a := answers[0]
			answers = answers[1:]
			return a + "\n", false
		}
		return "", false
	}
}

// The command protocol, with gpg 2.2 as the control: the same inputs and
// answers give the same questions in the same order.
func TestCommandFdLikeGpg(t *testing.T) {
	p := newPeers(t)
	loop := []string{"--status-fd", "2", "--command-fd", "0", "--pinentry-mode", "loopback", "--no-symkey-cache"}

	// A message's passphrase.
	g, q := p.both(t, []string{"pw"}, append(loop, "-d", "sym.gpg")...)
	sameQuestions(t, "decrypt", g, q)
	if !bytes.Equal(g.stdout, q.stdout) || string(q.stdout) != "hello, asked\n" {
		t.Errorf("decrypted %q, gpg %q", q.stdout, g.stdout)
	}

	// --passphrase-fd 0 beside --command-fd 0: its line is read first and
	// nothing is asked.
	for _, c := range []*exec.Cmd{p.cmd(t, true, append(loop, "--passphrase-fd", "0", "-d", "sym.gpg")...), p.cmd(t, false, append(loop, "--passphrase-fd", "0", "-d", "sym.gpg")...)} {
		c.Stdin = strings.NewReader("pw\n")
		out, err := c.CombinedOutput()
		if err != nil || bytes.Contains(out, []byte("GET_HIDDEN")) || !bytes.Contains(out, []byte("hello, asked")) {
			t.Errorf("%s with --passphrase-fd 0: %v\n%s", c.Path, err, out)
		}
	}

	// An existing output, no --yes: overwrite? (yes), and a new name
	// after a no.
	for _, tc := range []struct {
		name    string
		answers []string
		written string
	}{
		{"overwrite", []string{"pw", "y"}, "out.gpg"},
		{"new name", []string{"pw", "n", "renamed.gpg"}, "renamed.gpg"},
	} {
		var outs [2][]byte
		var ex [2]exchange
		for i, gpg := range []bool{true, false} {
			os.WriteFile(filepath.Join(p.dir, "out.gpg"), []byte("old\n"), 0o600)
			os.Remove(filepath.Join(p.dir, "renamed.gpg"))
			ex[i] = converse(t, p.cmd(t, gpg, append(loop, "--no-tty", "-o", "out.gpg", "-c", "plain.txt")...), replies(tc.answers...))
			outs[i], _ = os.ReadFile(filepath.Join(p.dir, tc.written))
			if !bytes.HasPrefix(outs[i], []byte{0x8c}) && !bytes.HasPrefix(outs[i], []byte{0xc3}) {
				t.Errorf("%s (gpg %v): %s holds %q", tc.name, gpg, tc.written, outs[i])
			}
		}
		if ex[0].err != nil {
			t.Fatalf("%s: gpg: %v %s", tc.name, ex[0].err, ex[0].stderr)
		}
		sameQuestions(t, tc.name, ex[0], ex[1])
		if got := p.pgpstream(t, nil, "--batch", "--passphrase", "pw", "-d", tc.written); string(got) != "hello, asked\n" {
			t.Errorf("%s: what pgpstream wrote decrypts to %q", tc.name, got)
		}
	}

	// --batch asks no yes/no question: the file stays.
	os.WriteFile(filepath.Join(p.dir, "out.gpg"), []byte("old\n"), 0o600)
	q = converse(t, p.cmd(t, false, append(loop, "--batch", "-o", "out.gpg", "-c", "plain.txt")...), replies("pw", "y"))
	if b, _ := os.ReadFile(filepath.Join(p.dir, "out.gpg")); q.err == nil || string(b) != "old\n" {
		t.Errorf("--batch overwrote without --yes: %v %q", q.err, b)
	}

	// The command fd ends before the answer: an error, not a hang, and
	// nothing written.
	os.Remove(filepath.Join(p.dir, "eof.gpg"))
	q = converse(t, p.cmd(t, false, append(loop, "-o", "eof.gpg", "-c", "plain.txt")...), func(string) (string, bool) { return "", true })
	if q.err == nil || !strings.Contains(q.stderr, "command fd ended") {
		t.Errorf("EOF on the command fd: %v %s", q.err, q.stderr)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "eof.gpg")); err == nil {
		t.Error("eof.gpg was written")
	}
}

// Emacs EPG encrypts a string this way: the passphrase when GET_HIDDEN
// asks, the data only after BEGIN_ENCRYPTION, both on standard input.
func TestCommandFdDataAfterAnswer(t *testing.T) {
	p := newPeers(t)
	for _, gpg := range []bool{true, false} {
		out := "epg-" + map[bool]string{true: "gpg", false: "pgpstream"}[gpg] + ".gpg"
		ex := converse(t, p.cmd(t, gpg, "--status-fd", "2", "--command-fd", "0", "--pinentry-mode", "loopback", "--no-symkey-cache", "--yes", "-o", out, "-c"), func(s string) (string, bool) {
			switch {
			case strings.HasPrefix(s, "GET_HIDDEN"):
				return "pw\n", false
			case strings.HasPrefix(s, "BEGIN_ENCRYPTION"):
				return "the data after the answer\n", true
			}
			return "", false
		})
		if ex.err != nil {
			t.Fatalf("gpg %v: %v %s", gpg, ex.err, ex.stderr)
		}
		if got := p.gpg(t, nil, "--batch", "-q", "--pinentry-mode", "loopback", "--passphrase", "pw", "--no-symkey-cache", "-d", out); string(got) != "the data after the answer\n" {
			t.Errorf("gpg %v: decrypts to %q", gpg, got)
		}
	}
}

// A protected key of pgpstream's own ring, asked for on the command fd as
// gpg asks for its own.
func TestCommandFdSecretKey(t *testing.T) {
	p := newPeers(t)
	p.h.GenKey("G <g@example.org>", "ed25519", "cv25519", "kp")
	p.gpg(t, nil, "--batch", "--trust-model", "always", "-r", "g@example.org", "-e", "-o", "g.gpg", "plain.txt")
	p.pgpstream(t, nil, "--batch", "--passphrase", "kp", "--quick-gen-key", "P <p@example.org>")
	p.pgpstream(t, nil, "--batch", "-r", "p@example.org", "-e", "-o", "p.gpg", "plain.txt")
	loop := []string{"--status-fd", "2", "--command-fd", "0", "--pinentry-mode", "loopback", "-d"}
	p.h.Try(nil, "gpgconf", "--kill", "gpg-agent") // nothing cached
	g := converse(t, p.cmd(t, true, append(loop, "g.gpg")...), replies("kp"))
	q := converse(t, p.cmd(t, false, append(loop, "p.gpg")...), replies("kp"))
	if g.err != nil {
		t.Fatal(g.err, g.stderr)
	}
	sameQuestions(t, "secret key", g, q)
	if string(q.stdout) != "hello, asked\n" {
		t.Errorf("decrypted %q", q.stdout)
	}
	// Signing asks the same way, after USERID_HINT (Emacs EPG answers
	// GET_HIDDEN only after a NEED_PASSPHRASE).
	p.h.Try(nil, "gpgconf", "--kill", "gpg-agent")
	sign := []string{"--status-fd", "2", "--command-fd", "0", "--pinentry-mode", "loopback", "-s", "-o", "-", "plain.txt"}
	g = converse(t, p.cmd(t, true, append([]string{"-u", "g@example.org"}, sign...)...), replies("kp"))
	q = converse(t, p.cmd(t, false, append([]string{"-u", "p@example.org"}, sign...)...), replies("kp"))
	if g.err != nil {
		t.Fatal(g.err, g.stderr)
	}
	sameQuestions(t, "signing key", g, q)
	if !strings.Contains(strings.Join(q.status, "\n"), "USERID_HINT ") {
		t.Errorf("signing: no USERID_HINT in %q", q.status)
	}

	// A wrong answer: one try, as gpg's loopback gives, and an error.
	p.h.Try(nil, "gpgconf", "--kill", "gpg-agent") // it cached the right one
	q = converse(t, p.cmd(t, false, append(loop, "p.gpg")...), replies("wrong", "kp"))
	if q.err == nil || len(q.stdout) != 0 || strings.Count(strings.Join(q.status, "\n"), "GET_HIDDEN") != 1 {
		t.Errorf("wrong passphrase: %v %q %q", q.err, q.stdout, q.status)
	}
}

// pgpstream's own keys and messages through gpg-agent's cache: asked once
// by the agent's pinentry, then not again; a wrong cached passphrase is
// cleared and asked again.
func TestAgentPassphraseCache(t *testing.T) {
	p := newPeers(t)
	pin := p.h.ScriptedPinentry("kp")
	p.pgpstream(t, nil, "--batch", "--passphrase", "kp", "--quick-gen-key", "P <p@example.org>")
	p.pgpstream(t, nil, "--batch", "-r", "p@example.org", "-e", "-o", "p.gpg", "plain.txt")
	grip := ""
	for _, l := range strings.Split(string(p.pgpstream(t, nil, "--with-colons", "--with-keygrip", "-K")), "\n") {
		if f := strings.Split(l, ":"); f[0] == "grp" {
			grip = f[9] // the last: the encryption subkey's
		}
	}
	if grip == "" {
		t.Fatal("no keygrip listed")
	}
	p.h.Run(nil, "gpgconf", "--launch", "gpg-agent")
	decrypt := func(args ...string) (string, error) {
		c := p.cmd(t, false, append(args, "-d", "p.gpg")...)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		out, err := c.Output()
		if err != nil {
			return stderr.String(), err
		}
		return string(out), nil
	}

	if out, err := decrypt(); err != nil || out != "hello, asked\n" {
		t.Fatalf("first: %v %s", err, out)
	}
	if asked := pin.Asked(); len(asked) != 1 || !strings.Contains(asked[0], "unlock the secret key") {
		t.Fatalf("first decryption: the pinentry asked %q", asked)
	}
	for _, args := range [][]string{nil, {"--batch"}, {"--pinentry-mode", "loopback", "--batch"}} {
		if out, err := decrypt(args...); err != nil || out != "hello, asked\n" {
			t.Fatalf("cached %q: %v %s", args, err, out)
		}
	}
	if asked := pin.Asked(); len(asked) != 0 {
		t.Fatalf("asked again although cached: %q", asked)
	}

	// A wrong passphrase in the cache: cleared, and the pinentry asks.
	p.h.Forget(grip)
	p.h.Preset(grip, "wrong")
	if out, err := decrypt(); err != nil || out != "hello, asked\n" {
		t.Fatalf("after a wrong cached passphrase: %v %s", err, out)
	}
	if asked := pin.Asked(); len(asked) != 1 {
		t.Fatalf("after a wrong cached passphrase the pinentry asked %q", asked)
	}
	if out, err := decrypt("--batch"); err != nil || out != "hello, asked\n" {
		t.Fatalf("the right passphrase was not cached: %v %s", err, out)
	}

	// --batch with nothing cached and no --passphrase: no pinentry, the
	// usual error.
	p.h.Forget(grip)
	if out, err := decrypt("--batch"); err == nil || !strings.Contains(out, "protected by a passphrase") {
		t.Fatalf("--batch, nothing cached: %v %s", err, out)
	}
	if asked := pin.Asked(); len(asked) != 0 {
		t.Fatalf("--batch showed the pinentry: %q", asked)
	}

	// --passphrase never reaches the agent.
	if out, err := decrypt("--passphrase", "kp"); err != nil || out != "hello, asked\n" {
		t.Fatalf("--passphrase: %v %s", err, out)
	}
	if asked := pin.Asked(); len(asked) != 0 {
		t.Fatalf("--passphrase showed the pinentry: %q", asked)
	}
}

// A message's passphrase is cached under gpg's id, S and the S2K salt:
// gpg and pgpstream share the entry. A wrong one is cleared.
func TestAgentSymmetricCache(t *testing.T) {
	p := newPeers(t)
	pin := p.h.ScriptedPinentry("pw")
	p.h.Run(nil, "gpgconf", "--launch", "gpg-agent")
	decrypt := func(gpg bool, args ...string) (string, error) {
		c := p.cmd(t, gpg, append(args, "-d", "sym.gpg")...)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		out, err := c.Output()
		if err != nil {
			return stderr.String(), err
		}
		return string(out), nil
	}
	if out, err := decrypt(false); err != nil || out != "hello, asked\n" {
		t.Fatalf("first: %v %s", err, out)
	}
	if asked := pin.Asked(); len(asked) != 1 {
		t.Fatalf("first: asked %q", asked)
	}
	// Cached, for pgpstream and for gpg (the same cache id).
	if out, err := decrypt(false, "--batch"); err != nil || out != "hello, asked\n" {
		t.Fatalf("pgpstream, cached: %v %s", err, out)
	}
	if out, err := decrypt(true, "--batch", "--pinentry-mode", "loopback"); err != nil || out != "hello, asked\n" {
		t.Fatalf("gpg, from what pgpstream cached: %v %s", err, out)
	}
	if asked := pin.Asked(); len(asked) != 0 {
		t.Fatalf("asked again although cached: %q", asked)
	}
	// --no-symkey-cache neither looks up nor stores.
	if out, err := decrypt(false, "--no-symkey-cache"); err != nil || out != "hello, asked\n" {
		t.Fatalf("--no-symkey-cache: %v %s", err, out)
	}
	if asked := pin.Asked(); len(asked) != 1 {
		t.Fatalf("--no-symkey-cache: asked %q", asked)
	}

	// What a new message is encrypted with is cached too, as gpg caches
	// it: asked twice by the pinentry, then neither pgpstream nor gpg asks
	// to decrypt it.
	os.Remove(filepath.Join(p.dir, "new.gpg"))
	p.pgpstream(t, nil, "-c", "-o", "new.gpg", "plain.txt")
	if asked := pin.Asked(); len(asked) != 2 {
		t.Fatalf("-c: the pinentry asked %q", asked)
	}
	for _, gpg := range []bool{false, true} {
		c := p.cmd(t, gpg, "--batch", "--pinentry-mode", "loopback", "-d", "new.gpg")
		if out, err := c.Output(); err != nil || string(out) != "hello, asked\n" {
			t.Fatalf("the new message's passphrase was not cached (gpg %v): %v %q", gpg, err, out)
		}
	}

	// A wrong cached passphrase fails the decryption and is cleared: the
	// next command asks.
	p.h.Run(nil, "gpgconf", "--kill", "gpg-agent")
	p.h.Run(nil, "gpgconf", "--launch", "gpg-agent")
	salt := ""
	for _, l := range strings.Split(string(p.gpg(t, nil, "--list-packets", "--list-only", "sym.gpg")), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "salt" {
			salt = strings.TrimSuffix(f[1], ",")
		}
	}
	p.h.Preset("S"+salt, "wrong")
	if out, err := decrypt(false); err == nil {
		t.Fatalf("a wrong cached passphrase decrypted: %s", out)
	}
	if asked := pin.Asked(); len(asked) != 0 {
		t.Fatalf("asked although cached: %q", asked)
	}
	if out, err := decrypt(false); err != nil || out != "hello, asked\n" {
		t.Fatalf("after clearing: %v %s", err, out)
	}
	if asked := pin.Asked(); len(asked) != 1 {
		t.Fatalf("the wrong passphrase was not cleared: asked %q", asked)
	}
}

// Loopback with the agent, as gpg: the first command asks on the command
// fd, the agent caches the answer, the next command asks nothing.
func TestCommandFdCachedLikeGpg(t *testing.T) {
	p := newPeers(t)
	loop := []string{"--status-fd", "2", "--command-fd", "0", "--pinentry-mode", "loopback", "-d", "sym.gpg"}
	for _, gpg := range []bool{true, false} {
		p.h.Run(nil, "gpgconf", "--kill", "gpg-agent")
		p.h.Run(nil, "gpgconf", "--launch", "gpg-agent")
		first := converse(t, p.cmd(t, gpg, loop...), replies("pw"))
		second := converse(t, p.cmd(t, gpg, loop...), replies("pw"))
		if first.err != nil || second.err != nil {
			t.Fatalf("gpg %v: %v %v %s %s", gpg, first.err, second.err, first.stderr, second.stderr)
		}
		if q := strings.Join(questions(first.status), " "); q != "NEED_PASSPHRASE_SYM GET_HIDDEN passphrase.enter GOT_IT" {
			t.Errorf("gpg %v, first: %s", gpg, q)
		}
		if q := strings.Join(questions(second.status), " "); q != "NEED_PASSPHRASE_SYM" {
			t.Errorf("gpg %v, second: %s", gpg, q)
		}
	}
}

// --list-only, gpg as the control: the same status lines and recipient
// lines, and nothing asked or decrypted.
func TestListOnlyLikeGpg(t *testing.T) {
	p := newPeers(t)
	p.h.GenKey("G <g@example.org>", "ed25519", "cv25519", "kp")
	p.gpg(t, nil, "--batch", "--trust-model", "always", "--pinentry-mode", "loopback", "--passphrase", "pw",
		"-r", "g@example.org", "-c", "-e", "-o", "both.gpg", "plain.txt")
	// pgpstream has the public key only; gpg is shown both ways.
	pub := p.gpg(t, nil, "--export", "g@example.org")
	p.pgpstream(t, pub, "--import")
	p.h.Run(nil, "gpg", "--batch", "--yes", "--delete-secret-keys", p.h.Fingerprints("g@example.org")[0])

	for _, file := range []string{"sym.gpg", "both.gpg"} {
		for _, cmd := range []string{"-d", "--list-packets"} {
			var got [2]exchange
			for i, gpg := range []bool{true, false} {
				got[i] = converse(t, p.cmd(t, gpg, "--batch", "--status-fd", "2", "--list-only", cmd, file), nil)
			}
			g, q := got[0], got[1]
			if g.err != nil || q.err != nil {
				t.Fatalf("%s %s: gpg %v, pgpstream %v\n%s", cmd, file, g.err, q.err, q.stderr)
			}
			if strings.Join(g.status, "\n") != strings.Join(q.status, "\n") {
				t.Errorf("%s %s: status\ngpg:\n%s\npgpstream:\n%s", cmd, file, strings.Join(g.status, "\n"), strings.Join(q.status, "\n"))
			}
			if cmd == "-d" {
				gl := strings.ReplaceAll(g.stderr, "gpg: ", "")
				ql := strings.ReplaceAll(q.stderr, "pgpstream: ", "")
				if gl != ql {
					t.Errorf("%s %s: messages\ngpg:\n%s\npgpstream:\n%s", cmd, file, g.stderr, q.stderr)
				}
				if len(q.stdout) != 0 {
					t.Errorf("%s %s: wrote %q", cmd, file, q.stdout)
				}
			}
		}
	}
}

// epgScript encrypts a string with a passphrase and decrypts it again
// through Emacs EPG in loopback mode, answering GET_HIDDEN from its
// passphrase callback (which counts its calls; EPG clears the string it
// is given, hence the copies); then it decrypts
// $EPG_KEYMSG, encrypted to a key protected by "kp".
const epgScript = `(require 'epg)
(setq epg-gpg-program (getenv "GPG")
      epg-gpg-home-directory (getenv "EPGHOME")
      epg-pinentry-mode 'loopback)
(epg-find-configuration 'OpenPGP 'no-cache) ; else the gpg found first is kept
(defvar asked 0)
(let ((ctx (epg-make-context 'OpenPGP)))
  (epg-context-set-passphrase-callback ctx (cons (lambda (_c key-id _h) (setq asked (1+ asked)) (copy-sequence (if (eq key-id 'SYM) "pw" "kp"))) nil))
  (setf (epg-context-armor ctx) t)
  (let* ((cipher (epg-encrypt-string ctx "hello from emacs\n" nil))
         (plain (epg-decrypt-string ctx cipher)))
    (unless (string-prefix-p "-----BEGIN PGP MESSAGE-----" cipher) (error "cipher: %S" cipher))
    (unless (equal plain "hello from emacs\n") (error "decrypt: %S" plain)))
  (let ((plain (epg-decrypt-file ctx (getenv "EPG_KEYMSG") nil)))
    (unless (equal plain "hello, asked\n") (error "key decrypt: %S" plain))))
(message "asked %d" asked)
`

// Emacs EPG drives --command-fd 0: the same script passes with gpg and
// with pgpstream, and the callback is asked as often.
func TestEmacsEPGLoopback(t *testing.T) {
	lookTool(t, "emacs")
	p := newPeers(t)
	p.h.GenKey("G <g@example.org>", "ed25519", "cv25519", "kp")
	p.gpg(t, nil, "--batch", "--trust-model", "always", "-r", "g@example.org", "-e", "-o", "g.gpg", "plain.txt")
	p.pgpstream(t, nil, "--batch", "--passphrase", "kp", "--quick-gen-key", "P <p@example.org>")
	p.pgpstream(t, nil, "--batch", "-r", "p@example.org", "-e", "-o", "p.gpg", "plain.txt")
	script := filepath.Join(p.dir, "epg.el")
	if err := os.WriteFile(script, []byte(epgScript), 0o600); err != nil {
		t.Fatal(err)
	}
	// EPG takes a program that says it is gpg: pgpstream built, named gpg.
	bin, err := clientBinary()
	if err != nil {
		t.Fatal(err)
	}
	asGpg := filepath.Join(p.dir, "bin", "gpg")
	os.Mkdir(filepath.Dir(asGpg), 0o700)
	for _, name := range []string{"gpg", "gpg2"} {
		if err := os.Symlink(bin, filepath.Join(p.dir, "bin", name)); err != nil {
			t.Fatal(err)
		}
	}
	realGpg, _ := exec.LookPath("gpg")
	var asked [3]string
	for i, run := range []struct{ prog, home, msg string }{
		{realGpg, p.h.Dir, "g.gpg"},
		{asGpg, p.pgpHome, "p.gpg"},
		{asGpg, p.h.Dir, "g.gpg"}, // gpg's home: the key is the agent's
	} {
		// Nothing cached. gpg starts its agent; pgpstream, in a home of
		// its own, uses the agent that runs for $GNUPGHOME, as on a
		// desktop where one always runs.
		p.h.Try(nil, "gpgconf", "--kill", "gpg-agent")
		if run.prog == asGpg && run.home != p.h.Dir {
			p.h.Run(nil, "gpgconf", "--launch", "gpg-agent")
		}
		prog := run.prog
		// EPG waits for a NEED_PASSPHRASE before it answers: a missing
		// one is a hang, ended here.
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		c := exec.CommandContext(ctx, "emacs", "--batch", "-Q", "-l", script)
		c.Dir = p.dir
		// EPG takes the first gpg2 or gpg on PATH whatever
		// epg-gpg-program says, as the client scenarios do.
		path := os.Getenv("PATH")
		if prog == asGpg {
			path = filepath.Dir(asGpg) + string(os.PathListSeparator) + path
		}
		c.Env = append(p.h.Env(), "PATH="+path, "GPG="+prog, "EPGHOME="+run.home, "EPG_KEYMSG="+filepath.Join(p.dir, run.msg))
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", run.prog, err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "asked ") {
				asked[i] = l
			}
		}
	}
	// The passphrase for encrypting (which the agent keeps, so
	// decrypting asks nothing), then the key's.
	if asked[0] != "asked 2" || asked[0] != asked[1] || asked[0] != asked[2] {
		t.Errorf("the callback was %q with gpg, %q with pgpstream, %q with pgpstream in gpg's home", asked[0], asked[1], asked[2])
	}
}
