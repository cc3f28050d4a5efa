package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

// statusWriter writes gpg's machine-readable status lines ("[GNUPG:]
// KEYWORD args", GnuPG's doc/DETAILS) to --status-fd or --status-file.
// A nil *statusWriter writes nothing, so callers need not check.
//
// A line is written only once what it states is true: DECRYPTION_OKAY and
// GOODMDC only after the integrity check passed and the message ended
// well, never on the strength of plaintext that merely decrypted.
type statusWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func openStatus(st *state, o *options) (*statusWriter, error) {
	fd, file := o.statusFd, o.statusFile // their conflicts are in options.check
	switch {
	case file != "":
		f, err := os.Create(file)
		if err != nil {
			return nil, fmt.Errorf("--status-file: %w", err)
		}
		st.onCleanup(func() { f.Close() })
		return &statusWriter{w: st.watch(f, "--status-file")}, nil
	case fd == 1:
		return &statusWriter{w: st.watch(st.stdout, "--status-fd 1")}, nil
	case fd == 2:
		return &statusWriter{w: st.stderr}, nil
	case fd > 2:
		f := os.NewFile(uintptr(fd), fmt.Sprintf("fd %d", fd))
		if f == nil {
			return nil, usagef("--status-fd %d: not an open file descriptor", fd)
		}
		if _, err := f.Stat(); err != nil {
			return nil, usagef("--status-fd %d: %v", fd, err)
		}
		return &statusWriter{w: st.watch(f, fmt.Sprintf("--status-fd %d", fd))}, nil
	}
	return nil, nil
}

// line writes one status line in a single Write, so a reader on a pipe
// sees whole lines even while the progress goroutine writes too.
func (s *statusWriter) line(keyword string, args ...any) {
	if s == nil {
		return
	}
	var b strings.Builder
	b.WriteString("[GNUPG:] ")
	b.WriteString(keyword)
	for _, a := range args {
		fmt.Fprintf(&b, " %v", a)
	}
	b.WriteByte('\n')
	s.mu.Lock()
	s.w.Write([]byte(b.String()))
	s.mu.Unlock()
}

// statusEscape percent-escapes a free-text argument (a file name) as gpg
// does, so it stays one space-free field on one line.
func statusEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == '%' || c == 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
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
	case errors.Is(err, keyring.ErrNoKey):
		code = 9 // GPG_ERR_NO_PUBKEY
	case errors.Is(err, keyring.ErrAmbiguous):
		code = 107 // GPG_ERR_AMBIGUOUS_NAME
	}
	return sourceGPG | code
}

// failure ends a failed command: FAILURE <command> <code>.
func (s *statusWriter) failure(cmd string, err error) {
	s.line("FAILURE", cmd, gpgErrorCode(err))
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

// statusKeys reports on the key lookups decryption makes: KEY_CONSIDERED
// for each secret key tried, NO_SECKEY for a recipient we hold no key for,
// NEED_PASSPHRASE before a locked key is unlocked.
type statusKeys struct {
	filter.Keys
	s *statusWriter
}

func (k *statusKeys) DecryptionKeys(p *packet.PKESK) []*gcpacket.PrivateKey {
	privs := k.Keys.DecryptionKeys(p)
	if len(privs) == 0 {
		k.s.line("NO_SECKEY", keyIDOf(p))
	}
	for _, priv := range privs {
		k.s.line("KEY_CONSIDERED", fmt.Sprintf("%X", priv.Fingerprint), 0)
	}
	return privs
}

func (k *statusKeys) Unlock(priv *gcpacket.PrivateKey) error {
	if priv.Encrypted {
		// The primary key's ID is not at hand here; gpg prints the
		// subkey's in both places for a primary-key decryption.
		id := fmt.Sprintf("%016X", priv.KeyId)
		k.s.line("NEED_PASSPHRASE", id, id, int(priv.PubKeyAlgo), 0)
	}
	return k.Keys.Unlock(priv)
}

// decryptStatus follows one decryption and writes its status lines.
type decryptStatus struct {
	s        *statusWriter
	keys     *statusKeys
	sawESK   bool // a PKESK or SKESK was read: decryption was attempted
	began    bool // BEGIN_DECRYPTION written
	verified bool // the integrity check passed
}

func (d *decryptStatus) esk(p *packet.PKESK) {
	d.sawESK = true
	if p != nil {
		d.s.line("ENC_TO", keyIDOf(p), int(p.Algo), 0)
	}
}

func (d *decryptStatus) sessionKey(sk filter.SessionKeyInfo) {
	if d.keys != nil && sk.Key != nil {
		fpr := fmt.Sprintf("%X", sk.Key.Fingerprint)
		// <fpr> <primary fpr> <ownertrust>: the primary's fingerprint
		// is not at hand; u as gpg does for own keys.
		d.s.line("DECRYPTION_KEY", fpr, fpr, "u")
	}
	d.begin()
	mdc, aead := decryptionInfo(sk)
	d.s.line("DECRYPTION_INFO", mdc, int(sk.Cipher), aead)
}

func (d *decryptStatus) begin() {
	if !d.began {
		d.began = true
		d.s.line("BEGIN_DECRYPTION")
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
	args := []any{fmt.Sprintf("%02x", l.Format), t}
	if l.FileName != "" {
		args = append(args, statusEscape(l.FileName))
	}
	d.s.line("PLAINTEXT", args...)
}

// done writes the end of a decryption: only here, after filter.Decrypt has
// returned, is it known whether the message was good.
func (d *decryptStatus) done(err error) {
	if d.s == nil {
		return
	}
	if err == nil {
		if !d.began {
			return // a message that was not encrypted
		}
		d.s.line("DECRYPTION_OKAY")
		if d.verified {
			d.s.line("GOODMDC")
		}
		d.s.line("END_DECRYPTION")
		return
	}
	if d.began || d.sawESK {
		if d.began && errors.Is(err, filter.ErrAuthentication) {
			d.s.line("BADMDC")
		}
		d.begin()
		d.s.line("DECRYPTION_FAILED")
		d.s.line("END_DECRYPTION")
	}
	d.s.failure("decrypt", err)
}

// encryptStatus brackets an encryption: BEGIN_ENCRYPTION <mdc_method>
// <sym_algo> [<aead_algo>] before the first byte, END_ENCRYPTION after the
// last was written.
func encryptBegin(s *statusWriter, opt filter.EncryptOptions) {
	if opt.Format == filter.SEIPDv1 {
		s.line("BEGIN_ENCRYPTION", 2, int(opt.Cipher))
		return
	}
	s.line("BEGIN_ENCRYPTION", 0, int(opt.Cipher), int(opt.AEAD))
}
