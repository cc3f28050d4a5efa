package sop

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/internal/bounded"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

// encryptProfile is a choice of encrypted data packet. The first is the
// default; "default" names it too.
type encryptProfile struct {
	name, desc string
	always2    bool // SEIPD v2 whoever the recipients are
}

var encryptProfiles = []encryptProfile{
	{"default", "AES-256 in SEIPD v1 (CFB with MDC), which every OpenPGP implementation reads, or in SEIPD v2 (OCB) when every certificate announces it (RFC 9580's feature, or a v6 key)", false},
	{"rfc9580", "AES-256 in SEIPD v2 (OCB, RFC 9580) for every certificate and password", true},
}

func findEncryptProfile(name string) (encryptProfile, error) {
	if name == "" {
		return encryptProfiles[0], nil
	}
	for _, p := range encryptProfiles {
		if p.name == name {
			return p, nil
		}
	}
	return encryptProfile{}, fail(codeUnsupportedProfile, "encrypt: no profile %q; see list-profiles encrypt", name)
}

var encryptCmd = &command{
	name: "encrypt",
	synopsis: "encrypt [--as={binary|text}] [--no-armor] [--with-password=PASSWORD...] [--sign-with=KEYS...] " +
		"[--with-key-password=PASSWORD...] [--profile=PROFILE] [--session-key-out=SESSIONKEY] [--] [CERTS...] < DATA > CIPHERTEXT",
	flags: append([]flagSpec{{name: "as", value: true}, {name: "with-password", value: true, multi: true},
		{name: "sign-with", value: true, multi: true}, {name: "with-key-password", value: true, multi: true},
		{name: "profile", value: true}, {name: "session-key-out", value: true}, {name: "for", value: true}}, armorFlags...),
	run: runEncrypt,
}

func runEncrypt(c *call) error {
	text, err := c.asText("binary", "text")
	if err != nil {
		return err
	}
	prof, err := findEncryptProfile(c.value("profile"))
	if err != nil {
		return err
	}
	if c.set["for"] {
		return fail(codeUnsupportedOption, "encrypt --for: pgpstream encrypts to the one valid encryption key of each certificate, whatever its purpose flags")
	}
	if len(c.args) == 0 && len(c.values["with-password"]) == 0 {
		return fail(codeMissingArg, "encrypt: name the CERTS to encrypt to, or give --with-password")
	}
	if err := c.checkOutputs("session-key-out"); err != nil {
		return err
	}
	opt := filter.EncryptOptions{Armor: c.armored(), Cipher: packet.CipherAES256, AEAD: packet.AEADOCB, ChunkByte: 16,
		Literal: packet.Literal{Format: 'b', Time: clock.Now()}, TextSignatures: text}
	if text {
		opt.Literal.Format = 'u'
	}
	if err := c.recipients(&opt, prof); err != nil {
		return err
	}
	for _, name := range c.values["with-password"] {
		p, err := c.newPassword(name)
		if err != nil {
			return err
		}
		opt.Passphrases = append(opt.Passphrases, p)
	}
	if len(c.values["sign-with"]) > 0 {
		if opt.Signers, err = c.signers(c.values["sign-with"]); err != nil {
			return err
		}
	}
	var sk filter.SessionKeyInfo
	opt.SessionKey = func(s filter.SessionKeyInfo) { sk = s }
	if _, err := filter.Encrypt(c.input(text), c.env.Stdout, opt); err != nil {
		return classify(err, codeUnspecificFailure, "encrypt")
	}
	if name := c.value("session-key-out"); name != "" {
		return c.writeOutput(name, []byte(formatSessionKey(sk.Cipher, sk.SessionKey)), true)
	}
	return nil
}

// recipients reads the CERTS and leaves the data packet to filter's
// negotiation (Format Auto): SEIPD v2 when every certificate reads it,
// else SEIPD v1; the rfc9580 profile asks for SEIPD v2 outright. The
// certificates' LibrePGP AEAD feature is not passed on: sop's profiles
// are RFC 9580's, which has no tag 20, so sop never writes it.
func (c *call) recipients(opt *filter.EncryptOptions, prof encryptProfile) error {
	certs, err := c.readCerts(c.args)
	if err != nil {
		return err
	}
	for _, nk := range certs {
		rc, err := nk.key.Recipient()
		if err != nil {
			return failWith(codeCertCannotEncrypt, err, "certificate %s in %q cannot be encrypted to", nk.key.Fingerprint(), nk.name)
		}
		opt.Recipients = append(opt.Recipients, filter.Recipient{Pub: rc.Pub, Features: filter.Features{SEIPDv2: rc.SEIPDv2}})
	}
	opt.Format = filter.Auto
	if prof.always2 {
		opt.Format = filter.SEIPDv2
	}
	return nil
}

