package keyring

import (
	"bytes"
	"crypto"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/filter"
)

// PassphraseFunc returns the passphrase of a protected secret key. It is
// called only when a key that must sign is locked.
type PassphraseFunc func() ([]byte, error)

// ErrNoSecretKey is returned (wrapped) when a change to a key needs its
// secret primary key and the ring has not got it.
var ErrNoSecretKey = errors.New("no secret key")

// editor collects the packets a change adds to one key: new signatures
// on existing components and new components, for the public and the
// secret ring alike. They are merged into copies of the key's blocks
// (see commit), so a change adds packets and never rewrites the ones
// already stored.
type editor struct {
	k    *Key
	priv *packet.PrivateKey // the primary secret key, unlocked (a private copy)
	pass []byte             // the passphrase that opened it, nil if it was not protected
	now  time.Time
	pub  *block // additions for the public ring
	sec  *block // additions for the secret ring
}

// edit runs fn on the key with the full fingerprint fpr under the home's
// lock, with the primary secret key unlocked, and writes what fn added
// to both rings (secret ring first).
func (r *Ring) edit(fpr string, pass PassphraseFunc, fn func(ed *editor) error) error {
	return r.update(secretFirst, func() (bool, error) {
		k, err := r.editableKey(fpr)
		if err != nil {
			return false, err
		}
		ed, err := newEditor(k, pass)
		if err != nil {
			return false, err
		}
		if err := fn(ed); err != nil {
			return false, err
		}
		return ed.commit(r)
	})
}

// editableKey resolves fpr, which must be a full primary-key fingerprint:
// a change to a key is never made to a key chosen by a pattern.
func (r *Ring) editableKey(fpr string) (*Key, error) {
	b, bang, ok := parseHexID(strings.TrimSpace(fpr))
	if !ok || bang || (len(b) != 20 && len(b) != 32) {
		return nil, fmt.Errorf("keyring: %q is not a fingerprint: name the key by its full fingerprint", fpr)
	}
	k := r.byFingerprint(fmt.Sprintf("%X", b))
	if k == nil {
		return nil, noKey(fpr, false)
	}
	if k.sec == nil && k.inAgent(true) {
		return nil, fmt.Errorf("%w: %w", k.inAgentError("use gpg for this change"), ErrNoSecretKey)
	}
	if k.sec == nil {
		return nil, fmt.Errorf("keyring: key %s: %w", k.Fingerprint(), ErrNoSecretKey)
	}
	return k, nil
}

func newEditor(k *Key, pass PassphraseFunc) (*editor, error) {
	return openEditor(k, func(priv *packet.PrivateKey) ([]byte, error) {
		if pass == nil {
			return nil, fmt.Errorf("keyring: key %s is protected and no passphrase was given", k.Fingerprint())
		}
		pw, err := pass()
		if err != nil {
			return nil, err
		}
		return pw, Unlock(priv, pw)
	})
}

// openEditor starts a change to k with its primary secret key, which
// unlock opens when it is protected and answers with the passphrase that
// did.
func openEditor(k *Key, unlock func(*packet.PrivateKey) ([]byte, error)) (*editor, error) {
	_, priv, err := parseKey(k.sec.primary.pkt)
	if err != nil {
		return nil, err
	}
	if priv == nil || priv.Dummy() {
		return nil, fmt.Errorf("keyring: key %s: the secret primary key is not in the ring: %w", k.Fingerprint(), ErrNoSecretKey)
	}
	var pw []byte
	if priv.Encrypted {
		if pw, err = unlock(priv); err != nil {
			return nil, err
		}
	}
	return editorWith(k, priv, pw), nil
}

// editorWith is an editor for k whose primary secret key priv is already
// unlocked (with pass, nil if it was not protected).
func editorWith(k *Key, priv *packet.PrivateKey, pass []byte) *editor {
	return &editor{k: k, priv: priv, pass: pass, now: clock.Now().Truncate(time.Second),
		pub: &block{primary: component{pkt: k.pub.primary.pkt}},
		sec: &block{primary: component{pkt: k.sec.primary.pkt}}}
}

// hashFor picks the digest for signatures a key makes: filter's rule,
// the key's minimum.
func hashFor(pk *packet.PublicKey) crypto.Hash {
	h, _ := filter.HashFor(pk, 0) // 0 is never refused
	return h.Crypto()
}

