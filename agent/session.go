package agent

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"golang.org/x/term"
)

// Session is a process's one connection to gpg-agent: the rule that
// finds the agent, what is told to it once connected, and the connection
// itself, opened the first time a user asks for it (Conn) and then shared
// by every user: the secret keys a GnuPG home's agent holds (keyring) and
// the passphrase cache and pinentry of the command line.
//
// The rule, gpg's where pgpstream's home is a GnuPG home:
//
//   - The socket is the one gpgconf names for the home (gpgconf --homedir
//     HOME --list-dirs agent-socket: gpg 2.1.13 and later put the default
//     home's under /run/user), else HOME/S.gpg-agent. A running agent
//     there is used, whatever is installed.
//   - In a GnuPG home (GnuPGHome) that agent is the only one: when none
//     runs it is started (gpgconf --launch gpg-agent), as gpg starts it,
//     unless NoAutostart (gpg's --no-autostart). Starting needs gpgconf.
//   - In a home that is pgpstream's alone, none is started there, where
//     it would make files of its own; a running agent of the home gpg
//     would use ($GNUPGHOME, else ~/.gnupg) serves the passphrase cache,
//     as it does on a desktop where one always runs.
//   - With no agent, Conn returns why; each user decides what that means
//     (the keyring's agent keys are unavailable, a passphrase is asked
//     without the agent).
//
// Once connected the session tells the agent where a pinentry may ask
// (SessionEnv: $GPG_TTY, else standard input's terminal, and the display)
// and the pinentry mode, once, as gpg tells them when it connects.
//
// A Session is not safe for concurrent use.
type Session struct {
	// Home is the home the agent is for: pgpstream's.
	Home string
	// GnuPGHome says Home is a GnuPG home (gpg's files or a
	// gpg-agent.conf there): its agent is the only one used, and it is
	// started when none runs.
	GnuPGHome bool
	// NoAutostart is gpg's --no-autostart: a running agent is used,
	// none is started.
	NoAutostart bool
	// PinentryMode is gpg's --pinentry-mode, told to the agent when the
	// session connects ("" and "default" leave the agent's own). A
	// request that needs another mode for itself (GetPassphrase) sets
	// it back afterwards.
	PinentryMode string
	// MayAsk becomes the connection's MayAsk.
	MayAsk func() (done func())

	tried   bool
	conn    *Conn
	err     error // why there is no connection
	modeErr error // why the agent refused PinentryMode
	answer  func(desc string) ([]byte, error)
}

// Conn is the session's connection, connected and configured the first
// time it is asked for; afterwards the same connection, or the same
// error, every time.
func (s *Session) Conn() (*Conn, error) {
	if !s.tried {
		s.tried = true
		s.conn, s.err = s.dial()
		if s.conn != nil {
			s.configure()
		}
	}
	return s.conn, s.err
}

// Opened is the connection if the session has connected, else nil: for
// what is done only with an agent already in use (clearing a cached
// passphrase), which never connects.
func (s *Session) Opened() *Conn { return s.conn }

// ModeError is why the agent refused the session's pinentry mode (a
// restricted socket, an agent forwarded over ssh, refuses loopback), or
// nil. The connection is still usable for what needs no pinentry.
func (s *Session) ModeError() error { return s.modeErr }

// AnswerPassphrase sets what answers the agent's passphrase inquiries
// in loopback mode (INQUIRE PASSPHRASE and NEW_PASSPHRASE, for a key's
// operation); the last one set answers. The session must be connected.
func (s *Session) AnswerPassphrase(get func(desc string) ([]byte, error)) {
	if s.conn == nil {
		return
	}
	if s.answer == nil {
		s.conn.AnswerPassphrase(func(desc string) ([]byte, error) { return s.answer(desc) })
	}
	s.answer = get
}

// Close ends the connection, if there is one.
func (s *Session) Close() {
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
}

// dial finds the agent by the rule in Session's comment.
func (s *Session) dial() (*Conn, error) {
	c, err := dialRunning(s.Home)
	if err == nil {
		return c, nil
	}
	if s.GnuPGHome {
		switch {
		case s.NoAutostart:
			return nil, fmt.Errorf("gpg-agent is not running at %s, and --no-autostart starts none", socketPath(s.Home))
		case !haveGpgconf():
			return nil, errors.New("gpg-agent is not running and gpgconf, which starts it, is not installed")
		}
		return dialStart(s.Home)
	}
	if g := gpgHome(); g != "" && g != s.Home {
		c, err = dialRunning(g)
	}
	return c, err
}

// configure tells a new connection what gpg tells the agent when it
// connects: where a pinentry may ask, then the pinentry mode.
func (s *Session) configure() {
	c := s.conn
	c.MayAsk = s.MayAsk
	c.SessionEnv(stdinTTY())
	switch s.PinentryMode {
	case "", "default":
	default:
		s.modeErr = c.Option("pinentry-mode", s.PinentryMode)
	}
}

func haveGpgconf() bool {
	_, err := exec.LookPath("gpgconf")
	return err == nil
}

// gpgHome is the home gpg uses without --homedir: $GNUPGHOME, else
// ~/.gnupg.
func gpgHome() string {
	if g := os.Getenv("GNUPGHOME"); g != "" {
		return g
	}
	if dir, err := os.UserHomeDir(); err == nil {
		return filepath.Join(dir, ".gnupg")
	}
	return ""
}

// stdinTTY is the terminal on standard input, for the agent's pinentry,
// or "" when standard input is no terminal (a pinentry cannot ask on a
// file or a pipe, nor on a device that is not a terminal).
func stdinTTY() string {
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return ""
	}
	name, err := os.Readlink("/proc/self/fd/0")
	if err != nil {
		return ""
	}
	return name
}
