package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/output"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

func cmdDecrypt(st *state, o *options) (err error) {
	sw, err := openStatus(st, o)
	if err != nil {
		return err
	}
	ds := &decryptStatus{s: sw, exit: func() int { return st.exit }}
	defer func() { ds.done(err) }() // after the output is committed or removed
	in, inName, closeIn, err := openInput(st, o)
	if err != nil {
		return err
	}
	defer closeIn()
	in, stopProgress := startProgress(st, o, in, inName, "decrypt", sw)
	defer stopProgress()
	outPath := o.output
	if sameFile(inName, outPath) {
		return fmt.Errorf("input and output are the same file")
	}
	given, err := givenSessionKey(o)
	if err != nil {
		return err
	}
	ds.given = given != nil
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	if o.listOnly {
		return listOnly(st, o, in, ring, sw, ds)
	}
	rk := &ringKeys{ring: ring, pass: newPassphrases(st, o), st: st}
	var (
		out      *output.Output
		embedded *output.Embedded
	)
	if o.useEmbeddedFilename && outPath.none() {
		// -o wins, as in gpg; the name is known only once the
		// literal data packet is read.
		out, embedded = newEmbeddedOutput(st, o, inName)
	} else if out, err = openOutput(st, o, outPath, true); err != nil {
		return err
	}
	sigs := &sigReporter{st: st, status: sw, ring: ring, trustModel: o.trustModelName()}
	var (
		read     int   // messages read
		total    int64 // their literal data
		last     *filter.Result
		withhold bool
	)
	next := func() filter.DecryptOptions {
		if read++; read > 1 {
			// The message before succeeded; its lines end here, the
			// exit code's at the very end.
			ds.exit = nil
			ds.done(nil)
			ds = &decryptStatus{s: sw, exit: func() int { return st.exit }, given: given != nil}
			rk.skesk = nil
		}
		var keys filter.Keys = rk
		if sw != nil {
			ds.keys = &statusKeys{Keys: keys, s: sw, ring: ring, given: o.passphraseSet || o.passphraseFile != ""}
			keys = ds.keys
		}
		return filter.DecryptOptions{
			Keys:              keys,
			AllowUnprotected:  o.allowUnprotected,
			MaxDecompressed:   o.maxOutput,
			Threads:           o.threads,
			Signers:           ring,
			LegacyLiteralHash: o.legacyLiteralHash,
			AllowWeakDigests:  o.allowWeakDigests,
			RejectHashes:      o.weakDigests,
			Time:              clock.Now(),
			SessionKey:        given,
			Unwrap:            o.unwrap,
			UnwrapArmor:       o.unwrap && o.armor,
			Events:            &decryptEvents{st: st, status: ds, sigs: sigs, out: out, keys: rk, show: o.showSessionKey, hold: o.allowMultiple, embedded: embedded},
		}
	}
	err = readMessages(o, in, out.W, next, func(res *filter.Result) {
		total += res.Bytes
		last = res
		// After one message is withheld the output is lost anyway:
		// the reports of the others would only repeat it.
		if !withhold && signatureOutcome(st, res, sigs, o.allowUnprotected) {
			withhold = true
		}
	})
	if err != nil && embedded != nil && embedded.Err() != nil {
		// The refused name, not how the write of its data failed.
		err = embedded.Err()
	}
	if given == nil && (errors.Is(err, filter.ErrBadPassphrase) || errors.Is(err, filter.ErrAuthentication)) {
		// gpg clears a cached passphrase that failed (a wrong one
		// fails the quick check as often as not: ErrAuthentication).
		rk.pass.ForgetSymmetric()
	}
	if err != nil {
		trailingStatus(sw, err)
		released := out.Released()
		out.Abort()
		if released {
			return withHints(err, fmt.Sprintf("more than %d MiB had already been written to %s: discard it, it is not authenticated", output.Holdback>>20, out.Name))
		}
		return err
	}
	st.exit = max(st.exit, sigs.exit())
	if withhold {
		if out.Released() {
			st.hintf("more than %d MiB had already been written to %s: discard it", output.Holdback>>20, out.Name)
		}
		out.Abort()
		return nil
	}
	if err := out.Commit(); err != nil {
		return err
	}
	if read > 1 {
		st.infof("decrypted %d messages, %d bytes", read, total)
	} else {
		st.infof("decrypted %d bytes (%s, %v)", total, last.Mode(), last.Cipher)
	}
	return nil
}

// readMessages reads the one message of in, or with
// --allow-multiple-messages each message in turn, writing their data to
// out. Each message is read with the options next gives, so that its
// Events hear of that message alone, and handed to done once read and
// checked. It stops at the first error: what is left of the input can
// no longer be told apart.
func readMessages(o *options, in io.Reader, out io.Writer, next func() filter.DecryptOptions, done func(*filter.Result)) error {
	if !o.allowMultiple {
		res, err := filter.Decrypt(in, out, next())
		if err == nil {
			done(res)
		}
		return err
	}
	m := filter.NewMessages(in)
	defer m.Close()
	for first := true; ; first = false {
		if !first {
			if more, err := m.More(); err != nil || !more {
				return err
			}
		}
		res, err := m.Next(out, next())
		if err != nil {
			return err
		}
		done(res)
	}
}

