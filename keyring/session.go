package keyring

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"

	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// Session is one --edit-key: changes to one key made in memory, on a
// copy, and written by Save, as gpg's key edit menu writes them only on
// "save". Its changes are made as the one-shot commands make them (they
// add signed packets), except that deleting a user ID removes it.
type Session struct {
	r                *Ring
	k                *Key   // the working copy
	origPub, origSec []byte // the key as it was when the session began
	pass             PassphraseFunc
	priv             *packet.PrivateKey // the primary secret key, once unlocked
	pw               []byte
	changed          bool
}

// Edit begins a session on the one key spec names (ErrAmbiguous if it
// names several). pass is asked for the passphrase of its primary secret
// key when a change needs it.
func (r *Ring) Edit(spec string, pass PassphraseFunc) (*Session, error) {
	k, err := r.Lookup(spec, false)
	if err != nil {
		return nil, err
	}
	c := &Key{pub: k.pub.clone(), allowWeak: k.allowWeak, allowUnsigned: k.allowUnsigned, agent: k.agent, from: k.from}
	if k.sec != nil {
		c.sec = k.sec.clone()
	}
	if err := c.refresh(); err != nil {
		return nil, err
	}
	s := &Session{r: r, k: c, origPub: k.pub.bytes(), pass: pass}
	if k.sec != nil {
		s.origSec = k.sec.bytes()
	}
	return s, nil
}

// Key is the key as the session has changed it so far.
func (s *Session) Key() *Key { return s.k }

// Changed reports whether there is anything to save.
func (s *Session) Changed() bool { return s.changed }

// HasSecret reports whether the ring holds the key's primary secret key,
// which every change to the key itself needs (certifying it does not).
func (s *Session) HasSecret() bool {
	if s.k.sec == nil {
		return false
	}
	_, priv, err := parseKey(s.k.sec.primary.pkt)
	return err == nil && priv != nil && !priv.Dummy()
}

// Editable says why the key itself cannot be changed here, or nil.
func (s *Session) Editable() error {
	if s.HasSecret() {
		return nil
	}
	if s.k.sec == nil && s.k.inAgent(true) {
		return fmt.Errorf("%w: %w", s.k.inAgentError("use gpg for this change"), ErrNoSecretKey)
	}
	return fmt.Errorf("keyring: key %s: %w", s.k.Fingerprint(), ErrNoSecretKey)
}

// apply runs fn with an editor on the working copy, the primary secret
// key unlocked (asked once per session).
func (s *Session) apply(fn func(ed *editor) error) error {
	if err := s.Editable(); err != nil {
		return err
	}
	if s.priv == nil {
		ed, err := newEditor(s.k, s.pass)
		if err != nil {
			return err
		}
		s.priv, s.pw = ed.priv, ed.pass
	}
	ed := editorWith(s.k, s.priv, s.pw)
	if err := fn(ed); err != nil {
		return err
	}
	changed, err := ed.commit(s.r)
	if err != nil || !changed {
		return err
	}
	s.changed = true
	return s.dropRenewed(ed)
}

// dropRenewed removes the self-signatures that the editor's new ones
// renew, as gpg's edit menu replaces a self-signature it renews: on each
// component that got a new self-signature (not a revocation), the key's
// older ones go. (The one-shot commands keep them: they only add.)
func (s *Session) dropRenewed(ed *editor) error {
	id := primaryID{s.k.ent.PrimaryKey.Fingerprint, s.k.KeyID()}
	renewed := func(c component) map[string]bool {
		fresh := map[string]bool{}
		for _, p := range c.sigs {
			if sig, err := pgppacket.ParseSignature(p.body, -1); err == nil && !isRevocation(sig.SigType) {
				fresh[string(p.body)] = true
			}
		}
		return fresh
	}
	prune := func(b *block, add *block) {
		if b == nil {
			return
		}
		for i, c := range add.components() {
			fresh := renewed(*c)
			if len(fresh) == 0 {
				continue
			}
			for _, d := range b.components() {
				if !sameComponent(d, c, i == 0) {
					continue
				}
				d.sigs = filterSigs(d.sigs, func(p rawPacket) bool {
					sig, err := pgppacket.ParseSignature(p.body, -1)
					return err != nil || fresh[string(p.body)] || isRevocation(sig.SigType) || !id.issued(sig)
				})
			}
		}
	}
	np, ns := s.k.pub.clone(), s.k.sec.clone()
	prune(np, ed.pub)
	prune(ns, ed.sec)
	nk, err := s.r.newKey(np, ns)
	if err != nil {
		return err
	}
	nk.from = s.k.from
	*s.k = *nk
	return nil
}