func (ed *editor) config() *packet.Config {
	now := ed.now
	return &packet.Config{DefaultHash: hashFor(&ed.priv.PublicKey), Time: func() time.Time { return now }}
}

// newSig starts a signature by the primary key.
func (ed *editor) newSig(typ packet.SignatureType) *packet.Signature {
	pk := &ed.priv.PublicKey
	id := pk.KeyId
	return &packet.Signature{
		Version:           pk.Version,
		SigType:           typ,
		PubKeyAlgo:        pk.PubKeyAlgo,
		Hash:              hashFor(pk),
		CreationTime:      ed.now,
		IssuerKeyId:       &id,
		IssuerKeyVersion:  uint8(pk.Version),
		IssuerFingerprint: pk.Fingerprint,
	}
}

// renewSig starts a signature that carries what old said about the key
// (flags, preferences, features, primary user ID), to replace old.
func (ed *editor) renewSig(old *packet.Signature) *packet.Signature {
	s := ed.newSig(old.SigType)
	s.FlagsValid = old.FlagsValid
	s.FlagCertify, s.FlagSign = old.FlagCertify, old.FlagSign
	s.FlagEncryptCommunications, s.FlagEncryptStorage = old.FlagEncryptCommunications, old.FlagEncryptStorage
	s.FlagSplitKey, s.FlagAuthenticate, s.FlagGroupKey = old.FlagSplitKey, old.FlagAuthenticate, old.FlagGroupKey
	s.PreferredSymmetric = old.PreferredSymmetric
	s.PreferredHash = old.PreferredHash
	s.PreferredCompression = old.PreferredCompression
	s.PreferredCipherSuites = old.PreferredCipherSuites
	s.SEIPDv1, s.SEIPDv2 = old.SEIPDv1, old.SEIPDv2
	s.IsPrimaryId = old.IsPrimaryId
	s.KeyLifetimeSecs = old.KeyLifetimeSecs
	s.KeyserverPrefsValid, s.KeyserverPrefNoModify = old.KeyserverPrefsValid, old.KeyserverPrefNoModify
	// The primary key binding signature a signing subkey made stays
	// valid: it signs the two keys, not the binding.
	s.EmbeddedSignature = old.EmbeddedSignature
	return s
}

func sigPacket(s *packet.Signature) (rawPacket, error) {
	var buf bytes.Buffer
	if err := s.Serialize(&buf); err != nil {
		return rawPacket{}, fmt.Errorf("keyring: serializing a signature: %w", err)
	}
	pkts, err := splitPackets(buf.Bytes())
	if err != nil || len(pkts) != 1 {
		return rawPacket{}, fmt.Errorf("keyring: a new signature did not frame as one packet (%v)", err)
	}
	return pkts[0], nil
}

func keyPacket(write func(*bytes.Buffer) error) (rawPacket, error) {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return rawPacket{}, fmt.Errorf("keyring: serializing a key: %w", err)
	}
	pkts, err := splitPackets(buf.Bytes())
	if err != nil || len(pkts) != 1 {
		return rawPacket{}, fmt.Errorf("keyring: a new key did not frame as one packet (%v)", err)
	}
	return pkts[0], nil
}

// addPrimarySig adds a signature over the primary key alone (direct-key
// or revocation).
func (ed *editor) addPrimarySig(p rawPacket) {
	ed.pub.primary.sigs = append(ed.pub.primary.sigs, p)
	ed.sec.primary.sigs = append(ed.sec.primary.sigs, p)
}

func (ed *editor) addUIDSig(uid string, p rawPacket) {
	c := component{pkt: rawPacket{tag: tagUserID, body: []byte(uid)}, sigs: []rawPacket{p}}
	ed.pub.uids = append(ed.pub.uids, c)
	ed.sec.uids = append(ed.sec.uids, component{pkt: c.pkt, sigs: []rawPacket{p}})
}

// addSubSig adds a binding or revocation to the subkey whose public and
// secret packets (as stored) are given.
func (ed *editor) addSubSig(pubPkt, secPkt rawPacket, p rawPacket) {
	ed.pub.subs = append(ed.pub.subs, component{pkt: pubPkt, sigs: []rawPacket{p}})
	if secPkt.body != nil {
		ed.sec.subs = append(ed.sec.subs, component{pkt: secPkt, sigs: []rawPacket{p}})
	}
}

