package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

// TestTOFUConcurrentWithGnuPG: gpg and pgpstream verifying at the same
// time in one home write one tofu.db at the same time, each waiting for
// the other's lock; no signature is lost or counted twice, and neither
// reports a database error.
func TestTOFUConcurrentWithGnuPG(t *testing.T) {
	signer := gnupgtest.New(t)
	fpr := signer.GenKey("Sig <sig@gpg.test>", "ed25519", "", "")
	dir := t.TempDir()
	const n = 16
	var sigs []string
	for i := range n {
		doc := filepath.Join(dir, fmt.Sprintf("doc%d", i))
		if err := os.WriteFile(doc, []byte(fmt.Sprintf("document %d\n", i)), 0o600); err != nil {
			t.Fatal(err)
		}
		signer.Run(nil, "gpg", "--batch", "-u", fpr, "-b", "-o", doc+".sig", doc)
		sigs = append(sigs, doc)
	}
	pub := signer.Run(nil, "gpg", "--export", fpr)

	reader := gnupgtest.New(t)
	reader.Run(pub, "gpg", "--batch", "--import")
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	verify := func(gpg bool, docs []string) {
		defer wg.Done()
		for _, doc := range docs {
			args := []string{"--batch", "--trust-model", "tofu", "--verify", doc + ".sig", doc}
			var out []byte
			var err error
			if gpg {
				_, err = reader.Try(nil, "gpg", args...)
			} else {
				c := pgpstreamCmd(t, append([]string{"--homedir", reader.Dir}, args...)...)
				c.Env = reader.Env()
				out, err = c.CombinedOutput()
				if err == nil && bytes.Contains(out, []byte("TOFU database")) {
					err = fmt.Errorf("%s", out)
				}
			}
			if err != nil {
				errs <- fmt.Errorf("gpg=%v %s: %v", gpg, filepath.Base(doc), err)
			}
		}
	}
	// Each verifies every signature, in opposite orders: they meet in
	// the middle, and a signature both saw still counts once.
	rev := make([]string, n)
	for i, d := range sigs {
		rev[n-1-i] = d
	}
	wg.Add(2)
	go verify(true, sigs)
	go verify(false, rev)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	want := regexp.MustCompile(fmt.Sprintf(`(?m)^tfs:1:\d:%d:0:auto:`, n))
	if out := reader.Run(nil, "gpg", "--trust-model", "tofu", "--with-tofu-info", "--with-colons", "-k", fpr); !want.Match(out) {
		t.Errorf("gpg's tfs record after %d signatures verified by the two:\n%s", n, out)
	}
	c := pgpstreamCmd(t, "--homedir", reader.Dir, "--trust-model", "tofu", "--with-tofu-info", "--with-colons", "-k", fpr)
	c.Env = reader.Env()
	if out, err := c.Output(); err != nil || !want.Match(out) {
		t.Errorf("pgpstream's tfs record (%v):\n%s", err, out)
	}
}
