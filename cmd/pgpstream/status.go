package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

// statusWriter writes gpg's machine-readable status lines to
// --status-fd or --status-file: typed lines, one type per keyword,
// rendered by package status, which escapes every field, so no user ID,
// file name or server record can add a line. A nil *statusWriter writes
// nothing, so callers need not check.
//
// A line is written only once what it states is true: DECRYPTION_OKAY and
// GOODMDC only after the integrity check passed and the message ended
// well, never on the strength of plaintext that merely decrypted.
type statusWriter = status.Writer

func openStatus(st *state, o *options) (*statusWriter, error) {
	fd, file := o.statusFd, o.statusFile // their conflicts are in options.check
	switch {
	case file != "":
		if st.statusFile != nil {
			// Created once: a second os.Create would truncate it, and
			// two offsets would write over each other's lines.
			return st.statusFile, nil
		}
		f, err := os.Create(file)
		if err != nil {
			return nil, fmt.Errorf("--status-file: %w", err)
		}
		st.onCleanup(func() { f.Close() })
		st.statusFile = status.NewWriter(st.watch(f, "--status-file"))
		return st.statusFile, nil
	case fd == 1:
		return status.NewWriter(st.watch(st.stdout, "--status-fd 1")), nil
	case fd == 2:
		return status.NewWriter(st.stderr), nil
	case fd > 2:
		f, err := callerFile(fmt.Sprintf("--status-fd %d", fd), fd)
		if err != nil {
			return nil, err
		}
		return status.NewWriter(st.watch(f, fmt.Sprintf("--status-fd %d", fd))), nil
	}
	return nil, nil
}

// gpgErrorCode is a libgpg-error code with gpg as its source, the number
// gpg puts in ERROR and FAILURE lines.
func gpgErrorCode(err error) int {
	const sourceGPG = 2 << 24
	code := 1 // GPG_ERR_GENERAL
	switch {
	case errors.Is(err, filter.ErrNoSecretKey):
		code = 17 // GPG_ERR_NO_SECKEY
	case errors.Is(err, filter.ErrBadPassphrase), errors.Is(err, keyring.ErrBadPassphrase):
		code = 11 // GPG_ERR_BAD_PASSPHRASE
	case errors.Is(err, filter.ErrAuthentication):
		code = 152 // GPG_ERR_DECRYPT_FAILED
	case errors.Is(err, filter.ErrMalformed):
		code = 14 // GPG_ERR_INV_PACKET
	case errors.Is(err, filter.ErrTrailingData):
		code = 89 // GPG_ERR_BAD_DATA, as gpg's "multiple plaintexts"
	case errors.Is(err, keyring.ErrNoKey):
		code = 9 // GPG_ERR_NO_PUBKEY
	case errors.Is(err, keyring.ErrAmbiguous):
		code = 107 // GPG_ERR_AMBIGUOUS_NAME
	}
	return sourceGPG | code
}

// statusFailure ends a failed command: FAILURE <command> <code>.
func statusFailure(s *statusWriter, cmd string, err error) {
	if cmd == "decrypt" || cmd == "verify" {
		statusNoData(s, err)
	}
	statusFailureCode(s, cmd, gpgErrorCode(err))
}

// statusNoData writes gpg's NODATA lines for an input that holds no
// OpenPGP data: NODATA 1 (no armor) and 2 (no packet) for bytes that are
// neither armor nor a packet, NODATA 2 for an empty input. GPGME reports
// NODATA as GPG_ERR_NO_DATA ("No data"), which its callers test for.
func statusNoData(s *statusWriter, err error) {
	var se *packet.StructuralError
	switch {
	case errors.Is(err, filter.ErrEmpty):
		s.Write(status.NoData{What: 2})
	case errors.As(err, &se) && se.Packet == "packet header" && se.Offset == 0 && strings.HasPrefix(se.Msg, "invalid packet (ctb="):
		s.Write(status.NoData{What: 1})
		s.Write(status.NoData{What: 2})
	}
}

func statusFailureCode(s *statusWriter, cmd string, code int) {
	s.Write(status.Failure{Location: cmd, Code: code})
}

// statusExitFailure is gpg's last line when a command ends with exit
// code 1 (a bad or expired signature) and no FAILURE was written yet:
// FAILURE gpg-exit with GPG_ERR_GENERAL. GPGME skips it; scripts that
// treat every other FAILURE as an error rely on its exact text.
func statusExitFailure(s *statusWriter, code int) {
	if code == exitBad && !s.Failed() {
		statusFailureCode(s, "gpg-exit", 2<<24|1)
	}
}