// commit merges the additions into copies of the key's blocks and swaps
// them in once they parse.
func (ed *editor) commit(r *Ring) (bool, error) {
	k := ed.k
	np, ns := k.pub.clone(), k.sec.clone()
	m, err := merge(np, ed.pub)
	if err != nil {
		return false, err
	}
	sm, err := merge(ns, ed.sec)
	if err != nil {
		return false, err
	}
	if !m.changed() && !sm.changed() {
		return false, nil
	}
	if err := checkBounds(np); err != nil {
		return false, fmt.Errorf("keyring: key %s: %w", k.Fingerprint(), err)
	}
	nk, err := r.newKey(np, ns)
	if err != nil {
		return false, fmt.Errorf("keyring: key %s after the change: %w", k.Fingerprint(), err)
	}
	*k = *nk
	return true, nil
}

// secretPacketFor returns the secret ring's packet for the (sub)key with
// fingerprint fp, or a zero packet.
func (k *Key) secretPacketFor(fp []byte) rawPacket {
	for _, c := range k.sec.components() {
		if c.pkt.tag != tagSecretKey && c.pkt.tag != tagSecretSubkey {
			continue
		}
		if f, err := fingerprintOf(c.pkt); err == nil && bytes.Equal(f, fp) {
			return c.pkt
		}
	}
	return rawPacket{}
}

// publicSubPacket returns the public ring's packet for the subkey with
// fingerprint fp.
func (k *Key) publicSubPacket(fp []byte) (rawPacket, bool) {
	for _, c := range k.pub.subs {
		if f, err := fingerprintOf(c.pkt); err == nil && bytes.Equal(f, fp) {
			return c.pkt, true
		}
	}
	return rawPacket{}, false
}

// lifetime turns an absolute expiry into the key lifetime subpacket's
// value, seconds after the key's creation; zero expiry means never.
func lifetime(created, expires time.Time) (*uint32, error) {
	var z uint32
	if expires.IsZero() {
		return &z, nil
	}
	d := expires.Unix() - created.Unix()
	if d <= 0 {
		return nil, fmt.Errorf("keyring: the expiry %s is not after the key's creation %s", day(expires), day(created))
	}
	if d > 0xffffffff {
		return nil, fmt.Errorf("keyring: the expiry %s is too far after the key's creation", day(expires))
	}
	v := uint32(d)
	return &v, nil
}

// SetExpire sets when the key with full fingerprint fpr expires (zero:
// never), as gpg's --quick-set-expire: with no subkeys named, the primary
// key (a new self-signature on every user ID, and on the key itself for
// v6); with subkey fingerprints, or allSubkeys ("*"), those subkeys (new
// binding signatures) and not the primary key.
func (r *Ring) SetExpire(fpr string, expires time.Time, subkeys []string, allSubkeys bool, pass PassphraseFunc) error {
	return r.edit(fpr, pass, func(ed *editor) error {
		if len(subkeys) == 0 && !allSubkeys {
			return ed.expirePrimary(expires)
		}
		return ed.expireSubkeys(expires, subkeys, allSubkeys)
	})
}

func (ed *editor) expirePrimary(expires time.Time) error {
	k, cfg := ed.k, ed.config()
	life, err := lifetime(k.ent.PrimaryKey.CreationTime, expires)
	if err != nil {
		return err
	}
	n := 0
	for _, uid := range k.uids {
		id := k.ent.Identities[uid]
		old, err := id.LatestValidSelfCertification(time.Time{}, config)
		if err != nil || uidRevoked(id, old, ed.now) {
			continue
		}
		s := ed.renewSig(old)
		s.KeyLifetimeSecs = life
		if err := s.SignUserId(uid, &ed.priv.PublicKey, ed.priv, cfg); err != nil {
			return fmt.Errorf("keyring: signing user ID %q: %w", uid, err)
		}
		p, err := sigPacket(s)
		if err != nil {
			return err
		}
		ed.addUIDSig(uid, p)
		n++
	}
	if old, err := k.ent.LatestValidDirectSignature(time.Time{}, config); err == nil || k.Version() == 6 {
		var s *packet.Signature
		if err == nil {
			s = ed.renewSig(old)
		} else {
			s = ed.newSig(packet.SigTypeDirectSignature)
		}
		s.KeyLifetimeSecs = life
		if err := s.SignDirectKeyBinding(&ed.priv.PublicKey, ed.priv, cfg); err != nil {
			return fmt.Errorf("keyring: signing the key: %w", err)
		}
		p, err := sigPacket(s)
		if err != nil {
			return err
		}
		ed.addPrimarySig(p)
		n++
	}
	if n == 0 {
		return fmt.Errorf("keyring: key %s has no valid self-signature to renew", k.Fingerprint())
	}
	return nil
}

