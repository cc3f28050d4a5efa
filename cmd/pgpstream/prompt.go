package main

// How pgpstream asks is package ask (internal/ask): the given passphrase,
// gpg-agent's cache and pinentry, the command fd, the terminal. Here the
// options are handed over to it, once per invocation.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/agent"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/ask"
	"github.com/pgpstream/pgpstream/keyring"
)

// The dialogue's errors, as the commands test them.
var (
	errNoPassphrase = ask.ErrNoPassphrase
	errCommandEOF   = ask.ErrCommandEOF
)

// askerOf returns the invocation's asker (state.ask), opening its command
// fd and its status stream the first time; one per invocation, so a
// descriptor is read in order.
func askerOf(st *state, o *options) (*ask.Asker, error) {
	if st.ask != nil {
		return st.ask, nil
	}
	cfg := ask.Config{
		Yes: o.yes, Batch: o.batch, NoTTY: o.noTTY,
		PinentryMode:  o.pinentryMode,
		NoSymkeyCache: o.noSymkeyCache,
		Session:       func() *agent.Session { return agentSession(st, o) },
		Hold:          st.holdProgress,
		Infof:         st.infof,
	}
	switch {
	case o.commandFile != "":
		f, err := os.Open(o.commandFile)
		if err != nil {
			return nil, fmt.Errorf("--command-file: %w", err)
		}
		st.onCleanup(func() { f.Close() })
		cfg.Command = f
	case o.commandFd == 0:
		cfg.Command = st.stdin
	case o.commandFd > 0:
		f, err := readFD(st, "--command-fd", o.commandFd)
		if err != nil {
			return nil, err
		}
		cfg.Command = f
	}
	// The questions (and NEED_PASSPHRASE_SYM) go to the command's own
	// status stream.
	var err error
	if cfg.Status, err = openStatus(st, o); err != nil {
		return nil, err
	}
	st.ask = ask.New(cfg)
	return st.ask, nil
}

// passphrases is a command's passphrase source (ask.Passphrases).
type passphrases = ask.Passphrases

// newPassphrases is the passphrase source of one command; --passphrase-fd
// was read already, before the command read anything (readPassphraseFd).
func newPassphrases(st *state, o *options) *passphrases {
	return ask.NewPassphrases(ask.Given{
		Set: o.passphraseSet, Value: o.passphrase,
		File:   o.passphraseFile,
		Fd:     o.passphraseFd,
		OpenFd: func(option string, fd int) (io.Reader, error) { return readFD(st, option, fd) },
	}, func() (*ask.Asker, error) { return askerOf(st, o) })
}

// askOverwrite asks before an existing output file is replaced without
// --yes (ask.Asker.Overwrite).
func askOverwrite(st *state, o *options, path string) (string, error) {
	a, err := askerOf(st, o)
	if err != nil {
		return "", err
	}
	return a.Overwrite(path)
}

// askBool asks a yes-or-no question that --yes does not answer
// (ask.Asker.Bool).
func askBool(st *state, o *options, keyword, text, question string) (bool, error) {
	a, err := askerOf(st, o)
	if err != nil {
		return false, err
	}
	return a.Bool(keyword, text, question)
}

// askPasswd asks --passwd's two passphrases (ask.Asker.Passwd).
func askPasswd(st *state, o *options) (old, nw []byte, err error) {
	a, err := askerOf(st, o)
	if err != nil {
		return nil, nil, err
	}
	return a.Passwd()
}

// needPassphrase is the hint for signing key priv of k
// (ask.Asker.NeedPassphrase).
func needPassphrase(st *state, o *options, k *keyring.Key, priv *gcpacket.PrivateKey) func() {
	return func() {
		a, err := askerOf(st, o)
		if err != nil {
			return
		}
		a.NeedPassphrase(k, priv)
	}
}

// agentKeyHint announces the key of an agent's loopback inquiry on the
// command fd (ask.Asker.AgentKeyHint).
func agentKeyHint(st *state, o *options, p keyring.AgentPrompt) {
	a, err := askerOf(st, o)
	if err != nil {
		return
	}
	a.AgentKeyHint(p)
}

// agentSession is the invocation's one session with gpg-agent, which the
// keyring's secret keys of a GnuPG home and the passphrase questions
// share: made the first time it is asked for, connected the first time
// either needs the agent, closed when the command ends.
func agentSession(st *state, o *options) *agent.Session {
	if st.agent == nil {
		st.agent = &agent.Session{
			Home:         o.home,
			GnuPGHome:    isGnuPGHome(o.home),
			NoAutostart:  o.given("no-autostart"),
			PinentryMode: o.pinentryMode,
			MayAsk:       st.holdProgress, // the agent's pinentry may draw on this terminal
		}
		st.onCleanup(st.agent.Close)
	}
	return st.agent
}

// isGnuPGHome reports whether dir is a GnuPG home for gpg-agent: gpg's
// files are there (keyring.IsGnuPGHome), or a gpg-agent.conf. Only in
// such a home is an agent started; never in a home that is pgpstream's
// alone, where it would make its own files (private-keys-v1.d).
func isGnuPGHome(dir string) bool {
	if keyring.IsGnuPGHome(dir) {
		return true
	}
	_, err := os.Stat(filepath.Join(dir, "gpg-agent.conf"))
	return err == nil
}
