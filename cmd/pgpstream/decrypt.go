package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

func cmdDecrypt(st *state, c *cli.Context) error {
	in, inName, closeIn, err := openInput(st, c)
	if err != nil {
		return err
	}
	defer closeIn()
	outPath := c.String("output")
	if sameFile(inName, outPath) {
		return fmt.Errorf("input and output are the same file")
	}
	ring, err := openRing(c)
	if err != nil {
		return err
	}
	keys := &ringKeys{ring: ring, pass: newPassphrases(st, c), st: st}
	out, err := openOutput(st, c, outPath, true)
	if err != nil {
		return err
	}
	res, err := filter.Decrypt(in, out.w, filter.DecryptOptions{
		Keys:             keys,
		AllowUnprotected: c.Bool("allow-unprotected"),
		MaxDecompressed:  c.Int64("max-output"),
		Events:           &decryptEvents{st: st},
	})
	if err != nil {
		released := out.released()
		out.abort()
		if released {
			return withHints(err, fmt.Sprintf("more than %d MiB had already been written to standard output: discard it, it is not authenticated", holdback>>20))
		}
		return err
	}
	if err := out.commit(); err != nil {
		return err
	}
	st.infof("decrypted %d bytes (%s, %v)", res.Bytes, res.Format, res.Cipher)
	return nil
}

type decryptEvents struct{ st *state }

func (e *decryptEvents) SessionKey(from string, c packet.CipherAlgo, format string) {
	e.st.infof("session key from %s; %v, %s", from, c, format)
}
func (e *decryptEvents) Literal(l packet.Literal) {
	if l.FileName != "" {
		e.st.infof("original file name %q", l.FileName)
	}
}
func (e *decryptEvents) Verified()          { e.st.infof("integrity check passed") }
func (e *decryptEvents) Warning(msg string) { e.st.warnf("%s", msg) }

// hintsFor suggests the flag that would help with err.
func hintsFor(err error) []string {
	var unp filter.ErrUnprotected
	switch {
	case errors.As(err, &unp):
		return []string{"if you trust where it came from, --allow-unprotected reads it anyway (the output may have been tampered with)"}
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
