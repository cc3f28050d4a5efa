package main

import (
	"errors"
	"fmt"

	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

func cmdDecrypt(st *state, o *options) (err error) {
	status, err := openStatus(st, o)
	if err != nil {
		return err
	}
	ds := &decryptStatus{s: status, exit: func() int { return st.exit }}
	defer func() { ds.done(err) }() // after the output is committed or removed
	in, inName, closeIn, err := openInput(st, o)
	if err != nil {
		return err
	}
	defer closeIn()
	in, stopProgress := startProgress(st, o, in, inName, "decrypt", status)
	defer stopProgress()
	outPath := o.output
	if sameFile(inName, outPath) {
		return fmt.Errorf("input and output are the same file")
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	var keys filter.Keys = &ringKeys{ring: ring, pass: newPassphrases(st, o), st: st}
	if status != nil {
		ds.keys = &statusKeys{Keys: keys, s: status, ring: ring, given: o.passphraseSet || o.passphraseFile != ""}
		keys = ds.keys
	}
	out, err := openOutput(st, o, outPath, true)
	if err != nil {
		return err
	}
	signers := newRingSigners(ring)
	sigs := &sigReporter{st: st, status: status, signers: signers, weak: o.weakDigests, trustModel: o.trustModelName()}
	res, err := filter.Decrypt(in, out.w, filter.DecryptOptions{
		Keys:              keys,
		AllowUnprotected:  o.allowUnprotected,
		MaxDecompressed:   o.maxOutput,
		Threads:           o.threads,
		Signers:           signers,
		LegacyLiteralHash: o.legacyLiteralHash,
		AllowWeakDigests:  o.allowWeakDigests,
		Events:            &decryptEvents{st: st, status: ds, sigs: sigs, out: out},
	})
	if err != nil {
		released := out.released()
		out.abort()
		if released {
			return withHints(err, fmt.Sprintf("more than %d MiB had already been written to %s: discard it, it is not authenticated", holdback>>20, out.name))
		}
		return err
	}
	if signatureOutcome(st, res, sigs, o.allowUnprotected) {
		if out.released() {
			st.hintf("more than %d MiB had already been written to %s: discard it", holdback>>20, out.name)
		}
		out.abort()
		return nil
	}
	if err := out.commit(); err != nil {
		return err
	}
	st.infof("decrypted %d bytes (%s, %v)", res.Bytes, res.Mode(), res.Cipher)
	return nil
}

type decryptEvents struct {
	st     *state
	status *decryptStatus
	sigs   *sigReporter
	out    *output
}

func (e *decryptEvents) PKESK(p *packet.PKESK) { e.status.esk(p) }
func (e *decryptEvents) SKESK(p *packet.SKESK) { e.status.skeskRead(p) }
func (e *decryptEvents) SessionKey(s filter.SessionKeyInfo) {
	e.st.infof("session key from %s; %v, %s", s.From(), s.Cipher, s.Mode())
	e.status.sessionKey(s)
	if s.Format.ReleasesAuthenticated() && e.out != nil {
		// Each chunk is authenticated before it is released: nothing
		// to hold back, and the memory stays with the chunks.
		e.out.stream()
	}
}
func (e *decryptEvents) Literal(l packet.Literal) {
	if l.FileName != "" {
		e.st.infof("original file name %q", l.FileName)
	}
	e.status.literal(l)
}
func (e *decryptEvents) Verified() {
	e.st.infof("integrity check passed")
	e.status.verified = true
}
func (e *decryptEvents) Warning(w filter.Warning) { e.st.warnf("%s", w.Msg) }

// hintsFor suggests the flag that would help with err.
func hintsFor(err error) []string {
	var unp filter.ErrUnprotected
	switch {
	case errors.As(err, &unp):
		return []string{"if you trust where it came from, --allow-unprotected reads it anyway (the output may have been tampered with)"}
	case errors.Is(err, filter.ErrNoSecretKey) && errors.Is(err, filter.ErrKeyLocked):
		return []string{"give the key's passphrase with --passphrase-file FILE or --passphrase-fd N"}
	case errors.Is(err, filter.ErrNoSecretKey) && errors.Is(err, keyring.ErrBadPassphrase):
		// The key is here (in the ring or gpg-agent); its passphrase was wrong.
		return []string{"check the passphrase; --passphrase-file reads only the first line of the file"}
	case errors.Is(err, filter.ErrNoSecretKey):
		return []string{"import the recipient's secret key with --import, or point --homedir at the keyring that has it"}
	case errors.Is(err, errNoPassphrase):
		return []string{"give it with --passphrase-file FILE or --passphrase-fd N (--passphrase PW works but shows in ps)"}
	case errors.Is(err, keyring.ErrBadPassphrase), errors.Is(err, filter.ErrBadPassphrase):
		return []string{"check the passphrase; --passphrase-file reads only the first line of the file"}
	case errors.Is(err, filter.ErrTooMuchOutput):
		return []string{"raise the limit with --max-output N"}
	}
	return nil
}