func (ed *editor) expireSubkeys(expires time.Time, subkeys []string, all bool) error {
	k, cfg := ed.k, ed.config()
	want := map[string]bool{}
	for _, s := range subkeys {
		b, _, ok := parseHexID(strings.TrimSpace(s))
		if !ok || (len(b) != 20 && len(b) != 32) {
			return fmt.Errorf("keyring: subkey %q: name it by its full fingerprint", s)
		}
		want[fmt.Sprintf("%X", b)] = false
	}
	for i := range k.ent.Subkeys {
		sk := &k.ent.Subkeys[i]
		fp := fmt.Sprintf("%X", sk.PublicKey.Fingerprint)
		if _, ok := want[fp]; !ok && !all {
			continue
		}
		old, err := sk.LatestValidBindingSignature(time.Time{}, config)
		if err != nil || sk.Revoked(old, ed.now) {
			if !all {
				return fmt.Errorf("keyring: subkey %s is revoked or not validly bound", fp)
			}
			continue
		}
		want[fp] = true
		life, err := lifetime(sk.PublicKey.CreationTime, expires)
		if err != nil {
			return err
		}
		s := ed.renewSig(old)
		s.KeyLifetimeSecs = life
		if err := s.SignKey(sk.PublicKey, ed.priv, cfg); err != nil {
			return fmt.Errorf("keyring: signing subkey %s: %w", fp, err)
		}
		p, err := sigPacket(s)
		if err != nil {
			return err
		}
		pp, _ := k.publicSubPacket(sk.PublicKey.Fingerprint)
		ed.addSubSig(pp, k.secretPacketFor(sk.PublicKey.Fingerprint), p)
	}
	for fp, done := range want {
		if !done {
			return fmt.Errorf("keyring: key %s has no subkey %s", k.Fingerprint(), fp)
		}
	}
	return nil
}

// ErrUserIDExists is returned (wrapped) by AddUserID for a user ID the key
// already has.
var ErrUserIDExists = errors.New("such a user ID already exists on this key")

// AddUserID adds a self-signed user ID to the key with full fingerprint
// fpr. The self-signature repeats what the primary user ID's says about
// the key (flags, preferences, expiry), as gpg's --quick-add-uid does.
func (r *Ring) AddUserID(fpr, uid string, pass PassphraseFunc) error {
	uid = strings.TrimSpace(uid)
	if uid == "" {
		return fmt.Errorf("keyring: empty user ID")
	}
	if _, _, _, err := splitUserID(uid); err != nil {
		return err
	}
	return r.edit(fpr, pass, func(ed *editor) error { return ed.addUserID(uid) })
}

// addUserID adds uid with a self-signature that repeats what the
// primary user ID's says about the key.
func (ed *editor) addUserID(uid string) error {
	k := ed.k
	for _, u := range k.pub.uids {
		if u.pkt.tag == tagUserID && string(u.pkt.body) == uid {
			if id := k.ent.Identities[uid]; id != nil {
				if sig, err := id.LatestValidSelfCertification(time.Time{}, config); err == nil && !uidRevoked(id, sig, ed.now) {
					return fmt.Errorf("keyring: %w", ErrUserIDExists)
				}
			}
		}
	}
	var s *packet.Signature
	if old, err := k.ent.PrimarySelfSignature(time.Time{}, config); err == nil && old.SigType != packet.SigTypeDirectSignature {
		s = ed.renewSig(old)
		s.SigType = packet.SigTypePositiveCert
	} else {
		s = ed.newSig(packet.SigTypePositiveCert)
	}
	f := false
	s.IsPrimaryId = &f
	if err := s.SignUserId(uid, &ed.priv.PublicKey, ed.priv, ed.config()); err != nil {
		return fmt.Errorf("keyring: signing user ID %q: %w", uid, err)
	}
	p, err := sigPacket(s)
	if err != nil {
		return err
	}
	ed.addUIDSig(uid, p)
	return nil
}

