package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

func cmdEncrypt(st *state, c *cli.Context) error {
	opt := filter.EncryptOptions{Armor: c.Bool("armor")}
	var err error
	if opt.Cipher, err = packet.ParseCipherAlgo(c.String("cipher-algo")); err != nil {
		return usagef("--cipher-algo: %v", err)
	}
	if !opt.Cipher.IsAES() {
		return usagef("--cipher-algo: pgpstream writes AES128, AES192 or AES256, not %v", opt.Cipher)
	}
	if opt.Compress, err = packet.ParseCompressionAlgo(c.String("compress-algo")); err != nil {
		return usagef("--compress-algo: %v", err)
	}
	if opt.Compress == packet.CompressBZIP2 {
		return usagef("--compress-algo: pgpstream reads BZIP2 but writes only zip or zlib")
	}
	if lvl := c.Int("compress-level"); lvl >= 0 {
		if lvl > 9 {
			return usagef("--compress-level must be 0 to 9")
		}
		if lvl == 0 {
			opt.Compress = packet.CompressNone
		} else {
			opt.Level = lvl
			if opt.Compress == packet.CompressNone && !c.IsSet("compress-algo") {
				opt.Compress = packet.CompressZLIB
			}
		}
	}

	recipients, err := collectRecipients(st, c)
	if err != nil {
		return err
	}
	symmetric := c.Bool("symmetric")
	if c.Bool("encrypt") && len(recipients) == 0 {
		return usageError{msg: "--encrypt needs at least one recipient", hints: []string{"name one with --recipient KEY or --recipient-file FILE, or use --symmetric"}}
	}
	if !c.Bool("encrypt") && len(recipients) > 0 {
		return usagef("--recipient given without --encrypt")
	}
	for _, r := range recipients {
		opt.Recipients = append(opt.Recipients, filter.Recipient{Pub: r.rc.Pub, Hidden: r.hidden})
		st.infof("encrypting to %X (%s)", r.rc.Pub.Fingerprint, r.rc.Key.PrimaryUserID())
	}
	pp := newPassphrases(st, c) // one for both: a descriptor can be read once
	if symmetric {
		pass, err := pp.get(true)
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
	if c.Bool("sign") {
		if opt.Signers, err = signersFor(st, c, pp); err != nil {
			return err
		}
	}

	if err := chooseFormat(st, c, &opt, recipients); err != nil {
		return err
	}

	in, inName, closeIn, err := openInput(st, c)
	if err != nil {
		return err
	}
	defer closeIn()
	status, err := openStatus(st, c)
	if err != nil {
		return err
	}
	in, stopProgress := startProgress(st, c, in, inName, "encrypt", status)
	defer stopProgress()
	outPath := c.String("output")
	if outPath == "" && inName != "" {
		// gpg's default: FILE is encrypted to FILE.gpg (FILE.asc armored).
		outPath = inName + ".gpg"
		if opt.Armor {
			outPath = inName + ".asc"
		}
	}
	opt.Literal = literalFor(inName)
	out, err := openMessageOutput(st, c, inName, outPath, opt.Armor, "ciphertext")
	if err != nil {
		return err
	}
	sigCreated(opt.Signers, status, "S")
	encryptBegin(status, opt)
	if _, err := filter.Encrypt(in, out.w, opt); err != nil {
		out.abort()
		status.failure("encrypt", err)
		return err
	}
	if err := out.commit(); err != nil {
		status.failure("encrypt", err)
		return err
	}
	status.line("END_ENCRYPTION")
	return nil
}

type chosenRecipient struct {
	rc     keyring.Recipient
	hidden bool
}

func collectRecipients(st *state, c *cli.Context) ([]chosenRecipient, error) {
	var out []chosenRecipient
	var ring *keyring.Ring
	add := func(spec string, hidden bool) error {
		if ring == nil {
			var err error
			if ring, err = openRing(c); err != nil {
				return err
			}
		}
		rcs, err := ring.Recipients(spec)
		if err != nil {
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
			out = append(out, chosenRecipient{rc, hidden})
		}
		return nil
	}
	for _, spec := range c.StringSlice("recipient") {
		if err := add(spec, false); err != nil {
			return nil, err
		}
	}
	for _, spec := range c.StringSlice("hidden-recipient") {
		if err := add(spec, true); err != nil {
			return nil, err
		}
	}
	for _, file := range c.StringSlice("recipient-file") {
		rcs, err := keyring.RecipientsFromFile(file)
		if err != nil {
			return nil, fmt.Errorf("recipient file %s: %w", file, err)
		}
		for _, rc := range rcs {
			out = append(out, chosenRecipient{rc: rc})
		}
	}
	return out, nil
}

// chooseFormat picks the encrypted data packet. --force-aead (gpg 2.4's
// --force-ocb) writes RFC 9580 SEIPD v2, or with --rfc4880bis LibrePGP's
// tag 20. Otherwise the recipients decide: if every one announces SEIPD v2
// (all v6 keys do), SEIPD v2; if every one announces LibrePGP AEAD, tag 20
// with OCB, as GnuPG 2.4 does; else SEIPD v1, which every peer reads. A
// passphrase alone gets SEIPD v1 unless AEAD is forced, since nothing says
// what the reader supports.
//
// The chunk size defaults to 4 MiB (gpg's --chunk-size 22, what GnuPG 2.4
// writes): the largest the format allows, so the per-chunk cost (a nonce,
// a tag, a hand-off to a worker) vanishes. Decryption holds a few chunks
// per worker, 16 MiB on two cores, which is the price; --chunk-size 16
// (64 KiB) bounds it at under 1 MiB.
func chooseFormat(st *state, c *cli.Context, opt *filter.EncryptOptions, recipients []chosenRecipient) error {
	forced := c.Bool("force-aead") || c.Bool("force-ocb")
	bis := c.Bool("rfc4880bis")
	mode, err := packet.ParseAEADAlgo(c.String("aead-algo"))
	if err != nil {
		return usagef("--aead-algo: %v", err)
	}
	n := c.Int("chunk-size")
	if n < 6 || n > 22 {
		return usageError{msg: fmt.Sprintf("--chunk-size %d: must be 6 (64 bytes) to 22 (4 MiB)", n), hints: []string{"the size is gpg's exponent: --chunk-size N means 2^N-byte chunks"}}
	}
	if c.Int("threads") < 0 {
		return usagef("--threads must be 0 (one per CPU) or more")
	}
	opt.ChunkByte, opt.AEAD, opt.Threads = byte(n-6), mode, c.Int("threads")
	switch {
	case forced && bis:
		opt.Format = filter.AEADv1
	case forced:
		opt.Format = filter.SEIPDv2
	case bis:
		return usageError{msg: "--rfc4880bis without --force-aead", hints: []string{"add --force-aead (or --force-ocb) to write the LibrePGP AEAD packet"}}
	case len(recipients) > 0:
		v2, librepgp := true, true
		for _, r := range recipients {
			v2 = v2 && (r.rc.Version == 6 || r.rc.SEIPDv2)
			librepgp = librepgp && r.rc.LibrePGPAEAD
		}
		switch {
		case v2:
			opt.Format = filter.SEIPDv2
		case librepgp:
			opt.Format = filter.AEADv1
			if !c.IsSet("aead-algo") {
				opt.AEAD = packet.AEADOCB
			}
		default:
			opt.Format = filter.SEIPDv1
		}
	default:
		opt.Format = filter.SEIPDv1
	}
	if opt.Format == filter.AEADv1 && mode == packet.AEADGCM && c.IsSet("aead-algo") {
		return usageError{msg: "--aead-algo GCM: the LibrePGP AEAD packet (--rfc4880bis) has only OCB and EAX", hints: []string{"drop --rfc4880bis to write RFC 9580 SEIPD v2, which has GCM"}}
	}
	if opt.Format == filter.SEIPDv1 && (c.IsSet("aead-algo") || c.IsSet("chunk-size")) {
		st.warnf("--aead-algo and --chunk-size have no effect: the message is SEIPD v1 (CFB+MDC); add --force-aead to write AEAD")
	}
	st.infof("writing %v", opt.Format)
	return nil
}

// literalFor is the literal packet header for an input: the file's name
// and modification time, as gpg writes them, or now for standard input.
func literalFor(inName string) packet.Literal {
	l := packet.Literal{Format: 'b', Time: time.Now()}
	if inName != "" {
		l.FileName = filepath.Base(inName)
		if fi, err := os.Stat(inName); err == nil {
			l.Time = fi.ModTime()
		}
	}
	return l
}

// openMessageOutput opens where a message made from inName goes: not the
// input itself, and not binary data to a terminal.
func openMessageOutput(st *state, c *cli.Context, inName, outPath string, armored bool, what string) (*output, error) {
	if sameFile(inName, outPath) {
		return nil, fmt.Errorf("input and output are the same file")
	}
	out, err := openOutput(st, c, outPath, false)
	if err != nil {
		return nil, err
	}
	if err := out.refuseBinaryTerminal(armored, what); err != nil {
		return nil, err
	}
	return out, nil
}
