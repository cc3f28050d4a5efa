package ask

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/agent"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/internal/bounded"
	"github.com/pgpstream/pgpstream/keygrip"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

// Given is the passphrase the command line gives (step 1 of the package
// comment): one source at most, as the options' check makes sure.
type Given struct {
	Set   bool   // --passphrase (or --passphrase-fd, once read)
	Value string // what --passphrase gave
	File  string // --passphrase-file
	Fd    int    // --passphrase-fd; -1 for none
	// OpenFd opens the descriptor of option, as the command line named
	// it.
	OpenFd func(option string, fd int) (io.Reader, error)
}

// Passphrases gets the one passphrase a command may use, from
// --passphrase, --passphrase-file, --passphrase-fd or, outside --batch,
// the terminal. A descriptor can be read only once, so the answer is kept.
type Passphrases struct {
	given Given
	asker func() (*Asker, error)
	a     *Asker // once asker gave it
	value []byte
	err   error
	done  bool
	desc  string   // what the terminal prompt says it is for
	sym   symState // a message's passphrase, when asked
}

// NewPassphrases is the passphrase source of one command: given, else
// asked through the invocation's asker, which asker returns (opening it
// the first time).
func NewPassphrases(given Given, asker func() (*Asker, error)) *Passphrases {
	return &Passphrases{given: given, asker: asker}
}

func (p *Passphrases) getAsker() (*Asker, error) {
	a, err := p.asker()
	if err == nil {
		p.a = a
	}
	return a, err
}

// GetFor is Get with the prompt naming what the passphrase is for.
func (p *Passphrases) GetFor(desc string, confirm bool) ([]byte, error) {
	if !p.done {
		p.desc = desc
	}
	return p.Get(confirm)
}

// Get returns the passphrase; confirm asks twice on a terminal (for
// encryption, where a typo would lock the data away).
func (p *Passphrases) Get(confirm bool) ([]byte, error) {
	if p.done {
		return p.value, p.err
	}
	p.done = true
	p.value, p.err = p.Read(confirm)
	return p.value, p.err
}

// Read reads the given passphrase, or asks for one, without keeping it.
func (p *Passphrases) Read(confirm bool) ([]byte, error) {
	g := p.given // one source at most (options.check)
	switch {
	case g.Set:
		return []byte(g.Value), nil
	case g.File != "":
		b, err := bounded.ReadLines(g.File, 1, bounded.Line)
		if err != nil {
			return nil, fmt.Errorf("reading the passphrase: %w", err)
		}
		return firstLine(b), nil
	case g.Fd >= 0:
		fd := g.Fd
		r, err := g.OpenFd("--passphrase-fd", fd)
		if err != nil {
			return nil, err
		}
		b, err := ReadFDLine(r)
		if err != nil {
			return nil, fmt.Errorf("reading the passphrase from fd %d: %w", fd, err)
		}
		return b, nil
	}
	return p.ask(confirm)
}

// firstLine is a passphrase file's first line as gpg 2.2.40 takes it:
// up to the newline, without it; a CR before it is part of the
// passphrase, and a file without a newline is one line.
func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return b
}

// ReadFDLine reads a line of a -fd option's descriptor (--passphrase-fd,
// --override-session-key-fd) up to a newline without reading past it, so
// the rest of the descriptor (perhaps the message itself on standard
// input) is left. An empty descriptor gives an empty line.
func ReadFDLine(r io.Reader) ([]byte, error) {
	b, err := ReadLine(r)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, nil
	}
	return b, err
}

// fixed reports whether the command line gave the passphrase (step 1).
func (p *Passphrases) fixed() bool {
	g := p.given
	return g.Set || g.File != "" || g.Fd >= 0
}

// ask is Read's last step: no passphrase was given, so one is asked.
func (p *Passphrases) ask(confirm bool) ([]byte, error) {
	a, err := p.getAsker()
	if err != nil {
		return nil, err
	}
	pass, _, err := a.askPassphrase(passRequest{desc: p.desc, confirm: confirm})
	return pass, err
}

