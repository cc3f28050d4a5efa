package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/output"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

func cmdEncrypt(st *state, o *options) error {
	// -z, the algorithms and the recipients' presence were checked with
	// every other option (options.check): one meaning for every command.
	opt := filter.EncryptOptions{Armor: o.armor, Cipher: o.cipher, Compress: o.compress, S2KCount: o.s2kCount}
	if o.level > 0 {
		opt.Level = o.level
	}

	sw, err := openStatus(st, o)
	if err != nil {
		return err
	}
	recipients, err := collectRecipients(st, o, sw)
	if err != nil {
		return err
	}
	symmetric := o.symmetric
	for _, r := range recipients {
		opt.Recipients = append(opt.Recipients, filter.Recipient{Pub: r.rc.Pub, Hidden: r.hidden, Features: r.rc.Features()})
		st.infof("encrypting to %X (%s)", r.rc.Pub.Fingerprint, r.rc.Key.PrimaryUserID())
	}
	// The format first: NEED_PASSPHRASE_SYM, before the passphrase is
	// asked, names the S2K it uses.
	if err := chooseFormat(st, o, &opt); err != nil {
		return err
	}
	pp := newPassphrases(st, o) // one for both: a descriptor can be read once
	if symmetric {
		mode, hash := opt.SKESKS2K()
		pass, err := pp.Symmetric("Enter a passphrase to encrypt the message with.", o.cipher, mode, hash, nil, true)
		if err != nil {
			if errors.Is(err, errNoPassphrase) {
				return withHints(err, "give one with --passphrase-file FILE or --passphrase-fd N")
			}
			return err
		}
		if len(pass) == 0 {
			return errors.New("the passphrase is empty")
		}
		opt.Passphrase = pass
	}
	if o.sign {
		if opt.Signers, err = signersFor(st, o, pp); err != nil {
			return err
		}
	}

	in, inName, closeIn, err := openInput(st, o)
	if err != nil {
		return err
	}
	defer closeIn()
	in, stopProgress := startProgress(st, o, in, inName, "encrypt", sw)
	defer stopProgress()
	outPath := messageOutPath(o, inName, opt.Armor)
	opt.Literal = literalFor(inName, o)
	if o.textmode {
		// gpg's --textmode: canonical text in a 't' literal packet,
		// and text signatures over it.
		in = filter.NewTextReader(in)
		opt.Literal.Format = 't'
		opt.TextSignatures = true
	}
	out, err := openMessageOutput(st, o, inName, outPath, opt.Armor, "ciphertext")
	if err != nil {
		return err
	}
	sigCreated(st, opt.Signers, sw, "S")
	encryptBegin(sw, opt)
	res, err := filter.Encrypt(in, out.W, opt)
	if err != nil {
		out.Abort()
		statusFailure(sw, "encrypt", err)
		return err
	}
	if err := out.Commit(); err != nil {
		statusFailure(sw, "encrypt", err)
		return err
	}
	pp.CacheNew(res) // as gpg, the agent keeps what the message was encrypted with (internal/ask)
	sw.Write(status.EndEncryption{})
	return nil
}

// defaultSigner is the key that signs when no -u is given: --default-key
// (folded into localUsers by options.check), else the first secret key
// that can sign. --default-recipient-self encrypts to it too.
func defaultSigner(ring *keyring.Ring, o *options) (*keyring.Key, error) {
	if len(o.localUsers) > 0 {
		k, err := ring.Lookup(o.localUsers[0], true)
		if err != nil {
			return nil, withHints(fmt.Errorf("--local-user %q: %w", o.localUsers[0], err), "list the secret keys you have with pgpstream --list-secret-keys")
		}
		return k, nil
	}
	all, _ := ring.Select(nil, true)
	for _, k := range all {
		if _, err := k.SigningKey(clock.Now(), nil); err == nil {
			return k, nil
		}
	}
	return nil, withHints(errors.New("no secret key that can sign"), "make one with --quick-gen-key or import one with --import; pick it with --local-user KEY")
}

type chosenRecipient struct {
	rc     keyring.Recipient
	hidden bool
}