// trailingStatus writes the ERROR line gpg writes when a second message
// follows the first ("multiple plaintexts"): GPGME fails the whole
// operation on it, whatever it read before.
func trailingStatus(s *statusWriter, err error) {
	var t *filter.TrailingError
	if errors.As(err, &t) && t.Message {
		s.Write(status.Error{Location: "proc_pkt.plaintext", Code: "89_BAD_DATA"})
	}
}

type decryptEvents struct {
	st     *state
	status *decryptStatus
	sigs   *sigReporter
	out    *output.Output
	keys   *ringKeys
	show   bool // --show-session-key
	// hold keeps the output held back even for AEAD: with several
	// messages, one that releases authenticated chunks must not open
	// the way for the next one's unauthenticated plaintext.
	hold bool
	// embedded is the output --use-embedded-filename opens when the
	// literal data packet names it.
	embedded *output.Embedded
}

func (e *decryptEvents) PKESK(p *packet.PKESK) {
	e.st.infof("public key is %s", e.st.keystr(keyIDOf(p)))
	e.status.esk(p)
}
func (e *decryptEvents) SKESK(s *packet.SKESK) {
	e.status.skeskRead(s)
	if e.keys != nil && e.keys.skesk == nil {
		e.keys.skesk = s // gpg asks with the first one's S2K
	}
}
func (e *decryptEvents) SessionKey(s filter.SessionKeyInfo) {
	e.st.infof("session key from %s; %v, %s", s.From(), s.Cipher, s.Mode())
	e.status.sessionKey(s)
	if e.show {
		showSessionKey(e.st, e.status.s, s)
	}
	if s.Format.ReleasesAuthenticated() && e.out != nil && !e.hold {
		// Each chunk is authenticated before it is released: nothing
		// to hold back, and the memory stays with the chunks.
		e.out.Stream()
	}
}
func (e *decryptEvents) Literal(l packet.Literal) {
	if l.FileName != "" {
		e.st.infof("original file name '%s'", l.FileName)
	}
	e.status.literal(l)
	if e.embedded != nil {
		e.embedded.Open(l.FileName)
	}
}
func (e *decryptEvents) Verified() {
	e.st.infof("integrity check passed")
	e.status.verified = true
}
func (e *decryptEvents) Warning(w filter.Warning) { e.st.warnf("%s", w.Msg) }

// hintsFor suggests the flag that would help with err.
func hintsFor(err error) []string {
	var unp filter.ErrUnprotected
	var trailing *filter.TrailingError
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
	case errors.As(err, &trailing) && trailing.Message:
		return []string{"--allow-multiple-messages reads each message in turn and checks each on its own"}
	case errors.Is(err, keyring.ErrDamaged):
		return []string{"with --yes the damaged file is kept beside it as FILE.damaged, and the keys read before the damage are written"}
	}
	return nil
}

// errListOnly stops a --list-only decryption at the encrypted data.
var errListOnly = errors.New("--list-only: nothing is decrypted")

// listOnly is --decrypt --list-only: it reads the message up to its
// encrypted data and says, as gpg does, whom it is encrypted to and with
// how many passphrases, without asking for a passphrase or decrypting.
func listOnly(st *state, o *options, in io.Reader, ring *keyring.Ring, sw *statusWriter, ds *decryptStatus) error {
	rep := &recipientReport{st: st, status: sw, ring: ring}
	_, err := filter.Decrypt(in, io.Discard, filter.DecryptOptions{
		Keys:             listOnlyKeys{},
		AllowUnprotected: true, // nothing is released: the data is never opened
		Events:           &listOnlyEvents{rep},
	})
	if len(rep.pkesks)+rep.skesks == 0 {
		// Not encrypted (signed or literal data was read and dropped),
		// or not OpenPGP: the error is the usual one.
		return err
	}
	if err != nil && !errors.Is(err, errListOnly) && !errors.Is(err, filter.ErrNoSecretKey) {
		return err
	}
	ds.s = nil // the report below is the whole of it
	rep.finish()
	return nil
}

// recipientReport is what gpg says of an encrypted message it lists
// (--list-only): status ENC_TO for each PKESK as it is read; at the
// encrypted data, the number of passphrases, then for each PKESK
// KEY_CONSIDERED when the ring has its key, NO_SECKEY when not its secret
// part, and "encrypted with 255-bit ECDH key, ID ..., created ..." and
// the user ID; BEGIN_DECRYPTION and END_DECRYPTION around nothing.
type recipientReport struct {
	st     *state
	status *statusWriter
	ring   *keyring.Ring
	pkesks []*packet.PKESK
	skesks int
}