// keyConsidered writes what gpg writes for each key it looks up:
// KEYEXPIRED <time> when the key has expired, then KEY_CONSIDERED
// <primary fingerprint> <flags> (bit 0: not selected; bit 1: no subkey
// of it qualified for the use).
func keyConsidered(s *statusWriter, k *keyring.Key, now time.Time, flags int) {
	if s == nil || k == nil {
		return
	}
	if _, exp := k.Lifetime(now); !exp.IsZero() {
		s.Write(status.KeyExpired{Time: exp.Unix()})
	}
	s.Write(status.KeyConsidered{Fpr: k.Fingerprint(), Flags: flags})
}

func keyIDOf(p *packet.PKESK) string {
	switch {
	case p.Wildcard():
		return "0000000000000000"
	case p.Version == 6 && len(p.Fingerprint) >= 8:
		return fmt.Sprintf("%016X", packet.KeyIDOf(p.Fingerprint))
	}
	return fmt.Sprintf("%016X", p.KeyID)
}

// keystr is a key ID (16 hex digits) as gpg's messages write it, in the
// --keyid-format asked for: long by default, as gpg 2.2's keystr.
func (s *state) keystr(id string) string {
	switch s.keyidFormat {
	case "short":
		return id[len(id)-8:]
	case "0xshort":
		return "0x" + id[len(id)-8:]
	case "0xlong":
		return "0x" + id
	}
	return id
}

// statusKeys reports on the key lookups decryption makes, as gpg 2.2
// does: KEY_CONSIDERED with the primary key's fingerprint for each
// secret key tried, NEED_PASSPHRASE before a locked key is unlocked, and
// NO_SECKEY for each recipient we hold no key for, written once the
// session key is found (or not), after the keys tried.
type statusKeys struct {
	filter.Keys
	s       *statusWriter
	ring    *keyring.Ring
	missing []*packet.PKESK // the recipients for NO_SECKEY
	owners  map[string]*keyring.Key
	// given is set when the passphrase came with the command
	// (--passphrase, --passphrase-file, --passphrase-fd): gpg writes
	// NEED_PASSPHRASE only when it is about to ask for one.
	given   bool
	badPass bool // a secret key stayed locked: wrong passphrase
}

func (k *statusKeys) owner(priv *gcpacket.PrivateKey) *keyring.Key {
	if k.ring == nil {
		return nil
	}
	if o, ok := k.owners[string(priv.Fingerprint)]; ok {
		return o
	}
	if k.owners == nil {
		k.owners = map[string]*keyring.Key{}
	}
	o := k.ring.Owner(priv.Fingerprint)
	k.owners[string(priv.Fingerprint)] = o
	return o
}

func (k *statusKeys) DecryptionKeys(p *packet.PKESK) []*gcpacket.PrivateKey {
	privs := k.Keys.DecryptionKeys(p)
	if len(privs) == 0 {
		k.missing = append(k.missing, p)
	}
	now := clock.Now()
	for _, priv := range privs {
		if o := k.owner(priv); o != nil {
			keyConsidered(k.s, o, now, 0)
		} else {
			k.s.Write(status.KeyConsidered{Fpr: fmt.Sprintf("%X", priv.Fingerprint), Flags: 0})
		}
	}
	return privs
}

// noSecKeys writes the NO_SECKEY lines held back, as gpg writes them
// when it lists the recipients after the decryption: last packet first
// (gpg's list is built by prepending), each after the KEY_CONSIDERED of
// the public key it looked up to name the recipient, when it has one.
func (k *statusKeys) noSecKeys() {
	now := clock.Now()
	for i := len(k.missing) - 1; i >= 0; i-- {
		p := k.missing[i]
		if k.ring != nil && !p.Wildcard() {
			id := p.KeyID
			if p.Version == 6 && len(p.Fingerprint) >= 8 {
				id = packet.KeyIDOf(p.Fingerprint)
			}
			keyConsidered(k.s, k.ring.OwnerOfKeyID(id), now, 0)
		}
		k.s.Write(status.NoSeckey{KeyID: keyIDOf(p)})
	}
	k.missing = nil
}

func (k *statusKeys) Unlock(priv *gcpacket.PrivateKey) error {
	if priv.Encrypted && !k.given {
		// NEED_PASSPHRASE <key ID> <primary key ID> <algo> 0.
		id := fmt.Sprintf("%016X", priv.KeyId)
		main := id
		if o := k.owner(priv); o != nil {
			main = fmt.Sprintf("%016X", o.KeyID())
		}
		k.s.Write(status.NeedPassphrase{KeyID: id, MainKeyID: main, PubAlgo: int(priv.PubKeyAlgo), KeyLen: 0})
	}
	err := k.Keys.Unlock(priv)
	if errors.Is(err, keyring.ErrBadPassphrase) || errors.Is(err, filter.ErrBadPassphrase) {
		// gpg 2.2 passes on gpg-agent's GPG_ERR_BAD_PASSPHRASE (source
		// 4, the agent) in this ERROR line; GPGME turns it into its
		// bad-passphrase error. It writes no BAD_PASSPHRASE line.
		k.badPass = true
		k.s.Write(status.Error{Location: "pkdecrypt_failed", Code: strconv.Itoa(4<<24 | 11)})
	}
	return err
}

