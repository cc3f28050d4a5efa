package main

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/ask"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/packet"
)

// sessionKeyString writes a session key as gpg does: "CIPHER:HEX", and
// for the AEAD packets "CIPHER.AEAD:HEX", the form gpg 2.4 writes for its
// OCB packets (the algorithm numbers are RFC 9580's).
func sessionKeyString(c packet.CipherAlgo, aead packet.AEADAlgo, key []byte) string {
	if aead != 0 {
		return fmt.Sprintf("%d.%d:%X", c, aead, key)
	}
	return fmt.Sprintf("%d:%X", c, key)
}

func sessionKeyOf(s filter.SessionKeyInfo) string {
	return sessionKeyString(s.Cipher, s.AEAD, s.SessionKey)
}

// showSessionKey reports the session key of --show-session-key: on
// standard error, and as SESSION_KEY on the status stream.
func showSessionKey(st *state, sw *statusWriter, s filter.SessionKeyInfo) {
	k := sessionKeyOf(s)
	st.say("session key: '%s'", k)
	sw.Write(status.SessionKey{Key: k})
}

// parseSessionKey reads a session key as gpg's --override-session-key
// takes it: "CIPHER:HEX" or "CIPHER.AEAD:HEX". The AEAD algorithm is the
// packet's in any case; it is checked for form only, as gpg does not
// read it at all.
func parseSessionKey(v string) (*filter.GivenSessionKey, error) {
	bad := func(why string) error {
		return usagef("--override-session-key: %s (the form is CIPHER:HEX, as --show-session-key prints it)", why)
	}
	algo, hexKey, ok := strings.Cut(strings.TrimSpace(v), ":")
	if !ok {
		return nil, bad("no ':'")
	}
	c, a, _ := strings.Cut(algo, ".")
	n, err := strconv.Atoi(c)
	if err != nil || n < 1 || n > 255 {
		return nil, bad(fmt.Sprintf("%q is not a cipher number", c))
	}
	if a != "" {
		if m, err := strconv.Atoi(a); err != nil || m < 1 || m > 255 {
			return nil, bad(fmt.Sprintf("%q is not an AEAD algorithm number", a))
		}
	}
	cipher := packet.CipherAlgo(n)
	if cipher.KeySize() == 0 {
		return nil, bad(fmt.Sprintf("cipher %d is not one pgpstream knows", n))
	}
	key, err := hex.DecodeString(hexKey)
	if err != nil {
		return nil, bad("the key is not hexadecimal")
	}
	if len(key) != cipher.KeySize() {
		return nil, bad(fmt.Sprintf("%v takes a key of %d octets, not %d", cipher, cipher.KeySize(), len(key)))
	}
	return &filter.GivenSessionKey{Cipher: cipher, Key: key}, nil
}

// readSessionKeyFd reads the line of --override-session-key-fd, as gpg
// does, before the command runs and whatever the command: a descriptor
// that is not open is an error then.
func readSessionKeyFd(st *state, o *options) error {
	fd := o.overrideSessionKeyFd
	if fd < 0 {
		return nil
	}
	r, err := readFD(st, "--override-session-key-fd", fd)
	if err != nil {
		return err
	}
	b, err := ask.ReadFDLine(r)
	if err != nil {
		return fmt.Errorf("reading the session key from fd %d: %w", fd, err)
	}
	if _, err := parseSessionKey(string(b)); err != nil {
		return err
	}
	o.overrideSessionKey, o.overrideSessionKeyFd = string(b), -1
	return nil
}

// givenSessionKey returns the key of --override-session-key (or of
// --override-session-key-fd, read by readSessionKeyFd), or nil.
func givenSessionKey(o *options) (*filter.GivenSessionKey, error) {
	if o.overrideSessionKey == "" {
		return nil, nil
	}
	return parseSessionKey(o.overrideSessionKey)
}
