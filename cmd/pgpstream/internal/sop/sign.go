package sop

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/internal/bounded"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

var signCmd = &command{
	name:     "sign",
	synopsis: "sign [--no-armor] [--micalg-out=MICALG] [--with-key-password=PASSWORD...] [--as={binary|text}] [--] KEYS... < DATA > SIGNATURES",
	flags: append([]flagSpec{{name: "micalg-out", value: true}, {name: "with-key-password", value: true, multi: true},
		{name: "as", value: true}}, armorFlags...),
	run: runSign,
}

func runSign(c *call) error {
	text, err := c.asText("binary", "text")
	if err != nil {
		return err
	}
	if len(c.args) == 0 {
		return fail(codeMissingArg, "sign: name the KEYS to sign with")
	}
	if err := c.checkOutputs("micalg-out"); err != nil {
		return err
	}
	signers, err := c.signers(c.args)
	if err != nil {
		return err
	}
	in := c.input(text)
	if _, err := filter.DetachSign(in, c.env.Stdout, filter.SignOptions{Signers: signers, Armor: c.armored(), Text: text}); err != nil {
		return classify(err, codeUnspecificFailure, "sign")
	}
	if name := c.value("micalg-out"); name != "" {
		return c.writeOutput(name, []byte(micalg(signers)), false)
	}
	return nil
}

// asText reads --as: the first of kinds is the default; it reports
// whether the data is text.
func (c *call) asText(kinds ...string) (bool, error) {
	as := c.value("as")
	if as == "" {
		as = kinds[0]
	}
	for _, k := range kinds {
		if as == k {
			return as != "binary", nil
		}
	}
	return false, fail(codeUnsupportedOption, "%s: --as=%s: expected %s", c.cmd.name, as, strings.Join(kinds, ", "))
}

// input is standard input, checked to be UTF-8 when it must be text.
func (c *call) input(text bool) io.Reader {
	if text {
		return &utf8Reader{r: c.env.Stdin}
	}
	return c.env.Stdin
}

// signers unlocks the signing key of each key in the KEYS inputs with
// the --with-key-password passwords.
func (c *call) signers(names []string) ([]filter.Signer, error) {
	keys, err := c.readKeys(names)
	if err != nil {
		return nil, err
	}
	pass, err := c.passwords("with-key-password")
	if err != nil {
		return nil, err
	}
	var out []filter.Signer
	for _, nk := range keys {
		priv, err := nk.key.SigningKey(clock.Now(), nil)
		if err != nil {
			return nil, failWith(codeKeyCannotSign, err, "key %s in %q cannot sign", nk.key.Fingerprint(), nk.name)
		}
		if err := keyring.UnlockAny(priv, pass); err != nil {
			return nil, lockedError(err, nk.key)
		}
		// The key's minimum, named here for --micalg-out.
		h, err := filter.HashFor(&priv.PublicKey, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, filter.Signer{Key: priv, Hash: h})
	}
	return out, nil
}

// micalg is RFC 3156's micalg parameter for the signatures: empty when
// they use different hashes, as the draft says.
func micalg(signers []filter.Signer) string {
	name := ""
	for i, s := range signers {
		n := "pgp-" + strings.ToLower(s.Hash.String())
		if i > 0 && n != name {
			return ""
		}
		name = n
	}
	return name
}

var verifyCmd = &command{
	name:     "verify",
	synopsis: "verify [--not-before=DATE] [--not-after=DATE] [--] SIGNATURES CERTS... < DATA > VERIFICATIONS",
	flags:    []flagSpec{{name: "not-before", value: true}, {name: "not-after", value: true}},
	run:      runVerify,
}

func runVerify(c *call) error {
	if len(c.args) < 2 {
		return fail(codeMissingArg, "verify: name the SIGNATURES and at least one CERTS")
	}
	win, err := c.window("not-before", "not-after")
	if err != nil {
		return err
	}
	sigs, err := c.readInput(c.args[0], bounded.KeyData)
	if err != nil {
		return err
	}
	certs, err := c.readCerts(c.args[1:])
	if err != nil {
		return err
	}
	set := newCertSet(certs)
	res, err := filter.VerifyDetached(bytes.NewReader(sigs), c.env.Stdin, filter.VerifyOptions{Signers: set})
	if err != nil {
		return classify(err, codeBadData, "verify")
	}
	lines := set.verifications(res, win)
	if len(lines) == 0 {
		return fail(codeNoSignature, "verify: no signature in %q is good, made by one of the certificates within the time window", c.args[0])
	}
	_, err = io.WriteString(c.env.Stdout, strings.Join(lines, "\n")+"\n")
	return err
}

// window is the time a signature must have been made in.
type window struct{ notBefore, notAfter time.Time }

func (w window) holds(t time.Time) bool { return !t.Before(w.notBefore) && !t.After(w.notAfter) }

