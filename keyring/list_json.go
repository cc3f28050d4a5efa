package keyring

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/pgpstream/pgpstream/clock"
)

// The JSON form of a key listing (--list-keys --json), documented in
// docs/INSPECT.md. Fields are only ever added.

// JSONKey is one certificate.
type JSONKey struct {
	JSONSubkey
	UserIDs []JSONUserID `json:"user_ids"`
	Subkeys []JSONSubkey `json:"subkeys"`
}

// JSONSubkey is a primary key or a subkey.
type JSONSubkey struct {
	Fingerprint  string `json:"fingerprint"`
	KeyID        string `json:"key_id"`
	Version      int    `json:"version"`
	Algorithm    string `json:"algorithm"` // gpg's: "ed25519", "rsa3072", "cv25519", ...
	AlgorithmID  int    `json:"algorithm_id"`
	Bits         int    `json:"bits"`
	Created      int64  `json:"created"`
	Expires      int64  `json:"expires,omitempty"` // 0: never
	Capabilities string `json:"capabilities"`      // gpg's letters: s, c, e, a
	Secret       bool   `json:"secret"`            // the secret part is in the ring
	Revoked      bool   `json:"revoked,omitempty"`
	Expired      bool   `json:"expired,omitempty"`
	Keygrip      string `json:"keygrip,omitempty"`
}

// JSONUserID is a user ID with a valid self-signature.
type JSONUserID struct {
	UserID   string `json:"user_id"`
	Validity string `json:"validity"` // "unknown", "revoked", "expired"
	Created  int64  `json:"created"`
}

func jsonSubkey(st keyState) JSONSubkey {
	algo, bits := algoName(st.pub)
	j := JSONSubkey{
		Fingerprint: fmt.Sprintf("%X", st.pub.Fingerprint), KeyID: fmt.Sprintf("%016X", st.pub.KeyId),
		Version: st.pub.Version, Algorithm: algo, AlgorithmID: int(st.pub.PubKeyAlgo), Bits: bits,
		Created: st.pub.CreationTime.Unix(), Capabilities: capString(st.caps, false),
		Secret: st.secret == '+', Revoked: st.revoked, Expired: st.expired,
	}
	if !st.expires.IsZero() {
		j.Expires = st.expires.Unix()
	}
	j.Keygrip = KeygripHex(st.pub)
	return j
}

func (k *Key) jsonKey(now time.Time) JSONKey {
	ps := k.primaryState(now)
	j := JSONKey{JSONSubkey: jsonSubkey(ps), UserIDs: []JSONUserID{}, Subkeys: []JSONSubkey{}}
	for _, u := range k.uidStates(ps, now) {
		j.UserIDs = append(j.UserIDs, JSONUserID{UserID: u.name, Validity: u.validity, Created: u.created.Unix()})
	}
	for i := range k.ent.Subkeys {
		ss := k.subkeyState(&k.ent.Subkeys[i], now)
		if !ss.invalid {
			j.Subkeys = append(j.Subkeys, jsonSubkey(ss))
		}
	}
	return j
}

func writeJSONKeys(w io.Writer, keys []*Key) error {
	now := clock.Now()
	out := make([]JSONKey, 0, len(keys))
	for _, k := range keys {
		out = append(out, k.jsonKey(now))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
