package agent

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp/aes/keywrap"

	"github.com/pgpstream/pgpstream/keygrip"
)

// ExportKey has the agent hand out the secret key of grip, as gpg's
// --export-secret-keys asks for it (GnuPG's agent/command.c, EXPORT_KEY).
//
// The agent never sends a key in the clear: the client first gets a
// 128-bit key-wrapping key (KEYWRAP_KEY --export, once per connection),
// and the key comes wrapped with it by AES key wrap (RFC 3394). With
// openpgp the agent asks for the key's passphrase (through its pinentry
// or, in loopback mode, INQUIRE PASSPHRASE) and re-protects the secret
// parameters with it in OpenPGP's form: the answer is the transfer
// format (openpgp-private-key ..). Without it the answer is the key as
// the agent holds it, (private-key ..), which gpg asks for only when
// KEYINFO says the key has no passphrase. desc is the pinentry's prompt.
//
// Each answer carries a cache nonce under which the agent keeps the
// passphrase for a few seconds; it is passed with the next EXPORT_KEY of
// the connection, so the subkeys of a key protected by the same
// passphrase do not ask again (as gpg does).
func (c *Conn) ExportKey(grip keygrip.Grip, desc string, openpgp bool) (*Sexp, error) {
	if c.kek == nil {
		kek, err := c.Transact("KEYWRAP_KEY --export")
		if err != nil {
			return nil, err
		}
		if len(kek) != 16 {
			return nil, fmt.Errorf("gpg-agent: KEYWRAP_KEY gave a %d-byte key, not 16", len(kek))
		}
		c.kek = kek
	}
	if desc != "" {
		if _, err := c.Transact("SETKEYDESC " + escapeArg(desc)); err != nil {
			return nil, err
		}
		c.desc = desc
	}
	c.grip = grip
	cmd := "EXPORT_KEY "
	if openpgp {
		cmd += "--openpgp "
	}
	if c.exportNonce != "" {
		cmd += "--cache-nonce=" + c.exportNonce + " "
	}
	prev := c.Status
	defer func() { c.Status = prev }()
	c.Status = func(kw, args string) {
		if kw == "CACHE_NONCE" {
			if f := strings.Fields(args); len(f) > 0 && !strings.ContainsAny(f[0], "%+") {
				c.exportNonce = f[0]
			}
		}
		if prev != nil {
			prev(kw, args)
		}
	}
	defer c.mayAsk()()
	wrapped, err := c.Transact(cmd + grip.String())
	if err != nil {
		return nil, err
	}
	if len(wrapped) < 24 || len(wrapped)%8 != 0 {
		return nil, fmt.Errorf("gpg-agent: EXPORT_KEY answered %d bytes, not a wrapped key", len(wrapped))
	}
	key, err := keywrap.Unwrap(c.kek, wrapped)
	if err != nil {
		return nil, fmt.Errorf("gpg-agent: EXPORT_KEY: unwrapping the key: %w", err)
	}
	// The agent pads the S-expression to the key wrap's 8-byte blocks
	// (make_canon_sexp_pad): what follows its end is padding.
	s, _, err := parseSexp(key, 0)
	if err != nil {
		return nil, fmt.Errorf("gpg-agent: EXPORT_KEY result: %w", err)
	}
	return s, nil
}

// TransferKey is a secret key as the agent exports it, in libgcrypt's
// terms: the algorithm ("rsa", "dsa", "elg", "ecc"), the curve of an ECC
// key, the public parameters and the secret ones. Of a key exported with
// a passphrase (the transfer format) Secret is nil and Protected is the
// secret parameters as OpenPGP's secret-key packet stores them with S2K
// usage 254 (RFC 4880 section 5.5.3): encrypted MPIs and their SHA-1,
// with Cipher, S2K and IV to decrypt them.
type TransferKey struct {
	Algo   string
	Curve  string
	Public [][]byte // RSA n e, DSA p q g y, ElGamal p g y, ECC q
	Secret [][]byte // RSA d p q u, DSA and ElGamal x, ECC d

	Protected []byte
	Cipher    string // libgcrypt's name, "aes" (AES-128) as the agent writes it
	IV        []byte
	S2KMode   int    // 3: iterated and salted
	S2KHash   string // "sha1"
	Salt      []byte
	S2KCount  int // already in OpenPGP's one-octet coding
}

// params are the parameter names of each libgcrypt algorithm, public
// first (GnuPG's agent/cvt-openpgp.c extract_private_key).
var params = map[string]struct{ pub, sec string }{
	"rsa": {"ne", "dpqu"},
	"dsa": {"pqgy", "x"},
	"elg": {"pgy", "x"},
	"ecc": {"q", "d"},
}

// ErrUnsupportedKey: the agent's key is of a kind this package does not
// convert.
var ErrUnsupportedKey = errors.New("gpg-agent: unsupported secret key format")

