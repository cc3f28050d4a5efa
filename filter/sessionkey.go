package filter

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pgpstream/pgpstream/packet"
)

// ErrNoSecretKey is returned when no PKESK names a key we hold and no
// SKESK could be opened.
var ErrNoSecretKey = errors.New("no secret key for any recipient of the message")

// ErrBadPassphrase is returned when the passphrase opens none of the
// message's SKESKs.
var ErrBadPassphrase = errors.New("decryption failed: wrong passphrase")

// sessionKey recovers the session key from the PKESKs (first) and SKESKs
// read so far. For SEIPD v2 (v2 true) the cipher comes from the data
// packet and the returned cipher is 0.
func (d *decryptor) sessionKey(v2 bool) ([]byte, packet.CipherAlgo, string, error) {
	var errs []string
	var tried []string
	for _, p := range d.pkesks {
		if d.opt.Keys == nil {
			break
		}
		for _, priv := range d.opt.Keys.DecryptionKeys(p) {
			if err := d.opt.Keys.Unlock(priv); err != nil {
				errs = append(errs, err.Error())
				continue
			}
			key, c, err := p.Decrypt(priv)
			if err != nil {
				if !p.Wildcard() {
					errs = append(errs, fmt.Sprintf("key %016X: %v", priv.KeyId, err))
				}
				continue
			}
			return key, c, fmt.Sprintf("PKESK v%d to %016X", p.Version, priv.KeyId), nil
		}
		if p.Version == 3 {
			tried = append(tried, fmt.Sprintf("%016X", p.KeyID))
		} else {
			tried = append(tried, fmt.Sprintf("%X", p.Fingerprint))
		}
	}
	if len(d.skesks) > 0 {
		var pass []byte
		var err error
		if d.opt.Keys != nil {
			pass, err = d.opt.Keys.Passphrase()
		} else {
			err = errors.New("no passphrase given")
		}
		if err != nil {
			if len(d.pkesks) == 0 {
				return nil, 0, "", fmt.Errorf("the message is encrypted with a passphrase: %w", err)
			}
			errs = append(errs, err.Error())
		} else {
			for _, s := range d.skesks {
				key, c, err := s.Decrypt(pass)
				if err != nil {
					continue
				}
				return key, c, fmt.Sprintf("SKESK v%d", s.Version), nil
			}
			if len(d.pkesks) == 0 {
				return nil, 0, "", ErrBadPassphrase
			}
			errs = append(errs, "the passphrase opens no SKESK")
		}
	}
	if len(d.pkesks)+len(d.skesks) == 0 {
		return nil, 0, "", errors.New("the message has no session key packet (PKESK or SKESK) before its encrypted data")
	}
	msg := ErrNoSecretKey.Error()
	if len(tried) > 0 {
		msg += " (encrypted to " + strings.Join(tried, ", ") + ")"
	}
	if len(errs) > 0 {
		msg += ": " + strings.Join(dedupe(errs), "; ")
	}
	return nil, 0, "", fmt.Errorf("%w%s", ErrNoSecretKey, strings.TrimPrefix(msg, ErrNoSecretKey.Error()))
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