// window reads a --not-before and a --not-after option: by default from
// the beginning of time until now.
func (c *call) window(before, after string) (window, error) {
	nb, err := parseDate(c.value(before), "-", time.Unix(0, 0))
	if err != nil {
		return window{}, fmt.Errorf("--%s: %w", before, err)
	}
	na, err := parseDate(c.value(after), "now", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC))
	if err != nil {
		return window{}, fmt.Errorf("--%s: %w", after, err)
	}
	return window{nb, na}, nil
}

// dateLayouts are the ISO 8601 forms a DATE may take.
var dateLayouts = []string{time.RFC3339, "2006-01-02T15:04:05Z0700", "20060102T150405Z0700", "2006-01-02T15:04Z07:00", "2006-01-02"}

// parseDate reads a DATE: "now", "-" (the end of the window that is
// open: dash), or ISO 8601.
func parseDate(s, def string, dash time.Time) (time.Time, error) {
	if s == "" {
		s = def
	}
	switch s {
	case "now":
		return clock.Now(), nil
	case "-":
		return dash, nil
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fail(codeBadData, "%q is not a date: expected ISO 8601 (2006-01-02T15:04:05Z), now or -", s)
}

// certSet is the CERTS a verification may use, and which of them each
// signing key belongs to.
type certSet struct {
	certs []namedKey
	owner map[string]namedKey // signing (sub)key fingerprint, hex -> its certificate
}

func newCertSet(certs []namedKey) *certSet {
	return &certSet{certs: certs, owner: map[string]namedKey{}}
}

// SignerKeys implements filter.SignerKeys.
// A revoked key is not returned (keyring.Key.SignerKeys): a
// verification names only the keys it may rely on.
func (s *certSet) SignerKeys(keyID uint64, fpr []byte, made, now time.Time) []filter.SignerKey {
	var out []filter.SignerKey
	for _, nk := range s.certs {
		for _, pk := range nk.key.SignerKeys(keyID, fpr, made) {
			s.owner[hex.EncodeToString(pk.Fingerprint)] = nk
			out = append(out, filter.SignerKey{Key: pk})
		}
	}
	return out
}

// verifications renders the good signatures made within w, one
// VERIFICATIONS line each (the draft's "VERIFICATIONS"): when, the
// signing key, its certificate, the mode, and the CERTS arguments the
// certificate came from as JSON.
func (s *certSet) verifications(res []filter.SignatureResult, w window) []string {
	var out []string
	for _, r := range res {
		if r.Status != filter.SigGood || r.Key == nil || r.Sig == nil || !w.holds(r.Sig.Created) {
			continue
		}
		cert, ok := s.owner[hex.EncodeToString(r.Key.Fingerprint)]
		if !ok {
			continue
		}
		mode := "mode:binary"
		if r.Sig.SigType == packet.SigText {
			mode = "mode:text"
		}
		signers, _ := json.Marshal(struct {
			Signers []string `json:"signers"`
		}{s.namesOf(cert.key)})
		out = append(out, fmt.Sprintf("%s %X %s %s %s", r.Sig.Created.UTC().Format("2006-01-02T15:04:05Z"), r.Key.Fingerprint, cert.key.Fingerprint(), mode, signers))
	}
	return out
}

// namesOf lists the CERTS arguments that hold k.
func (s *certSet) namesOf(k *keyring.Key) []string {
	var names []string
	for _, nk := range s.certs {
		if nk.key.Fingerprint() == k.Fingerprint() && !contains(names, nk.name) {
			names = append(names, nk.name)
		}
	}
	return names
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// utf8Reader passes its reader's data on and fails with EXPECTED_TEXT at
// the first byte that is not UTF-8. A character cut by a read is held
// back until the next read completes it. Text is not the fast path: the
// check copies each read into a buffer of its own, with the cut
// character in front.
type utf8Reader struct {
	r     io.Reader
	buf   []byte
	carry int // bytes at the end of buf that begin a character the next read completes
	n     int64
}

func (u *utf8Reader) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	u.buf = append(u.buf[:0], u.buf[len(u.buf)-u.carry:]...) // the cut character to the front (copy moves overlapping bytes)
	u.buf = append(u.buf, p[:n]...)
	data := u.buf
	cut := len(data)
	if err == nil {
		// An incomplete character at the end is at most 3 bytes.
		for i := 1; i <= 3 && i <= len(data); i++ {
			if data[len(data)-i]&0xC0 != 0x80 {
				if !utf8.FullRune(data[len(data)-i:]) {
					cut = len(data) - i
				}
				break
			}
		}
	}
	if !utf8.Valid(data[:cut]) || err == io.EOF && cut != len(data) {
		return 0, fail(codeExpectedText, "the input is not UTF-8 text (at or after byte %d)", u.n)
	}
	u.carry = len(data) - cut
	u.n += int64(n)
	return n, err
}

// classify gives an error from the data path its class: its own when a
// check here found it (EXPECTED_TEXT), else def.
func classify(err error, def Code, what string) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return failWith(def, err, "%s", what)
}