// UnlockKey unlocks one of pgpstream's own secret keys: with the given
// passphrase, else through the agent's cache under the key's keygrip,
// else asked, up to three times on a terminal or pinentry (once on the
// command fd, as gpg's loopback asks once). A cached passphrase that is
// wrong is cleared and the question asked.
//
// hint, when set, writes the status lines that announce a question (gpg's
// USERID_HINT and NEED_PASSPHRASE, which Emacs EPG needs before it
// answers GET_HIDDEN); it is called once, before the first question the
// agent's cache does not answer.
func (p *Passphrases) UnlockKey(priv *gcpacket.PrivateKey, desc string, unlock func([]byte) error, hint func()) error {
	if p.fixed() {
		pass, err := p.GetFor(desc, false)
		if err != nil {
			return err
		}
		return unlock(pass)
	}
	a, err := p.getAsker()
	if err != nil {
		return err
	}
	req := passRequest{desc: desc}
	if g, err := keygrip.Of(&priv.PublicKey); err == nil {
		req.cacheID = g.String()
	}
	tries := 3
	if a.cfg.Command != nil {
		tries = 1
	}
	a.hint = hint
	defer func() { a.hint = nil }()
	for i := 0; ; i++ {
		pass, viaAgent, err := a.askPassphrase(req)
		if err != nil {
			return err
		}
		err = unlock(pass)
		if err == nil || !errors.Is(err, keyring.ErrBadPassphrase) {
			return err
		}
		if viaAgent {
			a.forget(req.cacheID)
		}
		if i+1 >= tries {
			return err
		}
		req.desc = "Bad passphrase; try again.\n" + desc
	}
}

// Symmetric gets a message's passphrase: for a new message,
// NEED_PASSPHRASE_SYM <cipher> <s2k mode> <s2k hash> first, as gpg writes
// it whatever the source; then
// the given passphrase, or the agent's cache under the S2K salt, or
// asked (typed twice when confirm: a new message's).
func (p *Passphrases) Symmetric(desc string, cipher packet.CipherAlgo, mode, hash byte, salt []byte, confirm bool) ([]byte, error) {
	a, err := p.getAsker()
	if err != nil {
		return nil, err
	}
	if confirm {
		// A new message's; a read one's is written as its SKESK is
		// read (decryptStatus.skeskRead).
		a.cfg.Status.Write(status.NeedPassphraseSym{Cipher: int(cipher), S2K: int(mode), Hash: int(hash)})
	}
	if p.fixed() {
		return p.GetFor(desc, confirm)
	}
	s := &p.sym
	if s.done {
		return s.pass, s.err
	}
	s.done = true
	req := passRequest{desc: desc, confirm: confirm}
	if !a.cfg.NoSymkeyCache && !confirm {
		req.cacheID = agent.SymmetricCacheID(salt)
	}
	pass, viaAgent, err := a.askPassphrase(req)
	if viaAgent {
		s.cacheID = req.cacheID
	}
	s.pass, s.err, s.asked = pass, err, err == nil
	return pass, err
}

// symState is what Passphrases keeps of a message's passphrase once
// asked: one answer per command, and the cache id to clear if wrong.
type symState struct {
	done    bool
	pass    []byte
	err     error
	cacheID string
	asked   bool // asked (not given), so the agent may keep it
}

// CacheNew puts the passphrase of a new message encrypted with an asked
// one into the agent's cache, under the S2K salt of the message's first
// SKESK (res, what filter.Encrypt wrote), answering the agent's loopback
// inquiry itself: gpg caches what it encrypts with, so decrypting the
// message next asks nothing.
func (p *Passphrases) CacheNew(res *filter.EncryptResult) {
	// Asked means Symmetric had the asker.
	if !p.sym.asked || p.a == nil || p.a.cfg.NoSymkeyCache || p.a.conn == nil || len(res.SKESKs) == 0 {
		return
	}
	_, _, salt := res.SKESKs[0].S2K()
	if salt == nil {
		return
	}
	pass := p.sym.pass
	_, err := p.a.conn.GetPassphrase(agent.PassphraseRequest{
		CacheID: agent.SymmetricCacheID(salt), Desc: "pgpstream caches a new message's passphrase",
		Loopback: func() ([]byte, error) { return pass, nil },
	})
	if err != nil {
		p.a.cfg.Infof("gpg-agent did not cache the passphrase: %v", err)
	}
}

// ForgetSymmetric clears the message's passphrase from the agent's cache
// after it failed to decrypt, as gpg does.
func (p *Passphrases) ForgetSymmetric() {
	if p.sym.cacheID != "" && p.a != nil {
		p.a.forget(p.sym.cacheID)
	}
}