// ParseTransferKey reads what ExportKey returns: an
// (openpgp-private-key (version 4)(algo A)(curve C)?(skey _ P .. e E)
// (protection sha1 aes IV 3 sha1 SALT COUNT)) or a (private-key (A
// (n ..)(e ..) ..)).
func ParseTransferKey(s *Sexp) (*TransferKey, error) {
	switch s.Head() {
	case "openpgp-private-key":
		return parseOpenPGPTransfer(s)
	case "private-key":
		return parsePrivateKey(s)
	}
	return nil, fmt.Errorf("%w: %q", ErrUnsupportedKey, s.Head())
}

func parsePrivateKey(s *Sexp) (*TransferKey, error) {
	if len(s.List) < 2 || s.List[1].Atom != nil {
		return nil, fmt.Errorf("%w: private-key without its algorithm", ErrUnsupportedKey)
	}
	k := s.List[1]
	algo := strings.ToLower(k.Head())
	if algo == "ecdsa" || algo == "eddsa" || algo == "ecdh" {
		algo = "ecc"
	}
	p, ok := params[algo]
	if !ok {
		return nil, fmt.Errorf("%w: algorithm %q", ErrUnsupportedKey, k.Head())
	}
	tk := &TransferKey{Algo: algo}
	if algo == "ecc" {
		tk.Curve = string(k.Value("curve"))
	}
	get := func(names string) ([][]byte, error) {
		var out [][]byte
		for _, n := range names {
			v := k.Value(string(n))
			if len(v) == 0 {
				return nil, fmt.Errorf("%w: %s key without its parameter %c", ErrUnsupportedKey, algo, n)
			}
			out = append(out, v)
		}
		return out, nil
	}
	var err error
	if tk.Public, err = get(p.pub); err != nil {
		return nil, err
	}
	if tk.Secret, err = get(p.sec); err != nil {
		return nil, err
	}
	return tk, nil
}

func parseOpenPGPTransfer(s *Sexp) (*TransferKey, error) {
	if v := string(s.Value("version")); v != "4" {
		return nil, fmt.Errorf("%w: transfer key version %q", ErrUnsupportedKey, v)
	}
	algo := string(s.Value("algo"))
	p, ok := params[algo]
	if !ok {
		return nil, fmt.Errorf("%w: algorithm %q", ErrUnsupportedKey, algo)
	}
	tk := &TransferKey{Algo: algo, Curve: string(s.Value("curve"))}
	sk := s.Find("skey")
	if sk == nil {
		return nil, fmt.Errorf("%w: transfer key without skey", ErrUnsupportedKey)
	}
	// skey is pairs: "_" and a public value, then "e" and the
	// protected secret values (convert_to_openpgp).
	for i := 1; i+1 < len(sk.List); i += 2 {
		kind, v := sk.List[i].Atom, sk.List[i+1].Atom
		switch {
		case string(kind) == "_" && v != nil && tk.Protected == nil:
			tk.Public = append(tk.Public, v)
		case string(kind) == "e" && v != nil && tk.Protected == nil:
			tk.Protected = v
		default:
			return nil, fmt.Errorf("%w: skey entry %d", ErrUnsupportedKey, i)
		}
	}
	if len(tk.Public) != len(p.pub) || len(tk.Protected) == 0 {
		return nil, fmt.Errorf("%w: %s transfer key with %d public values and no protected part", ErrUnsupportedKey, algo, len(tk.Public))
	}
	pr := s.Find("protection")
	if pr == nil || len(pr.List) < 8 || pr.Head() != "protection" {
		return nil, fmt.Errorf("%w: transfer key without its protection", ErrUnsupportedKey)
	}
	atom := func(i int) string { return string(pr.List[i].Atom) }
	if atom(1) != "sha1" {
		// "sum" and "none" are v3 and unprotected forms the agent does
		// not write for --openpgp; gpg refuses them too.
		return nil, fmt.Errorf("%w: transfer key protection %q", ErrUnsupportedKey, atom(1))
	}
	tk.Cipher, tk.IV, tk.S2KHash, tk.Salt = atom(2), pr.List[3].Atom, atom(5), pr.List[6].Atom
	var err error
	if tk.S2KMode, err = strconv.Atoi(atom(4)); err != nil {
		return nil, fmt.Errorf("%w: S2K mode %q", ErrUnsupportedKey, atom(4))
	}
	if tk.S2KCount, err = strconv.Atoi(atom(7)); err != nil || tk.S2KCount < 0 || tk.S2KCount > 255 {
		// The agent sends the count already coded (gpg checks the same).
		return nil, fmt.Errorf("%w: S2K count %q", ErrUnsupportedKey, atom(7))
	}
	if len(tk.IV) == 0 || len(tk.IV) > 16 || len(tk.Salt) != 8 {
		return nil, fmt.Errorf("%w: IV of %d bytes, salt of %d", ErrUnsupportedKey, len(tk.IV), len(tk.Salt))
	}
	return tk, nil
}
