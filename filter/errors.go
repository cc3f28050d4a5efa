// Package filter holds the stages of pgpstream's encode and decode chains
// (CFB+MDC and AEAD encryption, compression, ASCII armor) and the code
// that stacks them: decryption builds its chain from the packets it
// meets, as GnuPG's iobuf chain does.
package filter

import "errors"

// ErrAuthentication is returned when ciphertext fails its integrity check:
// a bad MDC, a bad AEAD tag, a wrong session key. The message is the same
// whatever the cause, so an attacker who modifies ciphertext learns
// nothing from which check failed.
var ErrAuthentication = errors.New("decryption failed: wrong key or passphrase, or the message was modified (integrity check failed)")

// ErrMalformed is returned for any structural problem found inside
// decrypted data; like ErrAuthentication it names no detail, so decrypted
// garbage is no oracle.
var ErrMalformed = errors.New("decryption failed: the decrypted data is not a valid OpenPGP message")
