package filter

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// ErrNoSecretKey is returned when no PKESK names a key we hold and no
// SKESK could be opened. The error Decrypt returns wraps it and joins
// (errors.Join) the reason of each key tried, a *KeyError, and of the
// passphrase, so errors.Is and errors.As find each cause.
var ErrNoSecretKey = errors.New("no secret key for any recipient of the message")

// ErrBadPassphrase is returned when the passphrase opens none of the
// message's SKESKs. Each SKESK's own failure is joined to it.
var ErrBadPassphrase = errors.New("decryption failed: wrong passphrase")

// ErrS2KCost is returned when a message's SKESKs together ask for more
// key derivation than one message may: an attacker who writes the message
// chooses the cost, and a passphrase is tried against every SKESK.
var ErrS2KCost = errors.New("the message's passphrase packets ask for more key derivation than pgpstream allows")

// Per-message bounds on key derivation, over every SKESK tried. Argon2:
// the most one SKESK may ask for (2 GiB over 16 passes, see
// packet.ParseSKESK), in total. Iterated S2K: eight SKESKs at the largest
// count the format can express (~65 MB hashed each, ~0.15 s with SHA-256
// here); gpg writes one.
const (
	maxArgon2Work   = 16 << 21
	maxIteratedWork = 8 * 65011712
)

// SKESKError is why one SKESK did not give the session key.
type SKESKError struct {
	Version byte
	Offset  int64
	Err     error
}

func (e *SKESKError) Error() string {
	return fmt.Sprintf("SKESK v%d at offset %d: %v", e.Version, e.Offset, e.Err)
}
func (e *SKESKError) Unwrap() error { return e.Err }

// joinedError reads as one line (errors.Join would put its parts on
// lines of their own) and unwraps to everything joined.
type joinedError struct {
	msg string
	err error
}

func (e *joinedError) Error() string { return e.msg }
func (e *joinedError) Unwrap() error { return e.err }

// sessionKey recovers the session key from the PKESKs (first) and SKESKs
// read so far. For SEIPD v2 (v2 true) the cipher comes from the data
// packet and the returned cipher is 0.
//
// When d.accept is set (SEIPD v1: the quick check of the encrypted
// prefix), a key it refuses is passed over and the search goes on: a
// wrong passphrase decrypts a v4 SKESK to a plausible key about once in
// 256 tries, and the right one may be in the next SKESK. If every key
// found is refused, the error is ErrAuthentication, what a failed MDC
// gives, so the quick check is no oracle of its own.
//
// The returned SessionKeyInfo names the PKESK and key, or the SKESK, that
// gave the key; the caller fills in the data packet's fields.
func (d *decryptor) sessionKey(v2 bool) ([]byte, packet.CipherAlgo, SessionKeyInfo, error) {
	var errs []error
	var tried []string
	refused := false
	accept := func(key []byte, c packet.CipherAlgo) bool {
		if d.accept == nil || d.accept(key, c) {
			return true
		}
		refused = true
		return false
	}
	if g := d.opt.SessionKey; g != nil {
		if !v2 && d.accept != nil && g.Cipher.KeySize() != len(g.Key) {
			return nil, 0, SessionKeyInfo{}, fmt.Errorf("the given session key has %d octets; %v takes %d", len(g.Key), g.Cipher, g.Cipher.KeySize())
		}
		if !accept(g.Key, g.Cipher) {
			// As a wrong recovered key: the quick check is no
			// oracle of its own.
			return nil, 0, SessionKeyInfo{}, ErrAuthentication
		}
		return g.Key, g.Cipher, SessionKeyInfo{Given: true}, nil
	}
	for _, p := range d.pkesks {
		if d.opt.Keys == nil {
			break
		}
		for _, priv := range d.opt.Keys.DecryptionKeys(p) {
			if err := d.opt.Keys.Unlock(priv); err != nil {
				errs = append(errs, &KeyError{KeyID: priv.KeyId, Fingerprint: priv.Fingerprint, Err: err})
				continue
			}
			key, c, err := p.Decrypt(priv)
			var unsup *packet.UnsupportedError
			if errors.As(err, &unsup) {
				// The key is ours and opened the session key, which
				// names what pgpstream cannot do: that is the answer,
				// not "no secret key".
				return nil, 0, SessionKeyInfo{}, err
			}
			if err != nil {
				if !p.Wildcard() {
					errs = append(errs, &KeyError{KeyID: priv.KeyId, Fingerprint: priv.Fingerprint, Err: err})
				}
				continue
			}
			if !accept(key, c) {
				continue
			}
			return key, c, SessionKeyInfo{PKESK: p, Key: priv}, nil
		}
		if p.Version == 3 {
			tried = append(tried, fmt.Sprintf("%016X", p.KeyID))
		} else {
			tried = append(tried, fmt.Sprintf("%X", p.Fingerprint))
		}
	}
	if len(d.skesks) > 0 {
		passes, err := d.passphrases()
		if err != nil {
			if len(d.pkesks) == 0 {
				return nil, 0, SessionKeyInfo{}, fmt.Errorf("the message is encrypted with a passphrase: %w", err)
			}
			errs = append(errs, err)
		} else {
			if err := d.checkS2KWork(); err != nil {
				return nil, 0, SessionKeyInfo{}, err
			}
			var skeskErrs []error
			for _, pass := range passes {
				for _, s := range d.skesks {
					a, _ := s.S2KWork()
					key, c, err := s.Decrypt(pass)
					if a >= 64<<10 {
						// Argon2's memory is garbage now: return it
						// before the next SKESK allocates its own, so
						// the peak is one derivation's, not their sum.
						debug.FreeOSMemory()
					}
					if err != nil {
						skeskErrs = append(skeskErrs, &SKESKError{s.Version, s.Offset, errors.Join(ErrBadPassphrase, err)})
						continue
					}
					if !accept(key, c) {
						skeskErrs = append(skeskErrs, &SKESKError{s.Version, s.Offset, ErrAuthentication})
						continue
					}
					return key, c, SessionKeyInfo{SKESK: s}, nil
				}
			}
			if len(d.pkesks) == 0 {
				if refused {
					return nil, 0, SessionKeyInfo{}, ErrAuthentication
				}
				return nil, 0, SessionKeyInfo{}, &joinedError{ErrBadPassphrase.Error(), errors.Join(append([]error{ErrBadPassphrase}, skeskErrs...)...)}
			}
			errs = append(errs, &joinedError{"the passphrase opens no SKESK", errors.Join(append([]error{ErrBadPassphrase}, skeskErrs...)...)})
		}
	}
	if len(d.pkesks)+len(d.skesks) == 0 {
		return nil, 0, SessionKeyInfo{}, errors.New("the message has no session key packet (PKESK or SKESK) before its encrypted data")
	}
	if refused {
		return nil, 0, SessionKeyInfo{}, ErrAuthentication
	}
	msg := ErrNoSecretKey.Error()
	if len(tried) > 0 {
		msg += " (encrypted to " + strings.Join(tried, ", ") + ")"
	}
	if len(errs) > 0 {
		var texts []string
		for _, e := range errs {
			var ke *KeyError
			if errors.As(e, &ke) && strings.Contains(ke.Err.Error(), fmt.Sprintf("%016X", ke.KeyID)) {
				e = ke.Err // it names its key already
			}
			texts = append(texts, e.Error())
		}
		msg += ": " + strings.Join(dedupe(texts), "; ")
	}
	return nil, 0, SessionKeyInfo{}, &joinedError{msg, errors.Join(append([]error{ErrNoSecretKey}, errs...)...)}
}

