package keyring

import (
	"strings"
	"time"
)

// BestForAddress is the key gpg 2.2 takes for the address addr when
// several of keys have a user ID with it (getkey.c's ranking for
// --locate-keys): the one whose user ID with that address is the most
// valid (an expired key counts as TrustExpired, above unknown, as gpg's
// validity does), a usable user ID before one that is not, and among
// equals the key whose newest encryption subkey is the newest. On a tie
// the earlier key in keys stays. It is nil when no key has the address.
func (r *Ring) BestForAddress(keys []*Key, addr, model string, now time.Time) *Key {
	addr = strings.Trim(addr, "<>")
	type rank struct {
		ok       bool // the user ID and its key are usable
		validity OwnerTrust
		newest   time.Time // the newest valid encryption subkey's creation
	}
	var best *Key
	var br rank
	for _, k := range keys {
		ps := k.primaryState(now)
		var newest time.Time
		for i := range k.ent.Subkeys {
			// gpg's subkey_is_ok: bound and not revoked; an expired
			// subkey still counts.
			ss := k.subkeyState(&k.ent.Subkeys[i], now)
			if ss.caps&capEncrypt != 0 && !ss.invalid && !ss.revoked && ss.pub.CreationTime.After(newest) {
				newest = ss.pub.CreationTime
			}
		}
		for _, us := range k.ringUIDStates(ps, now) {
			if !strings.EqualFold(emailOf(us.name), addr) {
				continue
			}
			v := r.UserIDValidity(k.Fingerprint(), us.name, model)
			if ps.expired {
				v = TrustExpired
			}
			nr := rank{ok: us.colon == "-" && !ps.invalid, validity: v, newest: newest}
			if best == nil || (!br.ok && nr.ok) || br.validity < nr.validity ||
				(br.validity == nr.validity && nr.ok && br.newest.Before(nr.newest)) {
				best, br = k, nr
				break
			}
		}
	}
	return best
}