// formatSessionKey is the draft's SESSIONKEY: the cipher's number, a
// colon, and the key in hex.
func formatSessionKey(c packet.CipherAlgo, key []byte) string {
	return fmt.Sprintf("%d:%X\n", uint8(c), key)
}

// parseSessionKey reads a SESSIONKEY.
func parseSessionKey(name string, b []byte) (*filter.GivenSessionKey, error) {
	s := strings.TrimSpace(string(b))
	algo, hexKey, ok := strings.Cut(s, ":")
	n, err := strconv.ParseUint(algo, 10, 8)
	if !ok || err != nil {
		return nil, fail(codeBadData, "%q is not a session key: expected ALGO:HEX, such as 9:%s", name, strings.Repeat("00", 32))
	}
	key, err := hex.DecodeString(hexKey)
	if err != nil {
		return nil, failWith(codeBadData, err, "%q: the session key is not hex", name)
	}
	c := packet.CipherAlgo(n)
	if c.KeySize() == 0 {
		return nil, fail(codeUnsupportedOption, "%q: pgpstream knows no cipher %d", name, n)
	}
	if c.KeySize() != len(key) {
		return nil, fail(codeBadData, "%q: %v takes a %d-octet key, not %d", name, c, c.KeySize(), len(key))
	}
	return &filter.GivenSessionKey{Cipher: c, Key: key}, nil
}

var decryptCmd = &command{
	name: "decrypt",
	synopsis: "decrypt [--session-key-out=SESSIONKEY] [--with-session-key=SESSIONKEY...] [--with-password=PASSWORD...] " +
		"[--with-key-password=PASSWORD...] [--verifications-out=VERIFICATIONS [--verify-with=CERTS...]] " +
		"[--verify-not-before=DATE] [--verify-not-after=DATE] [--] [KEYS...] < CIPHERTEXT > DATA",
	flags: []flagSpec{{name: "session-key-out", value: true}, {name: "with-session-key", value: true, multi: true},
		{name: "with-password", value: true, multi: true}, {name: "with-key-password", value: true, multi: true},
		{name: "verifications-out", value: true}, {name: "verify-out", value: true}, {name: "verify-with", value: true, multi: true},
		{name: "verify-not-before", value: true}, {name: "verify-not-after", value: true}},
	run: runDecrypt,
}

func runDecrypt(c *call) error {
	verOut, err := c.verificationsOut()
	if err != nil {
		return err
	}
	if len(c.args) == 0 && len(c.values["with-password"]) == 0 && len(c.values["with-session-key"]) == 0 {
		return fail(codeMissingArg, "decrypt: name the KEYS, or give --with-password or --with-session-key")
	}
	if len(c.values["with-session-key"]) > 1 {
		return fail(codeUnsupportedOption, "decrypt: pgpstream reads the message once, so it takes one --with-session-key")
	}
	if err := c.checkOutputs("session-key-out"); err != nil {
		return err
	}
	if err := c.checkOutput(verOut); err != nil {
		return fmt.Errorf("--verifications-out: %w", err)
	}
	win, err := c.window("verify-not-before", "verify-not-after")
	if err != nil {
		return err
	}
	opt, set, err := c.decryptOptions()
	if err != nil {
		return err
	}
	out := newHeldOutput(c.env.Stdout)
	ev := &decryptEvents{out: out}
	opt.Events = ev
	res, err := filter.Decrypt(c.env.Stdin, out, opt)
	if err != nil {
		return decryptError(err, out, opt.Keys.(*decryptKeys))
	}
	if err := out.commit(); err != nil {
		return failWith(codeUnspecificFailure, err, "writing the plaintext")
	}
	if name := c.value("session-key-out"); name != "" {
		if err := c.writeOutput(name, []byte(formatSessionKey(res.Cipher, res.SessionKey)), true); err != nil {
			return err
		}
	}
	if verOut != "" {
		lines := set.verifications(res.Signatures, win)
		return c.writeOutput(verOut, []byte(joinLines(lines)), false)
	}
	return nil
}

// verificationsOut is --verifications-out (or its old name, --verify-out),
// which needs a --verify-with to verify with (INCOMPLETE_VERIFICATION).
func (c *call) verificationsOut() (string, error) {
	name := c.value("verifications-out")
	if old := c.value("verify-out"); old != "" {
		if name != "" {
			return "", fail(codeIncompatibleOptions, "decrypt: --verify-out is the old name of --verifications-out; give one")
		}
		name = old
	}
	if name != "" && len(c.values["verify-with"]) == 0 {
		return "", fail(codeIncompleteVerification, "decrypt: --verifications-out needs the certificates to verify with (--verify-with)")
	}
	return name, nil
}

