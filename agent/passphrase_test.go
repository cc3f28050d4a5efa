package agent

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

func TestSymmetricCacheID(t *testing.T) {
	if got := SymmetricCacheID([]byte{0x1a, 0xa0, 0x31, 0xd8, 0xdc, 0xee, 0x38, 0x1b}); got != "S1AA031D8DCEE381B" {
		t.Fatalf("cache id %q", got)
	}
	if SymmetricCacheID(nil) != "" {
		t.Fatal("no salt, no cache id")
	}
}

// The agent's cache as pgpstream uses it for its own keys: a preset
// passphrase is answered without a pinentry, a forgotten one is not, and
// a pinentry's answer is cached for the next ask.
func TestGetPassphrase(t *testing.T) {
	h := gnupgtest.New(t)
	pin := h.ScriptedPinentry("typed")
	h.Preset("S0102030405060708", "preset-pw")
	c, err := dialRunning(h.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	got, err := c.GetPassphrase(PassphraseRequest{CacheID: "S0102030405060708", NoAsk: true})
	if err != nil || string(got) != "preset-pw" {
		t.Fatalf("cached: %q %v", got, err)
	}
	if err := c.ForgetPassphrase("S0102030405060708"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetPassphrase(PassphraseRequest{CacheID: "S0102030405060708", NoAsk: true}); !errors.Is(err, ErrNotCached) {
		t.Fatalf("after CLEAR_PASSPHRASE: %v", err)
	}
	if asked := pin.Asked(); len(asked) != 0 {
		t.Fatalf("the pinentry was shown for cached passphrases: %q", asked)
	}

	// Not cached: the pinentry asks, with the description, and the
	// answer is cached under the id.
	id := "S1111111111111111"
	got, err = c.GetPassphrase(PassphraseRequest{CacheID: id, Desc: "Enter the passphrase for test.pgp", Prompt: "Passphrase:"})
	if err != nil || string(got) != "typed" {
		t.Fatalf("from the pinentry: %q %v", got, err)
	}
	if asked := pin.Asked(); len(asked) != 1 || !strings.Contains(asked[0], "test.pgp") {
		t.Fatalf("pinentry asked %q", asked)
	}
	pin.Set("other")
	if got, err = c.GetPassphrase(PassphraseRequest{CacheID: id, Desc: "again"}); err != nil || string(got) != "typed" {
		t.Fatalf("second ask: %q %v", got, err)
	}
	if asked := pin.Asked(); len(asked) != 0 {
		t.Fatalf("asked again although cached: %q", asked)
	}

	// A new passphrase is typed twice; no cache id bypasses the cache.
	if got, err = c.GetPassphrase(PassphraseRequest{Desc: "new", Repeat: 1}); err != nil || string(got) != "other" {
		t.Fatalf("repeat: %q %v", got, err)
	}
	if asked := pin.Asked(); len(asked) != 2 || !strings.Contains(asked[1], "re-enter") {
		// A pinentry without SETREPEAT is asked a second time by the
		// agent, which compares the two.
		t.Fatalf("repeat asked %q", asked)
	}

	// Loopback: the caller answers in the pinentry's place, and the
	// agent caches the answer as it would the pinentry's.
	calls := 0
	loop := func() ([]byte, error) { calls++; return []byte("looped"), nil }
	if got, err = c.GetPassphrase(PassphraseRequest{CacheID: "S3333333333333333", Desc: "loop", Loopback: loop}); err != nil || string(got) != "looped" || calls != 1 {
		t.Fatalf("loopback: %q %v (%d calls)", got, err, calls)
	}
	if got, err = c.GetPassphrase(PassphraseRequest{CacheID: "S3333333333333333", NoAsk: true}); err != nil || string(got) != "looped" {
		t.Fatalf("loopback answer not cached: %q %v", got, err)
	}
	if asked := pin.Asked(); len(asked) != 0 {
		t.Fatalf("the pinentry was shown in loopback mode: %q", asked)
	}

	// A canceled pinentry is ErrCanceled.
	pin.Set("")
	if _, err = c.GetPassphrase(PassphraseRequest{CacheID: "S2222222222222222", Desc: "cancel me"}); !errors.Is(err, ErrCanceled) {
		t.Fatalf("canceled: %v", err)
	}
}

func TestDialRunningStartsNothing(t *testing.T) {
	h := gnupgtest.New(t)
	h.Try(nil, "gpgconf", "--kill", "gpg-agent")
	if _, err := dialRunning(h.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no agent running: %v", err)
	}
}