func (r *recipientReport) pkesk(p *packet.PKESK) {
	r.pkesks = append(r.pkesks, p)
	r.st.infof("public key is %s", r.st.keystr(keyIDOf(p)))
	r.status.Write(status.EncTo{KeyID: keyIDOf(p), PubAlgo: int(p.Algo), KeyLen: 0})
}

func (r *recipientReport) skesk(s *packet.SKESK) {
	r.skesks++
	if r.st.quiet || s == nil {
		return
	}
	if m := s.SessionKeyMode(); m != "" {
		r.st.say("%v.%s encrypted session key", s.Cipher, m)
	} else {
		r.st.say("%v.CFB encrypted data", s.Cipher)
	}
}

func (r *recipientReport) finish() {
	st := r.st
	if !st.quiet {
		switch {
		case r.skesks == 1:
			st.say("encrypted with 1 passphrase")
		case r.skesks > 1:
			st.say("encrypted with %d passphrases", r.skesks)
		}
	}
	var keys []*keyring.Key
	if !st.quiet && r.ring != nil {
		// gpg -q looks up no key, and says only NO_SECKEY.
		keys, _ = r.ring.Select(nil, false)
	}
	for _, p := range r.pkesks {
		id := keyIDOf(p)
		k, pk := recipientKey(keys, p)
		if k == nil {
			r.status.Write(status.NoSeckey{KeyID: id})
			if !st.quiet {
				st.say("encrypted with %s key, ID %s", gpgAlgoName(p.Algo), id)
			}
			continue
		}
		r.status.Write(status.KeyConsidered{Fpr: k.Fingerprint(), Flags: 0})
		if priv := k.PrivateKey(pk.Fingerprint); priv == nil || priv.Dummy() {
			r.status.Write(status.NoSeckey{KeyID: id})
		}
		st.say("encrypted with %d-bit %s key, ID %s, created %s",
			keyBits(pk), gpgAlgoName(p.Algo), id, pk.CreationTime.UTC().Format("2006-01-02"))
		st.sayMore("      \"%s\"", k.PrimaryUserID())
	}
	r.status.Write(status.BeginDecryption{})
	r.status.Write(status.EndDecryption{})
}

// recipientKey finds the key and (sub)key a PKESK names among keys.
func recipientKey(keys []*keyring.Key, p *packet.PKESK) (*keyring.Key, *gcpacket.PublicKey) {
	if p.Wildcard() {
		return nil, nil
	}
	match := func(pk *gcpacket.PublicKey) bool {
		if p.Version == 6 {
			return bytes.Equal(pk.Fingerprint, p.Fingerprint)
		}
		return pk.KeyId == p.KeyID
	}
	for _, k := range keys {
		e := k.Entity()
		if match(e.PrimaryKey) {
			return k, e.PrimaryKey
		}
		for _, s := range e.Subkeys {
			if match(s.PublicKey) {
				return k, s.PublicKey
			}
		}
	}
	return nil, nil
}

// keyBits is the key size as gpg says it: the curve's for ECC keys
// (255 for Curve25519, where the encoded point has 263 bits).
func keyBits(pk *gcpacket.PublicKey) int {
	if c, err := pk.Curve(); err == nil {
		switch c {
		case gcpacket.Curve25519:
			return 255
		case gcpacket.Curve448:
			return 448
		case gcpacket.CurveNistP256, gcpacket.CurveBrainpoolP256, gcpacket.CurveSecP256k1:
			return 256
		case gcpacket.CurveNistP384, gcpacket.CurveBrainpoolP384:
			return 384
		case gcpacket.CurveNistP521:
			return 521
		case gcpacket.CurveBrainpoolP512:
			return 512
		}
	}
	n, _ := pk.BitLength()
	return int(n)
}

// listOnlyKeys opens nothing: every secret key and passphrase is refused.
// With a report, the PKESKs are reported as they are tried
// (--list-packets --list-only, where no event says so).
type listOnlyKeys struct{ rep *recipientReport }

func (k listOnlyKeys) DecryptionKeys(p *packet.PKESK) []*gcpacket.PrivateKey {
	if k.rep != nil {
		k.rep.pkesk(p)
	}
	return nil
}
func (listOnlyKeys) Unlock(*gcpacket.PrivateKey) error { return errListOnly }
func (listOnlyKeys) Passphrase() ([]byte, error)       { return nil, errListOnly }

// listOnlyEvents reports the session-key packets as they are read.
type listOnlyEvents struct{ rep *recipientReport }

func (e *listOnlyEvents) PKESK(p *packet.PKESK)            { e.rep.pkesk(p) }
func (e *listOnlyEvents) SKESK(s *packet.SKESK)            { e.rep.skesk(s) }
func (e *listOnlyEvents) SessionKey(filter.SessionKeyInfo) {}
func (e *listOnlyEvents) Literal(packet.Literal)           {}
func (e *listOnlyEvents) Verified()                        {}
func (e *listOnlyEvents) Warning(filter.Warning)           {}
func (e *listOnlyEvents) Signature(filter.SignatureResult) {}
