package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestInterop runs testdata/interop: each script has one peer (gpg, rnp or
// sq) make keys and messages for pgpstream, or read what pgpstream made.
// The peers run live, so the scripts catch drift in either implementation;
// TestPeerCorpus keeps a frozen copy of their output for machines without
// them.
func TestInterop(t *testing.T) {
	p := scriptParams("testdata/interop")
	setup := p.Setup
	p.Setup = func(e *testscript.Env) error {
		if err := setup(e); err != nil {
			return err
		}
		// gpg starts a gpg-agent per GNUPGHOME that outlives the script;
		// stop it even when the script fails halfway.
		home := e.Getenv("GNUPGHOME")
		e.Defer(func() { stopAgent(home) })
		return nil
	}
	if _, ok := p.Cmds["payload"]; !ok {
		t.Fatal("the interop scripts need the payload command from scriptCmds")
	}
	testscript.Run(t, p)
}

// peerMessage is one message a peer made, with what decrypts it.
type peerMessage struct {
	msg  string // file in testdata/peers
	key  string // secret key to import first, or "" for a passphrase
	pass string // passphrase for the message or for the key
	want string // plaintext file
}

// peerCorpus is testdata/peers; its README says how each file was made.
var peerCorpus = []peerMessage{
	{"gpg-rsa3072.pgp", "gpg-rsa3072-sec.pgp", "", "plain.txt"},
	{"gpg-rsa3072-empty.pgp", "gpg-rsa3072-sec.pgp", "", "empty.txt"},
	{"gpg-ed25519.asc", "gpg-ed25519-sec.asc", "key secret", "plain.txt"},
	{"gpg-nistp256-bzip2.pgp", "gpg-nistp256-sec.asc", "", "plain.txt"},
	{"gpg-symmetric.asc", "", "message secret", "plain.txt"},
	{"gpg-symmetric-bzip2.pgp", "", "message secret", "plain.txt"},

	{"rnp-rsa3072.pgp", "rnp-rsa3072-sec.pgp", "", "plain.txt"},
	{"rnp-ed25519.asc", "rnp-ed25519-sec.asc", "key secret", "plain.txt"},
	{"rnp-nistp256-zlib.pgp", "rnp-nistp256-sec.asc", "", "plain.txt"},
	{"rnp-symmetric.asc", "", "message secret", "plain.txt"},

	{"sq-rsa3k.asc", "sq-rsa3k-sec.pgp", "", "plain.txt"},
	{"sq-cv25519.asc", "sq-cv25519-sec.asc", "", "plain.txt"},
	{"sq-cv25519-empty.pgp", "sq-cv25519-sec.asc", "", "empty.txt"},
	{"sq-cv25519-bzip2.pgp", "sq-cv25519-sec.asc", "", "plain.txt"},
	{"sq-symmetric.asc", "", "message secret", "plain.txt"},
}

// TestPeerCorpus decrypts messages that gpg, rnp and sq made, with
// pgpstream in-process, so regressions show even where no peer is
// installed.
func TestPeerCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "peers")
	for _, m := range peerCorpus {
		t.Run(strings.TrimSuffix(m.msg, filepath.Ext(m.msg)), func(t *testing.T) {
			home := t.TempDir()
			if m.key != "" {
				if code, _, stderr := runInProcess(nil, "--homedir", home, "--batch", "--import", filepath.Join(dir, m.key)); code != 0 {
					t.Fatalf("--import %s: exit %d\n%s", m.key, code, stderr)
				}
			}
			args := []string{"--homedir", home, "--batch", "--decrypt", filepath.Join(dir, m.msg)}
			if m.pass != "" {
				args = append([]string{"--passphrase", m.pass}, args...)
			}
			code, stdout, stderr := runInProcess(nil, args...)
			if code != 0 {
				t.Fatalf("--decrypt %s: exit %d\n%s", m.msg, code, stderr)
			}
			want, err := os.ReadFile(filepath.Join(dir, m.want))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(stdout, want) {
				t.Errorf("--decrypt %s: got %d bytes %q, want %d bytes %q", m.msg, len(stdout), trunc(stdout), len(want), trunc(want))
			}
		})
	}

	// Every message in the directory is in the table, so a file added
	// without an entry is not silently skipped.
	listed := map[string]bool{}
	for _, m := range peerCorpus {
		listed[m.msg], listed[m.key], listed[m.want] = true, true, true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if n := e.Name(); !listed[n] && n != "README.md" && n != "regenerate.sh" {
			t.Errorf("testdata/peers/%s is not in peerCorpus", n)
		}
	}
}

func trunc(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}
