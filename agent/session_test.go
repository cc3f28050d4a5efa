package agent

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/internal/gnupgtest"
)

func socketGone(t *testing.T, home string) bool {
	t.Helper()
	_, err := os.Stat(socketPath(home))
	return os.IsNotExist(err)
}

// stop stops h's agent and waits (up to 5 s) for its socket to go:
// gpgconf returns before the agent is gone.
func stop(t *testing.T, h *gnupgtest.Home) {
	t.Helper()
	h.Try(nil, "gpgconf", "--kill", "gpg-agent")
	for i := 0; i < 100 && !socketGone(t, h.Dir); i++ {
		time.Sleep(50 * time.Millisecond)
	}
}

// In a GnuPG home the session starts the home's agent, once, unless
// --no-autostart; the connection is the same for every user.
func TestSessionGnuPGHome(t *testing.T) {
	h := gnupgtest.New(t)
	stop(t, h)

	off := &Session{Home: h.Dir, GnuPGHome: true, NoAutostart: true}
	if c, err := off.Conn(); c != nil || err == nil || !strings.Contains(err.Error(), "--no-autostart") {
		t.Fatalf("--no-autostart, no agent: %v %v", c, err)
	}
	if !socketGone(t, h.Dir) {
		t.Fatal("--no-autostart started the agent")
	}

	s := &Session{Home: h.Dir, GnuPGHome: true}
	if s.Opened() != nil {
		t.Fatal("connected before asked")
	}
	c, err := s.Conn()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if again, _ := s.Conn(); again != c || s.Opened() != c {
		t.Fatal("a second Conn dialed again")
	}
	if _, err := c.Version(); err != nil {
		t.Fatal(err)
	}

	// A running agent is used with --no-autostart too.
	running := &Session{Home: h.Dir, GnuPGHome: true, NoAutostart: true}
	if _, err := running.Conn(); err != nil {
		t.Fatalf("--no-autostart, agent running: %v", err)
	}
	running.Close()
}

// In a home that is pgpstream's alone nothing is started; a running
// agent of $GNUPGHOME serves.
func TestSessionOwnHome(t *testing.T) {
	h := gnupgtest.New(t)
	own, err := os.MkdirTemp("/tmp", "po")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(own)
	t.Setenv("GNUPGHOME", h.Dir)
	stop(t, h)

	s := &Session{Home: own}
	if _, err := s.Conn(); err == nil {
		t.Fatal("connected with no agent running anywhere")
	}
	if !socketGone(t, own) || !socketGone(t, h.Dir) {
		t.Fatal("an agent was started for a home that is not a GnuPG home")
	}

	h.Run(nil, "gpgconf", "--launch", "gpg-agent")
	s = &Session{Home: own}
	c, err := s.Conn()
	if err != nil {
		t.Fatalf("$GNUPGHOME's agent: %v", err)
	}
	defer s.Close()
	if _, err := c.Version(); err != nil {
		t.Fatal(err)
	}
	if !socketGone(t, own) {
		t.Fatal("an agent was started in the home of its own")
	}
}

// The session's pinentry mode is told once; GET_PASSPHRASE in loopback
// sets it back, so the keyring's operations on the same connection keep
// the mode the command line gave; an inquiry's answer cannot send a
// command of its own.
func TestSessionMode(t *testing.T) {
	h := gnupgtest.New(t)
	for _, mode := range []string{"", "ask", "loopback"} {
		s := &Session{Home: h.Dir, GnuPGHome: true, PinentryMode: mode}
		c, err := s.Conn()
		if err != nil || s.ModeError() != nil {
			t.Fatalf("%q: %v %v", mode, err, s.ModeError())
		}
		var inner error
		_, err = c.GetPassphrase(PassphraseRequest{CacheID: "S4444444444444444", Desc: "loop", Loopback: func() ([]byte, error) {
			_, inner = c.Version()
			return []byte("looped"), nil
		}})
		if err != nil {
			t.Fatalf("%q: loopback: %v", mode, err)
		}
		if inner == nil {
			t.Errorf("%q: a command was sent from an inquiry's answer", mode)
		}
		if want := modeOrAsk(mode); c.mode != want {
			t.Errorf("%q: after a loopback GET_PASSPHRASE the mode is %q", mode, c.mode)
		}
		if _, err := c.Version(); err != nil {
			t.Fatalf("%q: out of step: %v", mode, err)
		}
		c.ForgetPassphrase("S4444444444444444")
		s.Close()
	}
}
