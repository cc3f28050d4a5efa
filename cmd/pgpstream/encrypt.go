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
	if symmetric {
		pass, err := newPassphrases(st, c).get(true)
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

	in, inName, closeIn, err := openInput(st, c)
	if err != nil {
		return err
	}
	defer closeIn()
	outPath := c.String("output")
	if sameFile(inName, outPath) {
		return fmt.Errorf("input and output are the same file")
	}
	opt.Literal = packet.Literal{Format: 'b', Time: time.Now()}
	if inName != "" {
		opt.Literal.FileName = filepath.Base(inName)
		if fi, err := os.Stat(inName); err == nil {
			opt.Literal.Time = fi.ModTime()
		}
	}
	out, err := openOutput(st, c, outPath, false)
	if err != nil {
		return err
	}
	if out.terminal && !opt.Armor {
		out.abort()
		return withHints(errors.New("refusing to write binary ciphertext to a terminal"), "use --armor (-a), --output FILE, or redirect standard output")
	}
	if _, err := filter.Encrypt(in, out.w, opt); err != nil {
		out.abort()
		return err
	}
	return out.commit()
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
