package sop

import (
	"bytes"
	"errors"
	"io"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/packet"
)

var inlineSignCmd = &command{
	name:     "inline-sign",
	synopsis: "inline-sign [--no-armor] [--with-key-password=PASSWORD...] [--as={binary|text|clearsigned}] [--] KEYS... < DATA > SIGNED_MESSAGE",
	flags:    append([]flagSpec{{name: "with-key-password", value: true, multi: true}, {name: "as", value: true}}, armorFlags...),
	run:      runInlineSign,
}

func runInlineSign(c *call) error {
	text, err := c.asText("binary", "text", "clearsigned")
	if err != nil {
		return err
	}
	clear := c.value("as") == "clearsigned"
	if clear && !c.armored() {
		return fail(codeIncompatibleOptions, "inline-sign: --as=clearsigned is armored text; it cannot be --no-armor")
	}
	if len(c.args) == 0 {
		return fail(codeMissingArg, "inline-sign: name the KEYS to sign with")
	}
	signers, err := c.signers(c.args)
	if err != nil {
		return err
	}
	opt := filter.SignOptions{Signers: signers, Armor: c.armored(), Text: text,
		Literal: packet.Literal{Format: 'b', Time: clock.Now()}}
	if text {
		opt.Literal.Format = 'u'
	}
	sign := filter.Sign
	if clear {
		sign = filter.ClearSign
	}
	if _, err := sign(c.input(text), c.env.Stdout, opt); err != nil {
		return classify(err, codeUnspecificFailure, "inline-sign")
	}
	return nil
}

var inlineVerifyCmd = &command{
	name:     "inline-verify",
	synopsis: "inline-verify [--not-before=DATE] [--not-after=DATE] [--verifications-out=VERIFICATIONS] [--] CERTS... < SIGNED_MESSAGE > DATA",
	flags:    []flagSpec{{name: "not-before", value: true}, {name: "not-after", value: true}, {name: "verifications-out", value: true}},
	run:      runInlineVerify,
}

// runInlineVerify writes the data of a signed message only when a good
// signature by one of the CERTS, made in the window, vouches for it:
// otherwise NO_SIGNATURE and nothing on standard output (up to the
// hold-back limit, see heldOutput).
func runInlineVerify(c *call) error {
	if len(c.args) == 0 {
		return fail(codeMissingArg, "inline-verify: name at least one CERTS")
	}
	if err := c.checkOutputs("verifications-out"); err != nil {
		return err
	}
	win, err := c.window("not-before", "not-after")
	if err != nil {
		return err
	}
	certs, err := c.readCerts(c.args)
	if err != nil {
		return err
	}
	set := newCertSet(certs)
	out := newHeldOutput(c.env.Stdout)
	res, err := readSigned(c.env.Stdin, out, set)
	if err != nil {
		return err
	}
	lines := set.verifications(res.Signatures, win)
	if len(lines) == 0 {
		return fail(codeNoSignature, "inline-verify: no good signature by one of the certificates, made within the time window")
	}
	if err := out.commit(); err != nil {
		return failWith(codeUnspecificFailure, err, "writing the data")
	}
	if name := c.value("verifications-out"); name != "" {
		return c.writeOutput(name, []byte(joinLines(lines)), false)
	}
	return nil
}

// readSigned reads a signed message (one-pass, older forms, or cleartext)
// and writes its data to out, checking its signatures with signers (nil:
// none). An encrypted message is BAD_DATA: it is for decrypt.
func readSigned(in io.Reader, out *heldOutput, signers filter.SignerKeys) (*filter.Result, error) {
	opt := filter.DecryptOptions{Keys: noKeys{}, Events: &signedEvents{out: out}}
	if signers != nil {
		opt.Signers = signers
	}
	res, err := filter.Decrypt(in, out, opt)
	switch {
	case out.refused != nil:
		return nil, out.refused
	case out.err != nil:
		return nil, failWith(codeUnspecificFailure, out.err, "writing the data")
	case err != nil:
		return nil, failWith(codeBadData, err, "the input is not a signed message pgpstream reads")
	}
	return res, nil
}

// noKeys opens nothing: a signed message needs no key.
type noKeys struct{}

func (noKeys) DecryptionKeys(*packet.PKESK) []*gcpacket.PrivateKey { return nil }
func (noKeys) Unlock(*gcpacket.PrivateKey) error                   { return errEncrypted }
func (noKeys) Passphrase() ([]byte, error)                         { return nil, errEncrypted }

var errEncrypted = errors.New("the message is encrypted")

// signedEvents refuses an encrypted message before anything is tried.
type signedEvents struct{ out *heldOutput }

func (e *signedEvents) PKESK(*packet.PKESK)              { e.encrypted() }
func (e *signedEvents) SKESK(*packet.SKESK)              { e.encrypted() }
func (e *signedEvents) SessionKey(filter.SessionKeyInfo) {}
func (e *signedEvents) Literal(packet.Literal)           {}
func (e *signedEvents) Verified()                        {}
func (e *signedEvents) Signature(filter.SignatureResult) {}
func (e *signedEvents) Warning(filter.Warning)           {}

func (e *signedEvents) encrypted() {
	if e.out.refused == nil {
		e.out.refuse(fail(codeBadData, "the input is an encrypted message; use decrypt"))
	}
}

var inlineDetachCmd = &command{
	name:     "inline-detach",
	synopsis: "inline-detach [--no-armor] --signatures-out=SIGNATURES < SIGNED_MESSAGE > DATA",
	flags:    append([]flagSpec{{name: "signatures-out", value: true}}, armorFlags...),
	run:      runInlineDetach,
}

// runInlineDetach splits a signed message into its data and its
// signatures, checking none of them.
func runInlineDetach(c *call) error {
	if err := c.noArgs(); err != nil {
		return err
	}
	name := c.value("signatures-out")
	if name == "" {
		return fail(codeMissingArg, "inline-detach: --signatures-out=SIGNATURES is required")
	}
	if err := c.checkOutput(name); err != nil {
		return err
	}
	out := newHeldOutput(c.env.Stdout)
	res, err := readSigned(c.env.Stdin, out, nil)
	if err != nil {
		return err
	}
	var sigs []byte
	for _, r := range res.Signatures {
		if r.Sig == nil || r.Form == filter.FormUnannounced {
			continue
		}
		sigs = packet.AppendHeader(sigs, packet.TagSignature, int64(len(r.Sig.Body)))
		sigs = append(sigs, r.Sig.Body...)
	}
	if len(sigs) == 0 {
		return fail(codeBadData, "inline-detach: the input has no signature")
	}
	if c.armored() {
		var buf bytes.Buffer
		aw := armor.NewWriter(&buf, armor.Signature, nil)
		aw.Write(sigs)
		if err := aw.Close(); err != nil {
			return err
		}
		sigs = buf.Bytes()
	}
	if err := out.commit(); err != nil {
		return failWith(codeUnspecificFailure, err, "writing the data")
	}
	return c.writeOutput(name, sigs, false)
}