// collectRecipients resolves -r, -R, -f and the defaults; a recipient that
// is not found gets gpg's INV_RECP and FAILURE status lines.
func collectRecipients(st *state, o *options, sw *statusWriter) ([]chosenRecipient, error) {
	var out []chosenRecipient
	var fromRing []*keyring.Key // the recipients' keys the ring has
	var ring *keyring.Ring
	open := func() error {
		if ring != nil {
			return nil
		}
		var err error
		ring, err = openRing(st, o)
		return err
	}
	// checked is false for the keys gpg uses without asking about their
	// validity: --encrypt-to, --hidden-encrypt-to, --default-recipient
	// and --default-recipient-self.
	add := func(spec string, hidden, checked bool) error {
		if err := open(); err != nil {
			return err
		}
		rcs, err := ring.Recipients(spec)
		if errors.Is(err, keyring.ErrNoKey) {
			if found, lerr := autoLocate(o, st, ring, spec); lerr != nil {
				return fmt.Errorf("recipient %q: %w", spec, lerr)
			} else if found {
				rcs, err = ring.Recipients(spec)
			}
		}
		if err != nil {
			recipientRefused(sw, ring, spec, err)
			if errors.Is(err, keyring.ErrNoKey) {
				// The keyring's message names the pattern already.
				return withHints(err, "list the keys you have with pgpstream --list-keys; import one with --import")
			}
			if errors.Is(err, keyring.ErrAmbiguous) {
				return withHints(fmt.Errorf("recipient %w", err), "pgpstream takes one key per -r; give each key's fingerprint, or its address as <addr>")
			}
			return withHints(fmt.Errorf("recipient %q: %w", spec, err), "list the keys you have with pgpstream --list-keys; import one with --import")
		}
		for _, rc := range rcs {
			keyConsidered(sw, rc.Key, clock.Now(), 0)
			if checked {
				if err := checkRecipient(st, o, sw, ring, spec, rc); err != nil {
					return err
				}
			}
			out = append(out, chosenRecipient{rc, hidden})
			fromRing = append(fromRing, rc.Key)
		}
		return nil
	}
	// -f and -F keys are taken as fully valid, as gpg takes them.
	addFile := func(file string, hidden bool) error {
		rcs, err := recipientsIn(st, o, file)
		if err != nil {
			return fmt.Errorf("recipient file %s: %w", file, err)
		}
		for _, rc := range rcs {
			out = append(out, chosenRecipient{rc: rc, hidden: hidden})
		}
		return nil
	}
	if o.recipientSelf {
		// --default-recipient-self: the key that would sign.
		if err := open(); err != nil {
			return nil, err
		}
		self, err := defaultSigner(ring, o)
		if err != nil {
			return nil, err
		}
		if err := add(self.Fingerprint(), false, false); err != nil {
			return nil, err
		}
	}
	for _, l := range []struct {
		specs  []string
		hidden bool
		file   bool
	}{
		{o.recipients, false, false}, {o.hiddenRecipients, true, false},
		{o.recipientFiles, false, true}, {o.hiddenRecipientFiles, true, true},
	} {
		for _, spec := range l.specs {
			var err error
			if l.file {
				err = addFile(spec, l.hidden)
			} else {
				err = add(spec, l.hidden, !o.recipientsByDefault)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	// --encrypt-to adds to a message that has a recipient already, as in
	// gpg: it never makes one on its own.
	if len(out) > 0 {
		for _, spec := range o.encryptTo {
			if err := add(spec, false, false); err != nil {
				return nil, err
			}
		}
		for _, spec := range o.hiddenEncryptTo {
			if err := add(spec, true, false); err != nil {
				return nil, err
			}
		}
	}
	if m := o.trustModelName(); ring != nil && (m == keyring.ModelTOFU || m == keyring.ModelTOFUPGP) {
		// gpg records each message encrypted to a key under the TOFU
		// models once its recipients are chosen; a failure is a warning.
		seen := map[string]bool{}
		for _, k := range fromRing {
			if seen[k.Fingerprint()] {
				continue
			}
			seen[k.Fingerprint()] = true
			if err := ring.RegisterEncryption(k); err != nil {
				st.warnf("failed to register encryption to %s with the TOFU history: %v", k.Fingerprint(), err)
			}
		}
	}
	return out, nil
}

// recipientsIn reads the certificates of -f FILE: a path, or the
// caller's descriptor -&N.
func recipientsIn(st *state, o *options, file string) ([]keyring.Recipient, error) {
	a := o.fileArg(file)
	if !a.isFD {
		return keyring.RecipientsFromFile(file)
	}
	r, _, _, err := openArg(st, o, file)
	if err != nil {
		return nil, err
	}
	return keyring.RecipientsFrom(r, a.String())
}

// chooseFormat maps the format options onto filter's: --force-seipdv2
// is SEIPD v2 whoever the recipients are, --force-aead --rfc4880bis
// always tag 20, and otherwise filter negotiates from the recipients'
// features (filter.EncryptOptions.Negotiate: gpg 2.4's choice, and with
// --force-aead, gpg 2.4's --force-ocb, tag 20 unless every recipient reads
// SEIPD v2). What is left here are the options that contradict the
// negotiated format, and the lines that say what it is.
//
// The chunk size defaults to 4 MiB (gpg's --chunk-size 22, what GnuPG 2.4
// writes): the largest the format allows, so the per-chunk cost (a nonce,
// a tag, a hand-off to a worker) vanishes. Decryption holds a few chunks
// per worker, 16 MiB on two cores, which is the price; --chunk-size 16
// (64 KiB) bounds it at under 1 MiB.
func chooseFormat(st *state, o *options, opt *filter.EncryptOptions) error {
	opt.ChunkByte, opt.Threads = byte(o.chunkSize-6), o.threads
	if o.aeadSet {
		opt.AEAD = o.aead // else filter's default, OCB
	}
	switch {
	case o.forceSEIPDv2 && o.rfc4880bis:
		return usagef("conflicting options: --force-seipdv2 writes RFC 9580 SEIPD v2, --rfc4880bis the LibrePGP AEAD packet")
	case o.forceSEIPDv2:
		opt.Format = filter.SEIPDv2
	case o.forceAEAD && o.rfc4880bis:
		opt.Format = filter.AEADv1
	default:
		opt.Format, opt.ForceAEAD = filter.Auto, o.forceAEAD
	}
	format, mode := opt.Negotiate()
	if format == filter.AEADv1 && mode == packet.AEADGCM {
		return usageError{msg: "--aead-algo GCM: the LibrePGP AEAD packet (tag 20) has only OCB and EAX", hints: []string{"use --force-seipdv2 (without --rfc4880bis) to write RFC 9580 SEIPD v2, which has GCM"}}
	}
	if format == filter.SEIPDv1 && (o.aeadSet || o.chunkSet) {
		st.warnf("--aead-algo and --chunk-size have no effect: the message is SEIPD v1 (CFB+MDC); add --force-aead or --force-seipdv2 to write AEAD")
	}
	st.infof("writing %v", format)
	return nil
}

// messageOutPath is where a message made from inName goes: --output, or
// gpg's default for a file, FILE.gpg (FILE.asc armored); none for
// standard input.
func messageOutPath(o *options, inName string, armored bool) fileArg {
	if !o.output.none() || inName == "" {
		return o.output
	}
	if armored {
		return pathArg(inName + ".asc")
	}
	return pathArg(inName + ".gpg")
}

// literalFor is the literal packet header for an input: the file's name
// and modification time, as gpg writes them, or now for standard input.
func literalFor(inName string, o *options) packet.Literal {
	l := packet.Literal{Format: 'b', Time: clock.Now()}
	if inName != "" {
		l.FileName = filepath.Base(inName)
		if fi, err := os.Stat(inName); err == nil {
			l.Time = fi.ModTime()
		}
	}
	if o.given("set-filename") {
		l.FileName = o.setFilename
	}
	return l
}

// openMessageOutput opens where a message made from inName goes: not the
// input itself, and not binary data to a terminal.
func openMessageOutput(st *state, o *options, inName string, outPath fileArg, armored bool, what string) (*output.Output, error) {
	if sameFile(inName, outPath) {
		return nil, fmt.Errorf("input and output are the same file")
	}
	out, err := openOutput(st, o, outPath, false)
	if err != nil {
		return nil, err
	}
	if err := out.RefuseBinaryTerminal(armored, what); err != nil {
		return nil, err
	}
	return out, nil
}
