package sop

import (
	"bytes"
	"errors"
	"unicode/utf8"

	"github.com/pgpstream/pgpstream/internal/bounded"
	"github.com/pgpstream/pgpstream/keyring"
)

// Passwords (the draft's "Human-Readable Passwords"). A password that
// makes something (encrypt --with-password, generate-key
// --with-key-password, change-key-password --new-key-password) must be
// UTF-8, else PASSWORD_NOT_HUMAN_READABLE, and its trailing whitespace,
// the newline a file or echo ends it with, is not part of it. A password
// that opens something is tried as given and, when it ends in
// whitespace, without it, so material made by either rule opens.

// newPassword reads a password that makes something.
func (c *call) newPassword(name string) ([]byte, error) {
	b, err := c.readInput(name, bounded.Line)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(b) {
		return nil, fail(codePasswordNotHumanReadable, "the password in %q is not UTF-8", name)
	}
	b = bytes.TrimRight(b, " \t\r\n\v\f")
	if len(b) == 0 {
		return nil, fail(codePasswordNotHumanReadable, "the password in %q is empty", name)
	}
	return b, nil
}

// passwords reads passwords that open something: each as given, then
// without its trailing whitespace when it has any.
func (c *call) passwords(option string) ([][]byte, error) {
	var out [][]byte
	for _, name := range c.values[option] {
		b, err := c.readInput(name, bounded.Line)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
		if t := bytes.TrimRight(b, " \t\r\n\v\f"); len(t) != len(b) {
			out = append(out, t)
		}
	}
	return out, nil
}

// namedKey is a key or certificate and the argument it came from, which
// the verifications' JSON names.
type namedKey struct {
	name string
	key  *keyring.Key
}

// readKeyData parses the keys or certificates in one input; none, or
// anything that is not key material, is BAD_DATA.
func readKeyData(name string, data []byte) ([]namedKey, error) {
	keys, err := keyring.ReadKeys(bytes.NewReader(data))
	if err != nil {
		return nil, failWith(codeBadData, err, "%q holds no OpenPGP key material", name)
	}
	if len(keys) == 0 {
		return nil, fail(codeBadData, "%q holds no OpenPGP key material", name)
	}
	out := make([]namedKey, len(keys))
	for i, k := range keys {
		out[i] = namedKey{name, k}
	}
	return out, nil
}

// readCerts reads CERTS inputs. A secret key where a certificate is
// expected is BAD_DATA (the draft since revision 10): a caller who hands
// over a key by mistake learns it instead of passing secrets along.
func (c *call) readCerts(names []string) ([]namedKey, error) {
	var out []namedKey
	for _, name := range names {
		data, err := c.readInput(name, bounded.KeyData)
		if err != nil {
			return nil, err
		}
		keys, err := readKeyData(name, data)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			if k.key.HasSecret() {
				return nil, fail(codeBadData, "%q holds a secret key (%s) where a certificate is expected", name, k.key.Fingerprint())
			}
		}
		out = append(out, keys...)
	}
	return out, nil
}

// readKeys reads KEYS inputs: each key must carry its secret part.
func (c *call) readKeys(names []string) ([]namedKey, error) {
	var out []namedKey
	for _, name := range names {
		data, err := c.readInput(name, bounded.KeyData)
		if err != nil {
			return nil, err
		}
		keys, err := keysOf(name, data)
		if err != nil {
			return nil, err
		}
		out = append(out, keys...)
	}
	return out, nil
}

// keysOf parses KEYS from data read already (standard input).
func keysOf(name string, data []byte) ([]namedKey, error) {
	keys, err := readKeyData(name, data)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if !k.key.HasSecret() {
			return nil, fail(codeBadData, "%q holds a certificate (%s) where a secret key is expected", name, k.key.Fingerprint())
		}
	}
	return keys, nil
}

// keysFromStdin reads KEYS from standard input.
func (c *call) keysFromStdin() ([]namedKey, error) {
	data, err := bounded.ReadAll(c.env.Stdin, "standard input", bounded.KeyData)
	if err != nil {
		return nil, failWith(codeUnspecificFailure, err, "reading standard input")
	}
	return keysOf("standard input", data)
}

// lockedError says a key stayed locked: KEY_IS_PROTECTED, or the error
// itself when it is not about the passphrase.
func lockedError(err error, k *keyring.Key) error {
	if errors.Is(err, keyring.ErrBadPassphrase) {
		return failWith(codeKeyIsProtected, err, "key %s is protected and no --with-key-password given opens it", k.Fingerprint())
	}
	return failWith(codeBadData, err, "key %s", k.Fingerprint())
}

func keysOnly(nks []namedKey) []*keyring.Key {
	out := make([]*keyring.Key, len(nks))
	for i, nk := range nks {
		out[i] = nk.key
	}
	return out
}