// sameComponent reports whether d and c are the same user ID, subkey or
// (primary) the primary key.
func sameComponent(d, c *component, primary bool) bool {
	if primary {
		return d.pkt.tag == tagPublicKey || d.pkt.tag == tagSecretKey
	}
	if d.pkt.tag == tagUserID || c.pkt.tag == tagUserID {
		return d.pkt.tag == c.pkt.tag && bytes.Equal(d.pkt.body, c.pkt.body)
	}
	if (d.pkt.tag != tagPublicSubkey && d.pkt.tag != tagSecretSubkey) || (c.pkt.tag != tagPublicSubkey && c.pkt.tag != tagSecretSubkey) {
		return false
	}
	a, err1 := fingerprintOf(d.pkt)
	b, err2 := fingerprintOf(c.pkt)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// SetExpire sets when the primary key (no subkeys named) or the named
// subkeys expire; zero: never.
func (s *Session) SetExpire(expires time.Time, subkeys []string) error {
	return s.apply(func(ed *editor) error {
		if len(subkeys) == 0 {
			return ed.expirePrimary(expires)
		}
		return ed.expireSubkeys(expires, subkeys, false)
	})
}

// AddUserID adds a self-signed user ID.
func (s *Session) AddUserID(uid string) error {
	if _, _, _, err := splitUserID(uid); err != nil {
		return err
	}
	return s.apply(func(ed *editor) error { return ed.addUserID(uid) })
}

// RevokeUserID revokes the user ID uid for reason (gpg's menu: 0 no
// reason, 4 no longer valid), with text.
func (s *Session) RevokeUserID(uid string, reason int, text string) error {
	r := packet.NoReason
	if reason == 4 {
		r = packet.UserIDNotValid
	}
	return s.apply(func(ed *editor) error { return ed.revokeUserID(uid, r, text) })
}

// RevokeSubkey revokes the subkey with fingerprint fpr for reason (gpg's
// numbers: 0 no reason, 1 compromised, 2 superseded, 3 no longer used).
func (s *Session) RevokeSubkey(fpr []byte, reason int, text string) error {
	if reason < 0 || reason >= len(revocationReasons) {
		return fmt.Errorf("keyring: revocation reason %d: expected 0 to 3", reason)
	}
	return s.apply(func(ed *editor) error { return ed.revokeSubkey(fpr, revocationReasons[reason], text) })
}

// AddSubkey adds a subkey as opt says and returns its fingerprint.
func (s *Session) AddSubkey(opt AddKeyOptions) (fpr string, err error) {
	err = s.apply(func(ed *editor) (err error) {
		fpr, err = ed.addSubkey(opt)
		return err
	})
	return fpr, err
}

// SetPrimaryUserID makes uid the primary user ID: it gets a new
// self-signature that says so, and every other user ID that claimed to be
// primary one that no longer does, as gpg's "primary" does.
func (s *Session) SetPrimaryUserID(uid string) error {
	return s.apply(func(ed *editor) error { return ed.setPrimary(uid) })
}

// DeleteUserIDs removes the user IDs (exactly as stored) and their
// signatures from the key. The last user ID cannot be removed.
func (s *Session) DeleteUserIDs(uids []string) error {
	drop := map[string]bool{}
	for _, u := range uids {
		drop[u] = true
	}
	left := 0
	for _, u := range s.k.uids {
		if !drop[u] {
			left++
		}
	}
	if left == 0 {
		return errors.New("keyring: you can't delete the last user ID")
	}
	keep := func(cs []component) []component {
		out := cs[:0:0]
		for _, c := range cs {
			if c.pkt.tag == tagUserID && drop[string(c.pkt.body)] {
				continue
			}
			out = append(out, c)
		}
		return out
	}
	np, ns := s.k.pub.clone(), (*block)(nil)
	np.uids = keep(np.uids)
	if s.k.sec != nil {
		ns = s.k.sec.clone()
		ns.uids = keep(ns.uids)
	}
	nk, err := s.r.newKey(np, ns)
	if err != nil {
		return err
	}
	nk.from = s.k.from
	*s.k = *nk
	s.changed = true
	return nil
}

// ChangePassphrase re-protects the key's secret (sub)keys with newPass
// (empty: none), opening them with the passphrase that unlocks the
// primary key (asked as for any change); written by Save.
func (s *Session) ChangePassphrase(newPass []byte) error {
	if err := s.apply(func(*editor) error { return nil }); err != nil {
		return err
	}
	pw := s.pw
	ns, err := reprotect(s.k.sec, func(priv *packet.PrivateKey) error { return Unlock(priv, pw) }, newPass)
	if err != nil {
		return err
	}
	nk, err := s.r.newKey(s.k.pub, ns)
	if err != nil {
		return err
	}
	nk.from = s.k.from
	*s.k = *nk
	s.priv, s.pw = nil, nil
	s.changed = true
	return nil
}

// Certify certifies the user IDs uids of the key with opt.Signer.
func (s *Session) Certify(uids []string, opt CertifyOptions) (CertifyResult, error) {
	nk, res, err := s.r.certified(s.k, uids, opt)
	if err != nil || len(res.Signed) == 0 {
		return res, err
	}
	nk.from = s.k.from
	*s.k = *nk
	s.changed = true
	return res, nil
}

// Save writes the session's key under the home's lock. If the key
// changed in the ring since the session began (another process), what
// that change added is merged into the session's key first.
func (s *Session) Save() error {
	if !s.changed {
		return nil
	}
	return s.r.update(secretFirst, func() (bool, error) {
		k := s.r.byFingerprint(s.k.Fingerprint())
		np, ns := s.k.pub.clone(), s.k.sec
		if ns != nil {
			ns = ns.clone()
		}
		if k != nil && !bytes.Equal(k.pub.bytes(), s.origPub) {
			if _, err := merge(np, k.pub); err != nil {
				return false, err
			}
		}
		if k != nil && k.sec != nil && ns != nil && !bytes.Equal(k.sec.bytes(), s.origSec) {
			if _, err := merge(ns, k.sec); err != nil {
				return false, err
			}
		}
		nk, err := s.r.newKey(np, ns)
		if err != nil {
			return false, err
		}
		if k == nil {
			s.r.keys = append(s.r.keys, nk)
		} else {
			*k = *nk
		}
		return true, nil
	})
}

// revokeSubkey revokes the subkey with fingerprint fpr.
func (ed *editor) revokeSubkey(fpr []byte, reason packet.ReasonForRevocation, text string) error {
	for i := range ed.k.ent.Subkeys {
		sk := &ed.k.ent.Subkeys[i]
		if !bytes.Equal(sk.PublicKey.Fingerprint, fpr) {
			continue
		}
		s := ed.newSig(packet.SigTypeSubkeyRevocation)
		s.RevocationReason = &reason
		s.RevocationReasonText = text
		if err := s.RevokeSubkey(sk.PublicKey, ed.priv, ed.config()); err != nil {
			return fmt.Errorf("keyring: revoking subkey %X: %w", fpr, err)
		}
		p, err := sigPacket(s)
		if err != nil {
			return err
		}
		pp, _ := ed.k.publicSubPacket(fpr)
		ed.addSubSig(pp, ed.k.secretPacketFor(fpr), p)
		return nil
	}
	return fmt.Errorf("keyring: key %s has no subkey %X", ed.k.Fingerprint(), fpr)
}

// setPrimary re-signs uid as the primary user ID and the others that
// claimed it as not.
func (ed *editor) setPrimary(uid string) error {
	k := ed.k
	found := false
	for _, u := range k.uids {
		id := k.ent.Identities[u]
		old, err := id.LatestValidSelfCertification(time.Time{}, config)
		if err != nil || uidRevoked(id, old, ed.now) {
			continue
		}
		claims := old.IsPrimaryId != nil && *old.IsPrimaryId
		if u != uid && !claims {
			continue
		}
		found = found || u == uid
		s := ed.renewSig(old)
		if u == uid {
			t := true
			s.IsPrimaryId = &t
		} else {
			s.IsPrimaryId = nil
		}
		if err := s.SignUserId(u, &ed.priv.PublicKey, ed.priv, ed.config()); err != nil {
			return fmt.Errorf("keyring: signing user ID %q: %w", u, err)
		}
		p, err := sigPacket(s)
		if err != nil {
			return err
		}
		ed.addUIDSig(u, p)
	}
	if !found {
		return fmt.Errorf("keyring: key %s has no valid user ID %q", k.Fingerprint(), uid)
	}
	return nil
}
