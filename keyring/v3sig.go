package keyring

import (
	"bytes"
	"fmt"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"

	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// readEntity reads b with go-crypto, then gives it the v3 subkey
// signatures go-crypto's reader skips (see withV3Subkeys). User IDs with
// no valid self-signature are read too (see unsigned.go); with
// allowUnsigned they are accepted, and their names returned.
func readEntity(b *block, allowUnsigned bool) (*v2.Entity, map[string]bool, error) {
	view, standIns := unsignedView(b)
	e, err := v2.ReadEntity(packet.NewReader(bytes.NewReader(view.bytes())))
	if err != nil {
		return nil, nil, fmt.Errorf("reading certificate: %w", err)
	}
	accepted := fixUnsigned(e, b, standIns, allowUnsigned)
	withV3Subkeys(e, b)
	return e, accepted, nil
}

// withV3Subkeys adds to e's subkeys the v3 binding and revocation
// signatures b holds for them. PGP 5 bound its Elgamal subkeys to v4 DSA
// keys with v3 signatures, which gpg 2.2 accepts; go-crypto reads v4 and
// later only and skips them, leaving such a subkey unbound, so it could
// neither be encrypted to nor decrypt. Each signature is read by
// goSignature, in its v4 form with the v3 hashed trailer, and left
// unverified: go-crypto checks it as it checks the others
// (LatestValidBindingSignature, Revoked), against the primary key and
// over what the primary key signed, so a forged or foreign one binds
// nothing. The v3 signatures stay in b as they came.
func withV3Subkeys(e *v2.Entity, b *block) {
	for _, c := range b.subs {
		var sub *v2.Subkey
		for _, p := range c.sigs {
			s, err := pgppacket.ParseSignature(p.body, -1)
			if err != nil || s.Version != 3 || (s.SigType != sigSubkeyBinding && s.SigType != sigSubkeyRevocation) {
				continue
			}
			if sub == nil {
				if sub = subkeyOf(e, c.pkt); sub == nil {
					break
				}
			}
			gs, err := goSignature(p, s)
			if err != nil {
				continue // an algorithm or hash go-crypto cannot check
			}
			if s.SigType == sigSubkeyBinding {
				sub.Bindings = append(sub.Bindings, packet.NewVerifiableSig(gs))
			} else {
				sub.Revocations = append(sub.Revocations, packet.NewVerifiableSig(gs))
			}
		}
	}
}

// subkeyOf finds the subkey p holds among e's, nil when go-crypto did
// not read it.
func subkeyOf(e *v2.Entity, p rawPacket) *v2.Subkey {
	pub, _, err := parseKey(p)
	if err != nil {
		return nil
	}
	for i := range e.Subkeys {
		if bytes.Equal(e.Subkeys[i].PublicKey.Fingerprint, pub.Fingerprint) {
			return &e.Subkeys[i]
		}
	}
	return nil
}
