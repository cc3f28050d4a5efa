package agent

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pgpstream/pgpstream/keygrip"
)

// Version is GETINFO version.
func (c *Conn) Version() (string, error) {
	v, err := c.Transact("GETINFO version")
	return string(v), err
}

// Asking is the keygrip of the last key Decrypt or Sign used: during a
// loopback inquiry, the key the passphrase is asked for.
func (c *Conn) Asking() keygrip.Grip { return c.grip }

// SetPassphrase switches the connection to the loopback pinentry: the
// agent asks the client (INQUIRE PASSPHRASE) instead of a pinentry
// program, and get supplies the passphrase. The agent caches what
// unlocked a key, so the next command does not ask again.
func (c *Conn) SetPassphrase(get func(desc string) ([]byte, error)) error {
	if err := c.setMode("loopback"); err != nil {
		return err
	}
	c.AnswerPassphrase(get)
	return nil
}

// AnswerPassphrase has get answer the agent's passphrase inquiries
// (PASSPHRASE, NEW_PASSPHRASE) in loopback mode, with the prompt of the
// key being used; it leaves the pinentry mode as it is.
func (c *Conn) AnswerPassphrase(get func(desc string) ([]byte, error)) {
	prev := c.Inquire
	c.Inquire = func(kw, args string) ([]byte, error) {
		if kw == "PASSPHRASE" || kw == "NEW_PASSPHRASE" {
			if args == "" {
				args = c.desc // the prompt of the key being used
			}
			return get(args)
		}
		if prev != nil {
			return prev(kw, args)
		}
		return nil, fmt.Errorf("no answer to the agent's inquiry %s", kw)
	}
}

// setMode sets the pinentry mode (OPTION pinentry-mode).
func (c *Conn) setMode(mode string) error { return c.Option("pinentry-mode", mode) }

// modeOrAsk is mode with the agent's own, "" or "default", named: ask.
func modeOrAsk(mode string) string {
	if mode == "" || mode == "default" {
		return "ask"
	}
	return mode
}

// HaveKey reports whether the agent holds the secret key of grip.
func (c *Conn) HaveKey(grip keygrip.Grip) (bool, error) {
	_, err := c.Transact("HAVEKEY " + grip.String())
	if errors.Is(err, ErrNoSecretKey) {
		return false, nil
	}
	return err == nil, err
}

// KeyInfo is what KEYINFO says of a key.
type KeyInfo struct {
	Grip      keygrip.Grip
	Type      string // "D": a key on disk, "T": on a smartcard, "X": unknown
	Protected bool   // "P": protected by a passphrase
	Clear     bool   // "C": not protected at all
	Cached    bool   // its passphrase is in the agent's cache
	Serial    string // the smartcard's serial number (hex) of a "T" key
}

// parseKeyInfo reads a KEYINFO status line: <grip> <type> <serial>
// <idstr> <cached> <protection> ...
func parseKeyInfo(kw, args string) (KeyInfo, bool) {
	f := strings.Fields(args)
	if kw != "KEYINFO" || len(f) < 6 {
		return KeyInfo{}, false
	}
	g, err := keygrip.Parse(f[0])
	if err != nil {
		return KeyInfo{}, false
	}
	ki := KeyInfo{Grip: g, Type: f[1], Cached: f[4] == "1", Protected: f[5] == "P", Clear: f[5] == "C"}
	if ki.Type == "T" && f[2] != "-" {
		ki.Serial = f[2]
	}
	return ki, true
}

// KeyInfo asks the agent about the key of grip; ErrNoSecretKey if it
// holds none.
func (c *Conn) KeyInfo(grip keygrip.Grip) (*KeyInfo, error) {
	var info *KeyInfo
	prev := c.Status
	defer func() { c.Status = prev }()
	c.Status = func(kw, args string) {
		if i, ok := parseKeyInfo(kw, args); ok {
			i.Grip = grip
			info = &i
		}
	}
	if _, err := c.Transact("KEYINFO " + grip.String()); err != nil {
		if e := (*Error)(nil); errors.As(err, &e) && e.Code&0xffff == codeNotFound {
			return nil, ErrNoSecretKey
		}
		return nil, err
	}
	if info == nil {
		return nil, errors.New("gpg-agent: KEYINFO answered no key")
	}
	return info, nil
}

// ClearPassphrase forgets the cached passphrase of grip's key.
func (c *Conn) ClearPassphrase(grip keygrip.Grip) error {
	_, err := c.Transact("CLEAR_PASSPHRASE --mode=normal " + grip.String())
	return err
}

