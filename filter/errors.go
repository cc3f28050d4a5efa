// Package filter holds the stages of pgpstream's encode and decode chains
// (CFB+MDC and AEAD encryption, compression, signing and verification)
// and the code that stacks them: decryption builds its chain from the
// packets it meets, as GnuPG's iobuf chain does. ASCII armor is its own
// package, armor.
package filter

import (
	"errors"
	"fmt"
)

// ErrAuthentication is returned when ciphertext fails its integrity check:
// a bad MDC, a bad AEAD tag, a wrong session key. The message is the same
// whatever the cause, so an attacker who modifies ciphertext learns
// nothing from which check failed.
var ErrAuthentication = errors.New("decryption failed: wrong key or passphrase, or the message was modified (integrity check failed)")

// ErrMalformed is returned for any structural problem found inside
// decrypted data; like ErrAuthentication it names no detail, so decrypted
// garbage is no oracle.
var ErrMalformed = errors.New("decryption failed: the decrypted data is not a valid OpenPGP message")

// ErrKeyLocked is wrapped by the error Keys.Unlock returns when a secret
// key is protected by a passphrase and none is at hand. A caller tests for
// it with errors.Is to suggest giving one.
var ErrKeyLocked = errors.New("protected by a passphrase and none was given")

// KeyError is why one secret key did not open a PKESK: it could not be
// unlocked, or the session key did not decrypt with it. When no key opens
// a message, Decrypt's error wraps ErrNoSecretKey and joins one KeyError
// per key tried (errors.Join), so errors.Is and errors.As see each cause.
type KeyError struct {
	KeyID       uint64 // the secret key's ID
	Fingerprint []byte // the secret key's fingerprint
	Err         error
}

func (e *KeyError) Error() string { return fmt.Sprintf("key %016X: %v", e.KeyID, e.Err) }
func (e *KeyError) Unwrap() error { return e.Err }
