package keyring

import (
	"bytes"
	"crypto"
	"encoding/binary"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"

	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// User IDs without a valid self-signature.
//
// Anyone can append a user ID to a certificate; only the key's own
// signature says the key holder claims it. gpg drops such a user ID on
// import, and a new v4 key with no other is skipped, unless
// --allow-non-selfsigned-uid: then (g10/import.c, gpg 2.2.40) every user
// ID without a good self-signature is kept "as if self-signed" (gpg 2.2
// never sets the flag for a bad one, so a user ID whose only self-
// signature fails counts as unsigned), and with the option again at use
// time (g10/getkey.c, merge_selfsigs_main) a key that has no validly
// signed user ID is valid all the same. PGP's own programs wrote secret
// keys that way (GnuPG's tests/openpgp/samplekeys/ecc-sample-2-sec.asc).
//
// go-crypto reads no such user ID: it files a user ID only when a
// signature by the primary key follows it, and refuses a v4 certificate
// that has none. So go-crypto is shown a view (unsignedView) with a
// stand-in signature packet after each user ID that has no signature by
// the primary key, which makes it build the Identity; readEntity then
// takes the stand-in out again, and with the option gives every user ID
// without a valid self-certification an accepted one in memory
// (acceptedSelfSig). Neither is ever written: the ring, exports and
// --list-packets carry the packets as imported; only go-crypto's parsed
// view holds them.

// unsignedView returns b with a stand-in signature after each user ID
// that no signature by the primary key follows, and the names of those
// user IDs; b itself and nil when there is none.
func unsignedView(b *block) (*block, map[string]bool) {
	pk, _, err := parseKey(b.primary.pkt)
	if err != nil || pk.Version != 4 {
		return b, nil
	}
	var nb *block
	var names map[string]bool
	for i, u := range b.uids {
		if u.pkt.tag != tagUserID || hasOwnSig(u, pk) {
			continue
		}
		standIn, ok := standInSig(pk)
		if !ok {
			return b, nil
		}
		if nb == nil {
			nb, names = b.clone(), map[string]bool{}
		}
		nb.uids[i].sigs = append(nb.uids[i].sigs, rawPacket{tag: tagSignature, body: standIn})
		names[string(u.pkt.body)] = true
	}
	if nb == nil {
		return b, nil
	}
	return nb, names
}

// hasOwnSig reports whether a signature on u names pk as its issuer, as
// go-crypto's CheckKeyIdOrFingerprint reads it: such a signature makes
// go-crypto file u as an Identity of its own.
func hasOwnSig(u component, pk *packet.PublicKey) bool {
	for _, p := range u.sigs {
		s, err := pgppacket.ParseSignature(p.body, -1)
		if err != nil {
			continue
		}
		if s.IssuerFingerprint != nil {
			if bytes.Equal(s.IssuerFingerprint, pk.Fingerprint) {
				return true
			}
			continue
		}
		if s.IssuerKeyID == pk.KeyId {
			return true
		}
	}
	return false
}

// standInSig is the body of a v4 positive certification (RFC 9580
// section 5.2.3) that names pk as its issuer and signs nothing: a
// creation time and the issuer fingerprint hashed, and a signature value
// of the shape pk's algorithm has, each number 1. It verifies against no
// key; go-crypto only has to parse it.
func standInSig(pk *packet.PublicKey) ([]byte, bool) {
	var value []byte
	one := []byte{0, 1, 1} // an MPI of one bit
	switch pk.PubKeyAlgo {
	case packet.PubKeyAlgoRSA, packet.PubKeyAlgoRSASignOnly:
		value = one
	case packet.PubKeyAlgoDSA, packet.PubKeyAlgoECDSA, packet.PubKeyAlgoEdDSA:
		value = append(append([]byte(nil), one...), one...)
	case packet.PubKeyAlgoEd25519:
		value = make([]byte, 64)
	case packet.PubKeyAlgoEd448:
		value = make([]byte, 114)
	default:
		return nil, false
	}
	var hashed []byte
	var t [4]byte
	binary.BigEndian.PutUint32(t[:], uint32(pk.CreationTime.Unix()))
	hashed = append(hashed, 5, 2)
	hashed = append(hashed, t[:]...)
	hashed = append(hashed, byte(2+len(pk.Fingerprint)), 33, 4)
	hashed = append(hashed, pk.Fingerprint...)
	body := []byte{4, sigPositiveCert, byte(pk.PubKeyAlgo), 8}
	body = binary.BigEndian.AppendUint16(body, uint16(len(hashed)))
	body = append(body, hashed...)
	body = append(body, 0, 0) // no unhashed subpackets
	body = append(body, 0, 0) // the hash's first two octets
	return append(body, value...), true
}

// sigPositiveCert is the positive certification's type (0x13).
const sigPositiveCert = 0x13

// fixUnsigned undoes the stand-ins in e for the user IDs in standIns and,
// when allow is set, gives each user ID of b with no valid
// self-certification an accepted one; it returns the names of those
// accepted. Without allow, a user ID that only the stand-in filed is
// removed, as go-crypto would not have had it.
func fixUnsigned(e *v2.Entity, b *block, standIns map[string]bool, allow bool) map[string]bool {
	for name := range standIns {
		if id := e.Identities[name]; id != nil {
			id.SelfCertifications = nil
			if !allow && len(id.Revocations) == 0 {
				delete(e.Identities, name)
			}
		}
	}
	if !allow || e.PrimaryKey.Version != 4 {
		return nil
	}
	var accepted map[string]bool
	for _, u := range b.uids {
		if u.pkt.tag != tagUserID {
			continue
		}
		name := string(u.pkt.body)
		id := e.Identities[name]
		if id == nil {
			continue
		}
		if _, err := id.LatestValidSelfCertification(time.Time{}, config); err == nil {
			continue
		}
		id.SelfCertifications = append(id.SelfCertifications, acceptedSelfSig(e.PrimaryKey))
		if accepted == nil {
			accepted = map[string]bool{}
		}
		accepted[name] = true
	}
	return accepted
}

// acceptedSelfSig is what go-crypto is given for a user ID accepted
// without a self-signature: a certification already marked valid, made
// when the key was, with no key flags (the key may do what its algorithm
// can, as gpg decides for a key without them), no expiry and no
// preferences. It lives only in the parsed entity.
func acceptedSelfSig(pk *packet.PublicKey) *packet.VerifiableSignature {
	id := pk.KeyId
	sig := &packet.Signature{
		Version:           4,
		SigType:           packet.SigTypePositiveCert,
		PubKeyAlgo:        pk.PubKeyAlgo,
		Hash:              crypto.SHA256,
		CreationTime:      pk.CreationTime,
		IssuerKeyId:       &id,
		IssuerFingerprint: pk.Fingerprint,
		IssuerKeyVersion:  uint8(pk.Version),
	}
	v := packet.NewVerifiableSig(sig)
	valid := true
	v.Valid = &valid
	return v
}