// Decrypt asks the agent to decrypt ciphertext, a canonical
// S-expression (enc-val (rsa (a ..))) or (enc-val (ecdh (s ..)(e ..))),
// with grip's key; desc is shown to the user if a pinentry asks. It
// returns the agent's (value ..): for RSA the PKCS#1 v1.5 encoded
// session key (with its padding removed when the agent says so), for
// ECDH the shared point, from which the caller derives the key-wrapping
// key (RFC 6637 §8).
func (c *Conn) Decrypt(grip keygrip.Grip, desc string, ciphertext []byte) ([]byte, error) {
	if _, err := c.Transact("SETKEY " + grip.String()); err != nil {
		return nil, err
	}
	c.grip = grip
	if desc != "" {
		if _, err := c.Transact("SETKEYDESC " + escapeArg(desc)); err != nil {
			return nil, err
		}
		c.desc = desc
	}
	prev := c.Inquire
	defer func() { c.Inquire = prev }()
	c.Inquire = func(kw, args string) ([]byte, error) {
		if kw == "CIPHERTEXT" {
			return ciphertext, nil
		}
		if prev != nil {
			return prev(kw, args)
		}
		return nil, fmt.Errorf("no answer to the agent's inquiry %s", kw)
	}
	defer c.mayAsk()()
	out, err := c.Transact("PKDECRYPT")
	if err != nil {
		return nil, err
	}
	// gpg-agent ends the result with the C string's NUL.
	s, err := ParseSexp(bytes.TrimRight(out, "\x00"))
	if err != nil {
		return nil, fmt.Errorf("gpg-agent: PKDECRYPT result: %w", err)
	}
	v := s.Find("value")
	if v == nil || len(v.List) < 2 || v.List[1].Atom == nil {
		return nil, errors.New("gpg-agent: PKDECRYPT result has no value")
	}
	return v.List[1].Atom, nil
}

// Hash algorithms as SETHASH names them (libgcrypt's numbers, which are
// OpenPGP's).
var hashNames = map[int]string{2: "sha1", 8: "sha256", 9: "sha384", 10: "sha512", 11: "sha224", 3: "rmd160"}

// Sign asks the agent to sign digest (made with OpenPGP hash algorithm
// hash) with grip's key and returns its (sig-val ..) S-expression:
// (sig-val (rsa (s ..))), (sig-val (ecdsa (r ..)(s ..))) or
// (sig-val (eddsa (r ..)(s ..))).
func (c *Conn) Sign(grip keygrip.Grip, desc string, hash int, digest []byte) (*Sexp, error) {
	name, ok := hashNames[hash]
	if !ok {
		return nil, fmt.Errorf("gpg-agent: hash algorithm %d", hash)
	}
	if _, err := c.Transact("SIGKEY " + grip.String()); err != nil {
		return nil, err
	}
	c.grip = grip
	if desc != "" {
		if _, err := c.Transact("SETKEYDESC " + escapeArg(desc)); err != nil {
			return nil, err
		}
		c.desc = desc
	}
	if _, err := c.Transact(fmt.Sprintf("SETHASH --hash=%s %X", name, digest)); err != nil {
		return nil, err
	}
	defer c.mayAsk()()
	out, err := c.Transact("PKSIGN")
	if err != nil {
		return nil, err
	}
	s, err := ParseSexp(out)
	if err != nil {
		return nil, fmt.Errorf("gpg-agent: PKSIGN result: %w", err)
	}
	if s.Head() != "sig-val" {
		return nil, fmt.Errorf("gpg-agent: PKSIGN answered %q, not sig-val", s.Head())
	}
	return s, nil
}

// Sexp is a canonical S-expression (Rivest's, as libgcrypt and the
// agent write them): an atom, or a list.
type Sexp struct {
	Atom []byte // nil for a list
	List []*Sexp
}

// Head is a list's first atom.
func (s *Sexp) Head() string {
	if s == nil || len(s.List) == 0 || s.List[0].Atom == nil {
		return ""
	}
	return string(s.List[0].Atom)
}

// Find returns the first list, depth first, whose head is name.
func (s *Sexp) Find(name string) *Sexp {
	if s == nil || s.Atom != nil {
		return nil
	}
	if s.Head() == name {
		return s
	}
	for _, e := range s.List {
		if f := e.Find(name); f != nil {
			return f
		}
	}
	return nil
}

// Value returns the atom after name in the first list headed name.
func (s *Sexp) Value(name string) []byte {
	f := s.Find(name)
	if f == nil || len(f.List) < 2 {
		return nil
	}
	return f.List[1].Atom
}