// decryptStatus follows one decryption and writes its status lines.
type decryptStatus struct {
	s        *statusWriter
	keys     *statusKeys
	sawESK   bool          // a PKESK or SKESK was read: decryption was attempted
	sawPKESK bool          // a PKESK was read
	skesk    *packet.SKESK // the first SKESK read
	began    bool          // BEGIN_DECRYPTION written
	verified bool          // the integrity check passed
	exit     func() int    // the exit code so far, for FAILURE gpg-exit
	given    bool          // --override-session-key: no passphrase is asked for
}

func (d *decryptStatus) esk(p *packet.PKESK) {
	d.sawESK = true
	if p != nil {
		d.sawPKESK = true
		d.s.Write(status.EncTo{KeyID: keyIDOf(p), PubAlgo: int(p.Algo), KeyLen: 0})
	}
}

// skeskRead writes NEED_PASSPHRASE_SYM <cipher> <S2K type> <S2K hash>
// for the first SKESK, as gpg does before it asks for the passphrase.
func (d *decryptStatus) skeskRead(p *packet.SKESK) {
	d.esk(nil)
	if d.skesk != nil || p == nil || d.given {
		return
	}
	d.skesk = p
	mode, hash := p.S2KType()
	d.s.Write(status.NeedPassphraseSym{Cipher: int(p.Cipher), S2K: int(mode), Hash: int(hash)})
}

func (d *decryptStatus) sessionKey(sk filter.SessionKeyInfo) {
	if d.keys != nil && sk.Key != nil {
		fpr := fmt.Sprintf("%X", sk.Key.Fingerprint)
		// <fpr> <primary fpr> <ownertrust of the primary>.
		primary, trust := fpr, "-"
		if o := d.keys.owner(sk.Key); o != nil {
			primary = o.Fingerprint()
			trust = d.keys.ring.OwnerTrust(primary).Letter()
		}
		d.s.Write(status.DecryptionKey{Fpr: fpr, PrimaryFpr: primary, OwnerTrust: trust})
	}
	if d.keys != nil {
		d.keys.noSecKeys()
	}
	d.begin()
	mdc, aead := decryptionInfo(sk)
	d.s.Write(status.DecryptionInfo{MDC: mdc, Cipher: int(sk.Cipher), AEAD: aead})
}

func (d *decryptStatus) begin() {
	if !d.began {
		d.began = true
		d.s.Write(status.BeginDecryption{})
	}
}

// decryptionInfo gives DECRYPTION_INFO's <mdc_method> (2 for SEIPD v1's
// MDC, 0 otherwise) and <aead_algo> (RFC 9580 §9.6 ids, 0 for none).
func decryptionInfo(sk filter.SessionKeyInfo) (mdc, aead int) {
	if sk.Format == filter.SEIPDv1 {
		return 2, 0
	}
	return 0, int(sk.AEAD)
}

func (d *decryptStatus) literal(l packet.Literal) {
	var t int64
	if !l.Time.IsZero() {
		t = l.Time.Unix()
	}
	// The name field is there even when empty, as gpg writes it.
	d.s.Write(status.Plaintext{Format: fmt.Sprintf("%02x", l.Format), Time: t, Name: l.FileName})
	if l.Length >= 0 {
		d.s.Write(status.PlaintextLength{Length: l.Length})
	}
}