// decryptOptions reads what may open the message and the certificates
// its signatures are checked with.
func (c *call) decryptOptions() (filter.DecryptOptions, *certSet, error) {
	var opt filter.DecryptOptions
	keys, err := c.readKeys(c.args)
	if err != nil {
		return opt, nil, err
	}
	dk := &decryptKeys{keys: keys}
	if dk.keyPass, err = c.passwords("with-key-password"); err != nil {
		return opt, nil, err
	}
	if dk.pass, err = c.passwords("with-password"); err != nil {
		return opt, nil, err
	}
	opt.Keys = dk
	if names := c.values["with-session-key"]; len(names) > 0 {
		b, err := c.readInput(names[0], bounded.Line)
		if err != nil {
			return opt, nil, err
		}
		if opt.SessionKey, err = parseSessionKey(names[0], b); err != nil {
			return opt, nil, err
		}
	}
	certs, err := c.readCerts(c.values["verify-with"])
	if err != nil {
		return opt, nil, err
	}
	set := newCertSet(certs)
	if len(certs) > 0 {
		opt.Signers = set
	}
	return opt, set, nil
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// decryptKeys is what KEYS and --with-password give decryption.
type decryptKeys struct {
	keys    []namedKey
	keyPass [][]byte // --with-key-password, to unlock the KEYS
	pass    [][]byte // --with-password, for the message's SKESKs
	locked  error    // why the first key that stayed locked did
}

func (d *decryptKeys) DecryptionKeys(p *packet.PKESK) []*gcpacket.PrivateKey {
	var out []*gcpacket.PrivateKey
	for _, nk := range d.keys {
		out = append(out, nk.key.SecretKeysFor(p)...)
	}
	return out
}

func (d *decryptKeys) Unlock(priv *gcpacket.PrivateKey) error {
	err := keyring.UnlockAny(priv, d.keyPass)
	if err != nil && d.locked == nil {
		d.locked = err
	}
	return err
}

func (d *decryptKeys) Passphrase() ([]byte, error) {
	if len(d.pass) == 0 {
		return nil, errors.New("no --with-password given")
	}
	return d.pass[0], nil
}

func (d *decryptKeys) Passphrases() ([][]byte, error) {
	if len(d.pass) == 0 {
		return nil, errors.New("no --with-password given")
	}
	return d.pass, nil
}

// decryptEvents refuses a message that is not encrypted before any of
// its data is written: sop decrypt of a signed or plain message is
// BAD_DATA, not its contents.
type decryptEvents struct{ out *heldOutput }

func (e *decryptEvents) PKESK(*packet.PKESK)              {}
func (e *decryptEvents) SKESK(*packet.SKESK)              {}
func (e *decryptEvents) SessionKey(filter.SessionKeyInfo) {}
func (e *decryptEvents) Literal(packet.Literal)           {}
func (e *decryptEvents) Verified()                        {}
func (e *decryptEvents) Signature(filter.SignatureResult) {}
func (e *decryptEvents) Warning(w filter.Warning) {
	if w.Kind == filter.WarnNotEncrypted {
		e.out.refuse(fail(codeBadData, "decrypt: the input is not an encrypted message"))
	}
}

// decryptError classifies a failed decryption: a key no password opened
// is KEY_IS_PROTECTED, no way in, a failed integrity check or a cipher
// pgpstream does not read CANNOT_DECRYPT, anything else wrong with the
// input BAD_DATA, a failed write UNSPECIFIC_FAILURE.
func decryptError(err error, out *heldOutput, keys *decryptKeys) error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return err
	case out.err != nil:
		return failWith(codeUnspecificFailure, out.err, "writing the plaintext")
	case errors.Is(err, filter.ErrNoSecretKey) && keys.locked != nil && len(keys.pass) == 0:
		return failWith(codeKeyIsProtected, err, "decrypt: the key for the message is protected and no --with-key-password opens it")
	case errors.Is(err, filter.ErrNoSecretKey), errors.Is(err, filter.ErrBadPassphrase), errors.Is(err, filter.ErrAuthentication):
		return failWith(codeCannotDecrypt, err, "decrypt")
	}
	var unsup *packet.UnsupportedError
	if errors.As(err, &unsup) {
		// The key opened the session key, which names what pgpstream
		// cannot read.
		return failWith(codeCannotDecrypt, err, "decrypt")
	}
	return failWith(codeBadData, err, "decrypt")
}
