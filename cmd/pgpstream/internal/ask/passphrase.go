package ask

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
	"golang.org/x/term"

	"github.com/pgpstream/pgpstream/agent"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/keyring"
)

// passRequest is one passphrase to get.
type passRequest struct {
	desc    string // what it is for, as the prompt and the pinentry say
	confirm bool   // a new passphrase: typed twice
	cacheID string // the agent's cache id; "" for none
}

// askPassphrase gets one passphrase as steps 2 to 4 of the package
// comment say. viaAgent tells the caller that the agent may have cached
// it, so that a wrong one is cleared.
func (a *Asker) askPassphrase(req passRequest) (pass []byte, viaAgent bool, err error) {
	cfg := &a.cfg
	// Nothing is drawn over the question: the prompt, the agent's
	// pinentry (curses, on this terminal) or the command fd's GET_HIDDEN.
	defer cfg.Hold()()
	switch cfg.PinentryMode {
	case "cancel", "error":
		return nil, false, ErrNoPassphrase
	}
	local := func() ([]byte, error) { return a.localPassphrase(req) }
	c := a.agentConn()
	if c == nil {
		if a.hint != nil {
			a.hint()
			a.hint = nil
		}
		p, err := local()
		return p, false, err
	}
	if req.cacheID != "" {
		p, err := c.GetPassphrase(agent.PassphraseRequest{CacheID: req.cacheID, NoAsk: true})
		if err == nil {
			cfg.Infof("passphrase from gpg-agent's cache (%s)", req.cacheID)
			return p, true, nil
		}
	}
	if a.hint != nil {
		a.hint()
		a.hint = nil
	}
	r := agent.PassphraseRequest{CacheID: req.cacheID, Desc: req.desc, Prompt: "Passphrase:"}
	if req.confirm {
		r.Repeat = 1
	}
	if cfg.PinentryMode == "loopback" || cfg.Batch || cfg.NoTTY {
		if req.cacheID == "" || req.confirm {
			// Nothing to cache: the agent would only pass the
			// question back.
			p, err := local()
			return p, false, err
		}
		r.Loopback = local
	}
	p, err := c.GetPassphrase(r)
	switch {
	case err == nil:
		return p, true, nil
	case errors.Is(err, agent.ErrCanceled):
		return nil, false, errors.New("the passphrase entry was canceled")
	case r.Loopback != nil:
		if errors.Is(err, ErrNoPassphrase) || errors.Is(err, ErrCommandEOF) {
			return nil, false, err
		}
	}
	// The agent could not ask (no pinentry, no terminal for it, loopback
	// refused): ask here.
	cfg.Infof("gpg-agent could not ask: %v", err)
	p, err = local()
	return p, false, err
}

// localPassphrase asks without the agent: the command fd, else the
// terminal.
func (a *Asker) localPassphrase(req passRequest) ([]byte, error) {
	if a.cfg.Command != nil {
		// gpg relays the agent's limit before the question.
		a.cfg.Status.Write(status.InquireMaxLen{Max: 100})
		return a.Command(status.GetHidden{Key: "passphrase.enter"})
	}
	if a.cfg.Batch || a.cfg.NoTTY {
		return nil, ErrNoPassphrase
	}
	return promptPassphrase(req.desc, req.confirm)
}

// agentConn is the invocation's gpg-agent connection, or nil when there
// is none (the session's rule: the agent of the home, started there when
// it is a GnuPG home unless --no-autostart; in a home that is
// pgpstream's alone, a running one of $GNUPGHOME or ~/.gnupg).
func (a *Asker) agentConn() *agent.Conn {
	if a.agentTried {
		return a.conn
	}
	a.agentTried = true
	if a.cfg.Session == nil {
		return nil
	}
	c, err := a.cfg.Session().Conn()
	if err != nil {
		a.cfg.Infof("no gpg-agent for the passphrase cache: %v", err)
		return nil
	}
	a.conn = c
	return c
}

// forget clears a cached passphrase that turned out wrong.
func (a *Asker) forget(cacheID string) {
	if a.conn != nil && cacheID != "" {
		a.conn.ForgetPassphrase(cacheID)
	}
}