// done writes the end of a decryption: only here, after filter.Decrypt has
// returned, is it known whether the message was good.
func (d *decryptStatus) done(err error) {
	if d.s == nil {
		return
	}
	if d.keys != nil {
		d.keys.noSecKeys()
	}
	if err == nil {
		if d.began {
			d.s.Write(status.DecryptionOkay{})
			if d.verified {
				d.s.Write(status.GoodMDC{})
			}
			d.s.Write(status.EndDecryption{})
		}
		if d.exit != nil {
			statusExitFailure(d.s, d.exit())
		}
		return
	}
	if !d.began && !d.sawPKESK && d.skesk != nil && d.skesk.Version == 4 &&
		(errors.Is(err, filter.ErrBadPassphrase) || errors.Is(err, filter.ErrAuthentication)) {
		// A wrong passphrase, as gpg 2.2 reports it: the key it
		// derived fails the check, which gpg calls a bad passphrase
		// in an ERROR line and not BADMDC nor BAD_PASSPHRASE, and it
		// writes no FAILURE (GPGME reads the ERROR line for its
		// GPG_ERR_BAD_PASSPHRASE). A v4 SKESK is followed by SEIPD v1
		// (MDC method 2).
		d.begin()
		d.s.Write(status.DecryptionInfo{MDC: 2, Cipher: int(d.skesk.Cipher), AEAD: 0})
		d.s.Write(status.Error{Location: "symkey_decrypt.maybe_error", Code: "11_BAD_PASSPHRASE"})
		d.s.Write(status.DecryptionFailed{})
		d.s.Write(status.EndDecryption{})
		return
	}
	if !d.began && d.sawPKESK && errors.Is(err, filter.ErrNoSecretKey) {
		// No secret key, or none that could be unlocked: gpg's
		// lines, and no FAILURE (NO_SECKEY or the ERROR line says
		// why).
		d.begin()
		d.s.Write(status.DecryptionFailed{})
		d.s.Write(status.EndDecryption{})
		return
	}
	if d.began || d.sawESK {
		if d.began && errors.Is(err, filter.ErrAuthentication) {
			d.s.Write(status.BadMDC{})
		}
		d.begin()
		d.s.Write(status.DecryptionFailed{})
		d.s.Write(status.EndDecryption{})
	}
	statusFailure(d.s, "decrypt", err)
}

// recipientRefused writes gpg 2.2's lines for a -r that gives no key:
// KEY_CONSIDERED for a key that matched but cannot be used, INV_RECP
// <reason> <spec> and FAILURE encrypt with the bare error code, as gpg
// writes it there. Named by a name or address, gpg 2.2 does not tell an
// expired or revoked key from a missing one: reason 1 and
// GPG_ERR_NO_PUBKEY for both. Named by key ID or fingerprint, it finds
// the key and says so: KEY_CONSIDERED with flags 3 (not selected, no
// usable subkey), reason 0 and GPG_ERR_UNUSABLE_PUBKEY. Reason 2
// (ambiguous) is pgpstream's: gpg takes the first match.
func recipientRefused(s *statusWriter, ring *keyring.Ring, spec string, err error) {
	if s == nil {
		return
	}
	reason, code := 0, gpgErrorCode(err)&0xffff
	switch {
	case errors.Is(err, keyring.ErrNoKey):
		reason, code = 1, 9
	case errors.Is(err, keyring.ErrUnusable):
		reason, code, flags := 1, 9, 0
		if isKeyIDSpec(spec) {
			reason, code, flags = 0, 53, 3
		}
		if k, lerr := ring.Lookup(spec, false); lerr == nil {
			keyConsidered(s, k, clock.Now(), flags)
		}
		s.Write(status.InvRecp{Reason: reason, Spec: status.Text(spec)})
		statusFailureCode(s, "encrypt", code)
		return
	case errors.Is(err, keyring.ErrAmbiguous):
		reason = 2
	}
	s.Write(status.InvRecp{Reason: reason, Spec: status.Text(spec)})
	statusFailureCode(s, "encrypt", code)
}

// hexKeySpec reads spec as gpg's key ID or fingerprint form: hex
// digits, with or without 0x, and a trailing ! for exactly that
// (sub)key. digits is how many hex digits there are, 0 when spec is not
// of that form.
func hexKeySpec(spec string) (digits int, bang bool) {
	h, bang := strings.CutSuffix(spec, "!")
	h = strings.TrimPrefix(strings.TrimPrefix(h, "0x"), "0X")
	if h == "" || strings.Trim(strings.ToUpper(h), "0123456789ABCDEF") != "" {
		return 0, false
	}
	return len(h), bang
}

// isKeyIDSpec reports whether spec names a key by its ID or fingerprint
// (8, 16, 32, 40 or 64 hex digits), which gpg looks up exactly rather
// than by name.
func isKeyIDSpec(spec string) bool {
	switch n, _ := hexKeySpec(spec); n {
	case 8, 16, 32, 40, 64:
		return true
	}
	return false
}

// encryptStatus brackets an encryption: BEGIN_ENCRYPTION <mdc_method>
// <sym_algo> [<aead_algo>] before the first byte, END_ENCRYPTION after the
// last was written.
func encryptBegin(s *statusWriter, opt filter.EncryptOptions) {
	// NEED_PASSPHRASE_SYM came before the passphrase was asked (the
	// command fd's GET_HIDDEN follows it, as in gpg): EncryptOptions.SKESKS2K.
	format, mode := opt.Negotiate()
	if format == filter.SEIPDv1 {
		s.Write(status.BeginEncryption{MDC: 2, Cipher: int(opt.Cipher)})
		return
	}
	s.Write(status.BeginEncryption{MDC: 0, Cipher: int(opt.Cipher), AEAD: int(mode)})
}
