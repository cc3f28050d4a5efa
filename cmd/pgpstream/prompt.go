package main

// How pgpstream asks, in gpg's order:
//
//  1. --passphrase, --passphrase-file, --passphrase-fd: the one passphrase
//     given, for every key and message of the command (passphrases, keys.go).
//  2. gpg-agent's cache, under gpg's cache ids: the keygrip for a secret
//     key of pgpstream's own ring, "S" and the hex of the S2K salt for a
//     message's passphrase (not with --no-symkey-cache). A passphrase that
//     turns out wrong is cleared from it, as gpg clears it.
//  3. Asking: through the agent, whose pinentry asks (outside --batch,
//     unless --pinentry-mode loopback) and caches the answer; in loopback
//     mode the agent asks pgpstream back, which asks as in 4, and the
//     agent caches that answer too.
//  4. --command-fd N (or --command-file): gpg's command protocol. The
//     question goes to the status stream ("[GNUPG:] GET_HIDDEN
//     passphrase.enter", GET_BOOL or GET_LINE with the question's
//     keyword), one line is read from N as the answer, and "[GNUPG:]
//     GOT_IT" follows. The line is read only when a question is asked, so
//     with --command-fd 0 the message on standard input comes after it,
//     as clients (Emacs EPG, GPGME) write it. Otherwise the terminal,
//     never standard input, outside --batch and --no-tty.
//
// --pinentry-mode cancel or error asks nothing: only 1 applies.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
	"golang.org/x/term"

	"github.com/pgpstream/pgpstream/agent"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/keygrip"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

// asker is an invocation's way of asking questions: its command fd, its
// agent (the connection of the invocation's agent session, which the
// keyring shares). One per invocation (state.ask), so a descriptor is
// read in order.
type asker struct {
	st         *state
	o          *options
	cmd        io.Reader     // --command-fd/--command-file; nil without
	status     *statusWriter // where GET_* lines go (nil: nowhere)
	conn       *agent.Conn
	agentTried bool
	hint       func() // announces the next question (unlockKey)
}

// askerOf returns the invocation's asker, opening its command fd the
// first time.
func askerOf(st *state, o *options) (*asker, error) {
	if st.ask != nil {
		return st.ask, nil
	}
	a := &asker{st: st, o: o}
	switch {
	case o.commandFile != "":
		f, err := os.Open(o.commandFile)
		if err != nil {
			return nil, fmt.Errorf("--command-file: %w", err)
		}
		st.onCleanup(func() { f.Close() })
		a.cmd = f
	case o.commandFd == 0:
		a.cmd = st.stdin
	case o.commandFd > 0:
		f, err := readFD(st, "--command-fd", o.commandFd)
		if err != nil {
			return nil, err
		}
		a.cmd = f
	}
	var err error
	if a.status, err = questionStatus(st, o); err != nil {
		return nil, err
	}
	st.ask = a
	return a, nil
}

// questionStatus is the status stream the questions (and
// NEED_PASSPHRASE_SYM) go to: the command's own.
func questionStatus(st *state, o *options) (*statusWriter, error) { return openStatus(st, o) }

// errCommandEOF: the command fd ended before it answered.
var errCommandEOF = errors.New("the command fd ended before answering")

// command asks one question on the command fd: GET_<kind> keyword, one
// line read (without reading past it), GOT_IT.
func (a *asker) command(q status.Question) ([]byte, error) {
	a.status.Write(q)
	kind, keyword := q.Keyword(), q.Name()
	line, err := readCommandLine(a.cmd)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%s %s: %w", kind, keyword, errCommandEOF)
		}
		return nil, fmt.Errorf("reading the answer to %s from the command fd: %w", keyword, err)
	}
	a.status.Write(status.GotIt{})
	return line, nil
}