// RevokeUserID revokes the user ID uid (exactly as stored, or by its name
// hash: see userIDNamed) of the key with full fingerprint fpr with a
// certification revocation ("user ID is no longer valid"). As gpg does,
// the last valid user ID cannot be revoked.
func (r *Ring) RevokeUserID(fpr, uid string, pass PassphraseFunc) error {
	return r.edit(fpr, pass, func(ed *editor) error {
		return ed.revokeUserID(ed.k.userIDNamed(uid), packet.UserIDNotValid, "")
	})
}

// SetPrimaryUserID makes uid (exactly as stored, or by its name hash) the
// primary user ID of the key with full fingerprint fpr, as gpg's
// --quick-set-primary-uid does (see Session.SetPrimaryUserID).
func (r *Ring) SetPrimaryUserID(fpr, uid string, pass PassphraseFunc) error {
	return r.edit(fpr, pass, func(ed *editor) error { return ed.setPrimary(ed.k.userIDNamed(uid)) })
}

// userIDNamed is the user ID that spec names, as gpg's quick commands find
// one: the user ID exactly as stored, or its name hash (40 hex digits,
// the uid record's field 8: RIPEMD-160 of the user ID). Anything else
// is returned as it is, for the caller to report as not found.
func (k *Key) userIDNamed(spec string) string {
	for _, u := range k.uids {
		if u == spec {
			return u
		}
	}
	if len(spec) == 40 {
		for _, u := range k.uids {
			if strings.EqualFold(uidHash(u), spec) {
				return u
			}
		}
	}
	return spec
}

// revokeUserID revokes uid with a certification revocation giving reason
// and text.
func (ed *editor) revokeUserID(uid string, reason packet.ReasonForRevocation, text string) error {
	k := ed.k
	valid := 0
	found := false
	for _, u := range k.uids {
		id := k.ent.Identities[u]
		sig, err := id.LatestValidSelfCertification(time.Time{}, config)
		if err != nil || uidRevoked(id, sig, ed.now) {
			continue
		}
		valid++
		found = found || u == uid
	}
	if !found {
		return fmt.Errorf("keyring: revoking the user ID failed: key %s has no valid user ID %q", k.Fingerprint(), uid)
	}
	if valid == 1 {
		return fmt.Errorf("keyring: revoking the user ID failed: %q is the key's last valid user ID", uid)
	}
	s := ed.newSig(packet.SigTypeCertificationRevocation)
	s.RevocationReason = &reason
	s.RevocationReasonText = text
	if err := s.SignUserId(uid, &ed.priv.PublicKey, ed.priv, ed.config()); err != nil {
		return fmt.Errorf("keyring: revoking user ID %q: %w", uid, err)
	}
	p, err := sigPacket(s)
	if err != nil {
		return err
	}
	ed.addUIDSig(uid, p)
	return nil
}

// Revocation reasons (RFC 9580 section 5.2.3.31) as gpg numbers them in
// its prompt: 0 no reason, 1 compromised, 2 superseded, 3 retired.
var revocationReasons = []packet.ReasonForRevocation{packet.NoReason, packet.KeyCompromised, packet.KeySuperseded, packet.KeyRetired}

// RevocationCertificate makes a key revocation signature for the key with
// full fingerprint fpr and returns it as a packet, without adding it to
// the ring: published or imported later, it revokes the key. reason is
// gpg's number (0 no reason, 1 compromised, 2 superseded, 3 no longer
// used).
func (r *Ring) RevocationCertificate(fpr string, reason int, text string, pass PassphraseFunc) ([]byte, error) {
	if reason < 0 || reason >= len(revocationReasons) {
		return nil, fmt.Errorf("keyring: revocation reason %d: expected 0 to 3", reason)
	}
	k, err := r.editableKey(fpr)
	if err != nil {
		return nil, err
	}
	ed, err := newEditor(k, pass)
	if err != nil {
		return nil, err
	}
	return ed.revocation(revocationReasons[reason], text)
}

func (ed *editor) revocation(reason packet.ReasonForRevocation, text string) ([]byte, error) {
	s := ed.newSig(packet.SigTypeKeyRevocation)
	s.RevocationReason = &reason
	s.RevocationReasonText = text
	if err := s.RevokeKey(&ed.priv.PublicKey, ed.priv, ed.config()); err != nil {
		return nil, fmt.Errorf("keyring: making the revocation: %w", err)
	}
	var buf bytes.Buffer
	if err := s.Serialize(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