// NeedPassphrase announces the question for signing key priv of k:
// USERID_HINT <key id> <user id> and NEED_PASSPHRASE <key id> <primary
// key id> <algo> 0, as gpg writes them before it asks.
func (a *Asker) NeedPassphrase(k *keyring.Key, priv *gcpacket.PrivateKey) {
	id := fmt.Sprintf("%016X", priv.KeyId)
	a.cfg.Status.Write(status.UserIDHint{KeyID: id, UserID: status.Text(k.PrimaryUserID())})
	a.cfg.Status.Write(status.NeedPassphrase{KeyID: id, MainKeyID: fmt.Sprintf("%016X", k.KeyID()), PubAlgo: int(priv.PubKeyAlgo), KeyLen: 0})
}

// AgentKeyHint announces, before the command fd is asked for the
// passphrase of a key a GnuPG home's agent holds (loopback), which key it
// is, as gpg does: USERID_HINT <key ID> <user ID> and NEED_PASSPHRASE
// <key ID> <key ID> 0 0. Emacs EPG answers GET_HIDDEN only after a
// NEED_PASSPHRASE. The key comes from the keyring with the inquiry
// (keyring.AgentPrompt). Nothing is written without a command fd, or
// for an inquiry about a key that is not one of the ring's.
func (a *Asker) AgentKeyHint(p keyring.AgentPrompt) {
	if a.cfg.Command == nil || p.KeyID == 0 {
		return
	}
	id := fmt.Sprintf("%016X", p.KeyID)
	a.cfg.Status.Write(status.UserIDHint{KeyID: id, UserID: status.Text(p.UserID)})
	a.cfg.Status.Write(status.NeedPassphrase{KeyID: id, MainKeyID: id, PubAlgo: 0, KeyLen: 0})
}

// NewPassphrase asks for a new passphrase, typed twice on a terminal or
// pinentry; desc says what it is for.
func (a *Asker) NewPassphrase(desc string) ([]byte, error) {
	p, _, err := a.askPassphrase(passRequest{desc: desc, confirm: true})
	return p, err
}

// Passwd asks --passwd's two passphrases, as gpg asks them: the
// current one, then the new one, typed twice on a terminal or pinentry
// (once on the command fd, as gpg's loopback asks). ErrNoPassphrase when
// there is no one to ask.
func (a *Asker) Passwd() (old, nw []byte, err error) {
	if old, _, err = a.askPassphrase(passRequest{desc: "Enter the passphrase that protects the key now."}); err != nil {
		return nil, nil, err
	}
	nw, _, err = a.askPassphrase(passRequest{desc: "Enter the new passphrase for the key (empty: none).", confirm: true})
	return old, nw, err
}

// promptPassphrase asks on the controlling terminal, never on standard
// input, which may be carrying the message. desc says what the passphrase
// is for (which key, or the message), as gpg's pinentry does. With
// confirm it is asked twice, and two different answers are refused.
func promptPassphrase(desc string, confirm bool) ([]byte, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, ErrNoPassphrase
	}
	defer tty.Close()
	return promptOn(tty, int(tty.Fd()), desc, confirm)
}

// promptOn is promptPassphrase on an open terminal (fd is its
// descriptor, for reading without echo).
func promptOn(tty io.Writer, fd int, desc string, confirm bool) ([]byte, error) {
	if desc != "" {
		fmt.Fprintln(tty, desc)
	}
	fmt.Fprint(tty, "Passphrase: ")
	p, err := term.ReadPassword(fd)
	fmt.Fprintln(tty)
	if err != nil {
		return nil, ErrNoPassphrase
	}
	if confirm {
		fmt.Fprint(tty, "Repeat passphrase: ")
		q, err := term.ReadPassword(fd)
		fmt.Fprintln(tty)
		if err != nil {
			return nil, ErrNoPassphrase
		}
		if !bytes.Equal(p, q) {
			return nil, errors.New("the passphrases do not match")
		}
	}
	return p, nil
}