// readCommandLine reads up to a newline a byte at a time, never past it
// (what follows on the descriptor may be the message), and tells an
// answer from the end of the descriptor: io.ErrUnexpectedEOF when not a
// byte came. A line is at most 64 KiB; a CR before the LF is dropped.
func readCommandLine(r io.Reader) ([]byte, error) {
	var out []byte
	var b [1]byte
	for len(out) < 64<<10 {
		n, err := r.Read(b[:])
		if n == 1 {
			if b[0] == '\n' {
				return bytes.TrimSuffix(out, []byte("\r")), nil
			}
			out = append(out, b[0])
		}
		if err == io.EOF {
			if len(out) == 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return bytes.TrimSuffix(out, []byte("\r")), nil
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// yesNo asks a question gpg asks with cpr_get_answer_is_yes: --yes
// answers it, --batch says no without asking; else the command fd or
// the terminal (y/N). With neither, the answer is no.
func (a *asker) yesNo(keyword, question string) (bool, error) {
	defer a.st.holdProgress()()
	switch {
	case a.o.yes:
		return true, nil
	case a.o.batch:
		return false, nil
	case a.cmd != nil:
		line, err := a.command(status.GetBool{Key: keyword})
		if err != nil {
			return false, err
		}
		return isYes(string(line)), nil
	}
	if a.o.noTTY {
		return false, nil
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return false, nil
	}
	defer tty.Close()
	fmt.Fprintf(tty, "%s (y/N) ", question)
	line, _ := readCommandLine(tty)
	return isYes(string(line)), nil
}

// line asks for a line of text (GET_LINE); "" when it cannot be asked.
func (a *asker) line(keyword, question string) (string, error) {
	defer a.st.holdProgress()()
	if a.o.batch {
		return "", nil
	}
	if a.cmd != nil {
		l, err := a.command(status.GetLine{Key: keyword})
		return strings.TrimSpace(string(l)), err
	}
	if a.o.noTTY {
		return "", nil
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return "", nil
	}
	defer tty.Close()
	fmt.Fprintf(tty, "%s ", question)
	l, _ := readCommandLine(tty)
	return strings.TrimSpace(string(l)), nil
}

func isYes(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return s == "y" || s == "yes"
}

// askOverwrite is gpg's question before an existing output file is
// replaced without --yes (openfile.overwrite.okay); refused, it asks for
// another name (openfile.askoutname). It returns the path to write, or
// the error that nothing may be written.
func askOverwrite(st *state, o *options, path string) (string, error) {
	refused := withHints(fmt.Errorf("output file %s exists", path), "use --yes to overwrite it")
	a, err := askerOf(st, o)
	if err != nil {
		return "", err
	}
	if a.cmd == nil && (o.batch || o.noTTY || !haveTTY()) {
		return "", refused
	}
	ok, err := a.yesNo("openfile.overwrite.okay", fmt.Sprintf("File '%s' exists. Overwrite?", path))
	if err != nil {
		return "", err
	}
	if ok {
		return path, nil
	}
	name, err := a.line("openfile.askoutname", "Enter new filename:")
	if err != nil {
		return "", err
	}
	if name == "" || name == path {
		return "", refused
	}
	return name, nil
}

func haveTTY() bool {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	tty.Close()
	return true
}

// passRequest is one passphrase to get.
type passRequest struct {
	desc    string // what it is for, as the prompt and the pinentry say
	confirm bool   // a new passphrase: typed twice
	cacheID string // the agent's cache id; "" for none
}

// askPassphrase gets one passphrase as steps 2 to 4 above say. viaAgent
// tells the caller that the agent may have cached it, so that a wrong
// one is cleared.
func (a *asker) askPassphrase(req passRequest) (pass []byte, viaAgent bool, err error) {
	o := a.o
	// Nothing is drawn over the question: the prompt, the agent's
	// pinentry (curses, on this terminal) or the command fd's GET_HIDDEN.
	defer a.st.holdProgress()()
	switch o.pinentryMode {
	case "cancel", "error":
		return nil, false, errNoPassphrase
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
			a.st.infof("passphrase from gpg-agent's cache (%s)", req.cacheID)
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
	if o.pinentryMode == "loopback" || o.batch || o.noTTY {
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
		if errors.Is(err, errNoPassphrase) || errors.Is(err, errCommandEOF) {
			return nil, false, err
		}
	}
	// The agent could not ask (no pinentry, no terminal for it, loopback
	// refused): ask here.
	a.st.infof("gpg-agent could not ask: %v", err)
	p, err = local()
	return p, false, err
}

// localPassphrase asks without the agent: the command fd, else the
// terminal.
func (a *asker) localPassphrase(req passRequest) ([]byte, error) {
	if a.cmd != nil {
		// gpg relays the agent's limit before the question.
		a.status.Write(status.InquireMaxLen{Max: 100})
		return a.command(status.GetHidden{Key: "passphrase.enter"})
	}
	if a.o.batch || a.o.noTTY {
		return nil, errNoPassphrase
	}
	return promptPassphrase(req.desc, req.confirm)
}

// agentConn is the invocation's gpg-agent connection, or nil when there
// is none (agentSession's rule: the agent of the home, started there when
// it is a GnuPG home unless --no-autostart; in a home that is
// pgpstream's alone, a running one of $GNUPGHOME or ~/.gnupg).
func (a *asker) agentConn() *agent.Conn {
	if a.agentTried {
		return a.conn
	}
	a.agentTried = true
	c, err := a.o.agentSession(a.st).Conn()
	if err != nil {
		a.st.infof("no gpg-agent for the passphrase cache: %v", err)
		return nil
	}
	a.conn = c
	return c
}

// agentSession is the invocation's one session with gpg-agent, which the
// keyring's secret keys of a GnuPG home and the passphrase questions
// share: made the first time it is asked for, connected the first time
// either needs the agent, closed when the command ends.
func (o *options) agentSession(st *state) *agent.Session {
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

// needPassphrase is the hint for signing key priv of k: USERID_HINT
// <key id> <user id> and NEED_PASSPHRASE <key id> <primary key id>
// <algo> 0, as gpg writes them before it asks.
func needPassphrase(st *state, o *options, k *keyring.Key, priv *gcpacket.PrivateKey) func() {
	return func() {
		a, err := askerOf(st, o)
		if err != nil {
			return
		}
		id := fmt.Sprintf("%016X", priv.KeyId)
		a.status.Write(status.UserIDHint{KeyID: id, UserID: status.Text(k.PrimaryUserID())})
		a.status.Write(status.NeedPassphrase{KeyID: id, MainKeyID: fmt.Sprintf("%016X", k.KeyID()), PubAlgo: int(priv.PubKeyAlgo), KeyLen: 0})
	}
}

// agentKeyHint announces, before the command fd is asked for the
// passphrase of a key a GnuPG home's agent holds (loopback), which key it
// is, as gpg does: USERID_HINT <key ID> <user ID> and NEED_PASSPHRASE
// <key ID> <key ID> 0 0. Emacs EPG answers GET_HIDDEN only after a
// NEED_PASSPHRASE. The key comes from the keyring with the inquiry
// (keyring.AgentPrompt). Nothing is written without a command fd, or
// for an inquiry about a key that is not one of the ring's.
func agentKeyHint(st *state, o *options, p keyring.AgentPrompt) {
	a, err := askerOf(st, o)
	if err != nil || a.cmd == nil || p.KeyID == 0 {
		return
	}
	id := fmt.Sprintf("%016X", p.KeyID)
	a.status.Write(status.UserIDHint{KeyID: id, UserID: status.Text(p.UserID)})
	a.status.Write(status.NeedPassphrase{KeyID: id, MainKeyID: id, PubAlgo: 0, KeyLen: 0})
}

// forget clears a cached passphrase that turned out wrong.
func (a *asker) forget(cacheID string) {
	if a.conn != nil && cacheID != "" {
		a.conn.ForgetPassphrase(cacheID)
	}
}

// fixed reports whether the command line gave the passphrase (step 1).
func (p *passphrases) fixed() bool {
	o := p.o
	return o.passphraseSet || o.passphraseFile != "" || o.passphraseFd >= 0
}

// ask is read's last step: no passphrase was given, so one is asked.
func (p *passphrases) ask(confirm bool) ([]byte, error) {
	a, err := askerOf(p.st, p.o)
	if err != nil {
		return nil, err
	}
	pass, _, err := a.askPassphrase(passRequest{desc: p.desc, confirm: confirm})
	return pass, err
}

// unlockKey unlocks one of pgpstream's own secret keys: with the given
// passphrase, else through the agent's cache under the key's keygrip,
// else asked, up to three times on a terminal or pinentry (once on the
// command fd, as gpg's loopback asks once). A cached passphrase that is
// wrong is cleared and the question asked.
//
// hint, when set, writes the status lines that announce a question (gpg's
// USERID_HINT and NEED_PASSPHRASE, which Emacs EPG needs before it
// answers GET_HIDDEN); it is called once, before the first question the
// agent's cache does not answer.
func (p *passphrases) unlockKey(priv *gcpacket.PrivateKey, desc string, unlock func([]byte) error, hint func()) error {
	if p.fixed() {
		pass, err := p.getFor(desc, false)
		if err != nil {
			return err
		}
		return unlock(pass)
	}
	a, err := askerOf(p.st, p.o)
	if err != nil {
		return err
	}
	req := passRequest{desc: desc}
	if g, err := keygrip.Of(&priv.PublicKey); err == nil {
		req.cacheID = g.String()
	}
	tries := 3
	if a.cmd != nil {
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

// symmetric gets a message's passphrase: for a new message,
// NEED_PASSPHRASE_SYM <cipher> <s2k mode> <s2k hash> first, as gpg writes
// it whatever the source; then
// the given passphrase, or the agent's cache under the S2K salt, or
// asked (typed twice when confirm: a new message's).
func (p *passphrases) symmetric(desc string, cipher packet.CipherAlgo, mode, hash byte, salt []byte, confirm bool) ([]byte, error) {
	a, err := askerOf(p.st, p.o)
	if err != nil {
		return nil, err
	}
	if confirm {
		// A new message's; a read one's is written as its SKESK is
		// read (decryptStatus.skeskRead).
		a.status.Write(status.NeedPassphraseSym{Cipher: int(cipher), S2K: int(mode), Hash: int(hash)})
	}
	if p.fixed() {
		return p.getFor(desc, confirm)
	}
	s := &p.sym
	if s.done {
		return s.pass, s.err
	}
	s.done = true
	req := passRequest{desc: desc, confirm: confirm}
	if !p.o.noSymkeyCache && !confirm {
		req.cacheID = agent.SymmetricCacheID(salt)
	}
	pass, viaAgent, err := a.askPassphrase(req)
	if viaAgent {
		s.cacheID = req.cacheID
	}
	s.pass, s.err, s.asked = pass, err, err == nil
	return pass, err
}

// symState is what passphrases keeps of a message's passphrase once
// asked: one answer per command, and the cache id to clear if wrong.
type symState struct {
	done    bool
	pass    []byte
	err     error
	cacheID string
	asked   bool // asked (not given), so the agent may keep it
}

// cacheNew puts the passphrase of a new message encrypted with an asked
// one into the agent's cache, under the S2K salt of the message's first
// SKESK (res, what filter.Encrypt wrote), answering the agent's loopback
// inquiry itself: gpg caches what it encrypts with, so decrypting the
// message next asks nothing.
func (p *passphrases) cacheNew(res *filter.EncryptResult) {
	if !p.sym.asked || p.o.noSymkeyCache || p.st.ask == nil || p.st.ask.conn == nil || len(res.SKESKs) == 0 {
		return
	}
	_, _, salt := res.SKESKs[0].S2K()
	if salt == nil {
		return
	}
	pass := p.sym.pass
	_, err := p.st.ask.conn.GetPassphrase(agent.PassphraseRequest{
		CacheID: agent.SymmetricCacheID(salt), Desc: "pgpstream caches a new message's passphrase",
		Loopback: func() ([]byte, error) { return pass, nil },
	})
	if err != nil {
		p.st.infof("gpg-agent did not cache the passphrase: %v", err)
	}
}

// forgetSymmetric clears the message's passphrase from the agent's cache
// after it failed to decrypt, as gpg does.
func (p *passphrases) forgetSymmetric() {
	if p.sym.cacheID != "" && p.st.ask != nil {
		p.st.ask.forget(p.sym.cacheID)
	}
}

// askPasswd asks --passwd's two passphrases, as gpg asks them: the
// current one, then the new one, typed twice on a terminal or pinentry
// (once on the command fd, as gpg's loopback asks). errNoPassphrase when
// there is no one to ask.
func askPasswd(st *state, o *options) (old, nw []byte, err error) {
	a, err := askerOf(st, o)
	if err != nil {
		return nil, nil, err
	}
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
		return nil, errNoPassphrase
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
		return nil, errNoPassphrase
	}
	if confirm {
		fmt.Fprint(tty, "Repeat passphrase: ")
		q, err := term.ReadPassword(fd)
		fmt.Fprintln(tty)
		if err != nil {
			return nil, errNoPassphrase
		}
		if !bytes.Equal(p, q) {
			return nil, errors.New("the passphrases do not match")
		}
	}
	return p, nil
}