// passphrases are the passphrases to try against the SKESKs: the Keys'
// list, or its one passphrase.
func (d *decryptor) passphrases() ([][]byte, error) {
	switch k := d.opt.Keys.(type) {
	case nil:
		return nil, errors.New("no passphrase given")
	case PassphraseKeys:
		passes, err := k.Passphrases()
		if err == nil && len(passes) == 0 {
			err = errors.New("no passphrase given")
		}
		return passes, err
	default:
		pass, err := k.Passphrase()
		return [][]byte{pass}, err
	}
}

// checkS2KWork refuses, before any is tried, SKESKs that together ask for
// more than the per-message bounds: a passphrase may be tried against
// each of them.
func (d *decryptor) checkS2KWork() error {
	var argon2, iterated uint64
	for _, s := range d.skesks {
		a, it := s.S2KWork()
		argon2, iterated = argon2+a, iterated+it
	}
	switch {
	case argon2 > maxArgon2Work:
		return fmt.Errorf("%w: its %d SKESKs ask for %d Argon2 passes over 1 GiB in total; the bound is 32 per message (16 over 2 GiB)", ErrS2KCost, len(d.skesks), argon2>>20)
	case iterated > maxIteratedWork:
		return fmt.Errorf("%w: its %d SKESKs ask for %d MB of iterated S2K hashing in total; the bound is %d MB per message (8 at the largest count)", ErrS2KCost, len(d.skesks), iterated/1000000, maxIteratedWork/1000000)
	}
	return nil
}

// quickCheck reports whether key decrypts the prefix of a SEIPD v1 body
// to its repeated two octets (RFC 9580 §5.13.2), peeking without
// consuming, so that another key can still be tried.
func quickCheck(body iobuf.Reader, c packet.CipherAlgo, key []byte) bool {
	bs := c.BlockSize()
	if bs == 0 || len(key) != c.KeySize() {
		return false
	}
	pre, _ := body.Peek(bs + 2)
	if len(pre) < bs+2 {
		return true // too short to tell: the MDC reader reports it
	}
	stream, err := newCFB(c, key, false)
	if err != nil {
		return false
	}
	var prefix [16 + 2]byte
	stream.XORKeyStream(prefix[:bs+2], pre[:bs+2])
	return prefix[bs-2] == prefix[bs] && prefix[bs-1] == prefix[bs+1]
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
