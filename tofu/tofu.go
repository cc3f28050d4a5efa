// Package tofu is gpg's trust-on-first-use history: which key was seen
// with which e-mail address (a binding), the signatures verified and the
// messages encrypted with each, and the policy that decides what a binding
// is worth. It keeps them in gpg's own tofu.db (an SQLite file, schema
// version 1), so pgpstream and gpg sharing a home share one history.
//
// The rules are gpg 2.2's (g10/tofu.c): a binding first seen for an
// address is "auto", worth what --tofu-default-policy says (marginal by
// default); a second key with the same address is a conflict, and both
// bindings become "ask" (undefined) until the user sets a policy, unless
// the two keys certified each other's user ID with that address; a key
// trusted ultimately, or one whose user ID such a key certified, is good.
// pgpstream never asks: where gpg would prompt on a terminal it does what
// gpg does in batch mode, and --tofu-policy sets the policy.
package tofu

import (
	"fmt"
	"strings"

	"github.com/pgpstream/pgpstream/internal/mailbox"
)

// Policy is a binding's policy, with gpg's numbers (they are what tofu.db
// stores).
type Policy int

const (
	None    Policy = 0 // no policy recorded: a new binding
	Auto    Policy = 1 // decided by the default policy (--tofu-default-policy)
	Good    Policy = 2
	Unknown Policy = 3
	Bad     Policy = 4
	Ask     Policy = 5 // a conflict, or the user deferred the decision
)

// Policies are the policies a user may set, in gpg's order.
var Policies = []Policy{Auto, Good, Unknown, Bad, Ask}

func (p Policy) String() string {
	switch p {
	case None:
		return "none"
	case Auto:
		return "auto"
	case Good:
		return "good"
	case Unknown:
		return "unknown"
	case Bad:
		return "bad"
	case Ask:
		return "ask"
	}
	return fmt.Sprintf("policy %d", int(p))
}

// ParsePolicy reads a policy name, as --tofu-policy and
// --tofu-default-policy take it (any case).
func ParsePolicy(s string) (Policy, error) {
	for _, p := range Policies {
		if strings.EqualFold(s, p.String()) {
			return p, nil
		}
	}
	return None, fmt.Errorf("unknown TOFU policy %q (valid: auto, good, unknown, bad, ask)", s)
}

func (p Policy) valid() bool { return p >= Auto && p <= Ask }

// Trust is a validity with gpg's TRUST_ numbers, the same as
// keyring.OwnerTrust's.
type Trust int

const (
	TrustUnknown   Trust = 0
	TrustExpired   Trust = 1
	TrustUndefined Trust = 2
	TrustNever     Trust = 3
	TrustMarginal  Trust = 4
	TrustFully     Trust = 5
	TrustUltimate  Trust = 6
)

// trustOf is what a binding of policy p is worth (gpg's
// tofu_policy_to_trust_level); Auto is the default policy's worth, and
// marginal when the default is auto too.
func trustOf(p, def Policy) Trust {
	if p == Auto {
		p = def
	}
	switch p {
	case Good:
		return TrustFully
	case Bad:
		return TrustNever
	case Unknown, Ask:
		return TrustUnknown
	}
	return TrustMarginal
}

// CombinePGP is the validity under tofu+pgp: never, then expired, win;
// otherwise the better of the two (gpg's tofu_wot_trust_combine).
func CombinePGP(tofu, wot Trust) Trust {
	switch {
	case tofu == TrustNever || wot == TrustNever:
		return TrustNever
	case tofu == TrustExpired || wot == TrustExpired:
		return TrustExpired
	}
	for _, t := range []Trust{TrustUltimate, TrustFully, TrustMarginal, TrustUndefined} {
		if tofu == t || wot == t {
			return t
		}
	}
	return TrustUnknown
}

// Email is the address a user ID binds, as tofu.db records it: its
// mailbox, lowercased, or the whole user ID lowercased when it holds none
// (a host name, say).
func Email(uid string) string {
	if m, ok := mailbox.FromUserID(uid); ok {
		return m
	}
	return mailbox.ASCIILower(uid)
}

// Keys is what the policy needs to know of the keys, which the keyring
// holds. Fingerprints are upper-case hex; an unknown key is neither
// ultimate nor signed.
type Keys interface {
	// Ultimate says whether the key is trusted ultimately.
	Ultimate(fpr string) bool
	// SignedByUltimate says whether the key's first user ID with this
	// address carries a certification issued by a key trusted
	// ultimately.
	SignedByUltimate(fpr, email string) bool
	// CrossSigned says whether each key certified the other's first
	// user ID with this address: one person's two keys, not a conflict.
	CrossSigned(a, b, email string) bool
}

// UserID is one user ID of a key whose validity is asked for.
type UserID struct {
	Name    string
	Expired bool // counted as expired: it gives no validity
}

// Stats is what tofu.db holds of one binding's history: gpg's tfs record
// and TOFU_STATS line. Times are seconds since the epoch, when pgpstream
// or gpg saw the signature or encrypted, not when a signature claims it
// was made; days are distinct days (UTC) with any.
type Stats struct {
	Signatures, SignatureDays       int64
	FirstSignature, LastSignature   int64
	Encryptions, EncryptionDays     int64
	FirstEncryption, LastEncryption int64
}

// gpg's thresholds, in days of history, for basic and full trust.
const (
	basicTrustThreshold = 4
	fullTrustThreshold  = 21
)

// Validity is gpg's summary of how much history a binding has: 1 none, 2
// too little, 3 enough for basic trust, 4 a lot. It weighs days with
// signatures and days with encryptions as a Euclidean distance.
func (s Stats) Validity() int {
	d := s.SignatureDays*s.SignatureDays + s.EncryptionDays*s.EncryptionDays
	switch {
	case d < 1:
		return 1
	case d < (2*basicTrustThreshold)*(2*basicTrustThreshold):
		return 2
	case d < (2*fullTrustThreshold)*(2*fullTrustThreshold):
		return 3
	}
	return 4
}

// Summary is the tfs record's second field: 0 when the binding needs
// the user's attention (its policy is ask), else Validity.
func (s Stats) Summary(p Policy) int {
	if p == Ask {
		return 0
	}
	return s.Validity()
}