// ParseSexp parses one canonical S-expression, the whole of b.
func ParseSexp(b []byte) (*Sexp, error) {
	s, rest, err := parseSexp(b, 0)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("s-expression: %d bytes after its end", len(rest))
	}
	return s, nil
}

func parseSexp(b []byte, depth int) (*Sexp, []byte, error) {
	if depth > 32 {
		return nil, nil, errors.New("s-expression: nested too deeply")
	}
	if len(b) == 0 {
		return nil, nil, errors.New("s-expression: truncated")
	}
	if b[0] == '(' {
		s := &Sexp{List: []*Sexp{}}
		b = b[1:]
		for {
			if len(b) == 0 {
				return nil, nil, errors.New("s-expression: unclosed list")
			}
			if b[0] == ')' {
				return s, b[1:], nil
			}
			e, rest, err := parseSexp(b, depth+1)
			if err != nil {
				return nil, nil, err
			}
			s.List = append(s.List, e)
			b = rest
		}
	}
	i := 0
	for i < len(b) && i < 10 && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(b) || b[i] != ':' {
		return nil, nil, errors.New("s-expression: expected a length-prefixed atom")
	}
	n, _ := strconv.Atoi(string(b[:i]))
	b = b[i+1:]
	if n > len(b) {
		return nil, nil, errors.New("s-expression: atom runs past the end")
	}
	return &Sexp{Atom: b[:n:n]}, b[n:], nil
}

// AppendAtom appends a canonical atom.
func AppendAtom(dst, atom []byte) []byte {
	dst = strconv.AppendInt(dst, int64(len(atom)), 10)
	dst = append(dst, ':')
	return append(dst, atom...)
}

// RSACiphertext is the (enc-val (rsa (a ..))) for an RSA PKESK's MPI.
func RSACiphertext(a []byte) []byte {
	b := []byte("(7:enc-val(3:rsa(1:a")
	b = AppendAtom(b, a)
	return append(b, ")))"...)
}

// ElGamalCiphertext is the (enc-val (elg (a ..)(b ..))) of an ElGamal
// PKESK's two MPIs.
func ElGamalCiphertext(a, b []byte) []byte {
	s := []byte("(7:enc-val(3:elg(1:a")
	s = AppendAtom(s, a)
	s = append(s, ")(1:b"...)
	s = AppendAtom(s, b)
	return append(s, ")))"...)
}

// ECDHCiphertext is the (enc-val (ecdh (s ..)(e ..))) of an ECDH PKESK:
// e the ephemeral point as the PKESK stores it, s the wrapped key.
func ECDHCiphertext(ephemeral, wrapped []byte) []byte {
	b := []byte("(7:enc-val(4:ecdh(1:s")
	b = AppendAtom(b, wrapped)
	b = append(b, ")(1:e"...)
	b = AppendAtom(b, ephemeral)
	return append(b, ")))"...)
}

// Passwd changes the passphrase of grip's key (PASSWD) through the
// loopback pinentry: the agent asks for the old passphrase, then the
// new one, and old and new answer. The connection stays in loopback
// mode.
func (c *Conn) Passwd(grip keygrip.Grip, oldPass, newPass []byte) error {
	if err := c.setMode("loopback"); err != nil {
		return err
	}
	prev := c.Inquire
	defer func() { c.Inquire = prev }()
	c.Inquire = func(kw, args string) ([]byte, error) {
		switch kw {
		case "PASSPHRASE":
			return oldPass, nil
		case "NEW_PASSPHRASE":
			return newPass, nil
		}
		if prev != nil {
			return prev(kw, args)
		}
		return nil, fmt.Errorf("no answer to the agent's inquiry %s", kw)
	}
	defer c.mayAsk()()
	_, err := c.Transact("PASSWD " + grip.String())
	return err
}

// DeleteKey removes the secret key of grip from the agent's store, as
// gpg's --delete-secret-keys does. Without force the agent asks its user
// to confirm through the pinentry (gpg passes --force only with --yes);
// desc is what that prompt says.
func (c *Conn) DeleteKey(grip keygrip.Grip, desc string, force bool) error {
	if desc != "" {
		if _, err := c.Transact("SETKEYDESC " + escapeArg(desc)); err != nil {
			return err
		}
	}
	cmd := "DELETE_KEY "
	if force {
		cmd += "--force "
	}
	defer c.mayAsk()()
	_, err := c.Transact(cmd + grip.String())
	return err
}
