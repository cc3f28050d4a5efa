package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"golang.org/x/term"
)

// promptPassphrase asks on the controlling terminal, never on standard
// input, which may be carrying the message. desc says what the passphrase
// is for (which key, or the message), as gpg's pinentry does.
func promptPassphrase(desc string, confirm bool) ([]byte, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, errNoPassphrase
	}
	defer tty.Close()
	if desc != "" {
		fmt.Fprintln(tty, desc)
	}
	fmt.Fprint(tty, "Passphrase: ")
	p, err := term.ReadPassword(int(tty.Fd()))
	fmt.Fprintln(tty)
	if err != nil {
		return nil, errNoPassphrase
	}
	if confirm {
		fmt.Fprint(tty, "Repeat passphrase: ")
		q, err := term.ReadPassword(int(tty.Fd()))
		fmt.Fprintln(tty)
		if err != nil {
			return nil, errNoPassphrase
		}
		if !bytes.Equal(p, q) {
			return nil, errors.New("the passphrases do not match")
		}
	}
	return p, nil
}
