package keyring

import (
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// KeyPart is the primary key or a subkey as the key edit menu shows it.
type KeyPart struct {
	Algo             string // gpg's name: ed25519, rsa3072, cv25519
	KeyID            uint64
	Fingerprint      []byte
	Created, Expires time.Time // Expires zero: never
	Usage            string    // S, C, E, A, as gpg prints them
	Revoked, Expired bool
	Secret           bool // the ring (or gpg-agent) has its secret part
}

// UserIDView is a user ID as the menu shows it.
type UserIDView struct {
	Name             string
	Revoked, Expired bool
	Primary          bool
}

// KeyView is what the key edit menu shows of a key: its user IDs in the
// order gpg numbers them (the primary user ID first, then the others in
// ring order; revoked ones too) and its subkeys in ring order.
type KeyView struct {
	Primary KeyPart
	Subkeys []KeyPart
	UserIDs []UserIDView
}

// View is k as the menu shows it at now.
func (k *Key) View(now time.Time) KeyView {
	ps := k.primaryState(now)
	v := KeyView{Primary: k.part(ps)}
	for i := range k.ent.Subkeys {
		ss := k.subkeyState(&k.ent.Subkeys[i], now)
		if ss.invalid {
			continue
		}
		v.Subkeys = append(v.Subkeys, k.part(ss))
	}
	// gpg's menu numbers the user IDs in ring order (its
	// show_key_with_all_names walks the keyblock), the primary marked
	// where it is; import stores a new key's primary first, as gpg's does.
	primary, marked := k.PrimaryUserID(), false
	for _, u := range k.ringUIDStates(ps, now) {
		uv := UserIDView{Name: u.name, Revoked: u.colon == "r", Expired: u.colon == "e"}
		if u.name == primary && !uv.Revoked && !marked {
			uv.Primary, marked = true, true
		}
		v.UserIDs = append(v.UserIDs, uv)
	}
	return v
}

func (k *Key) part(st keyState) KeyPart {
	algo, _ := algoName(st.pub)
	return KeyPart{Algo: algo, KeyID: st.pub.KeyId, Fingerprint: st.pub.Fingerprint, Created: st.pub.CreationTime,
		Expires: st.expires, Usage: usageString(st.caps), Revoked: st.revoked, Expired: st.expired, Secret: st.secret == '+' || st.secret == '>'}
}

// PrimaryPublic is the primary public key.
func (k *Key) PrimaryPublic() *packet.PublicKey { return k.ent.PrimaryKey }

// SpacedFingerprint is fp as gpg prints it for people: groups of four,
// two spaces in the middle.
func SpacedFingerprint(fp []byte) string { return spacedFingerprint(fp) }

// ParseHexID reads a fingerprint or key ID as a key specification does
// (optional 0x, spaces, a trailing "!").
func ParseHexID(s string) (id []byte, bang, ok bool) { return parseHexID(strings.TrimSpace(s)) }
