package keyring

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/agent"
	"github.com/pgpstream/pgpstream/clock"
	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// CertifyOptions say what a certification says (RFC 9580 section 5.2.1,
// the subpackets of section 5.2.3).
type CertifyOptions struct {
	// Signer is the certifying key's primary secret key, unlocked (or
	// held by gpg-agent, which signs for it).
	Signer *packet.PrivateKey
	// Local makes the certification non-exportable (gpg's lsign): it
	// counts in this ring only and is never exported.
	Local bool
	// Level is how carefully the key was checked: 0 generic (0x10, gpg's
	// default), 1 persona, 2 casual, 3 positive.
	Level int
	// Expires is when the certification expires; zero: never.
	Expires time.Time
	// TrustDepth above 0 makes a trust signature (gpg's tsign): the key
	// certified may introduce others that far, trusted marginally
	// (TrustAmount 60) or fully (120), within TrustRegexp if given.
	TrustDepth, TrustAmount byte
	TrustRegexp             string
}

// CertifyResult says which user IDs a certification covered.
type CertifyResult struct {
	Signed  []string // certified now
	Already []string // already certified by the signer, left as they were
}

// ErrNothingToSign says that every user ID asked for was certified by the
// signer already.
var ErrNothingToSign = errors.New("nothing to sign")

// CertifyTargets are the user IDs of k a certification is asked for by
// names, as gpg's --quick-sign-key matches them: "=UID" exactly, else a
// case-insensitive substring that must name one user ID. No names: every
// user ID that is neither revoked nor expired.
func (k *Key) CertifyTargets(names []string) ([]string, error) {
	if len(names) == 0 {
		return k.liveUserIDs(), nil
	}
	var out []string
	for _, n := range names {
		var found []string
		for _, u := range k.liveUserIDs() {
			if exact, ok := strings.CutPrefix(n, "="); ok {
				if u == exact {
					found = append(found, u)
				}
			} else if strings.Contains(strings.ToLower(u), strings.ToLower(strings.TrimPrefix(n, "*"))) {
				found = append(found, u)
			}
		}
		switch {
		case len(found) == 0:
			return nil, fmt.Errorf("keyring: invalid user ID %q: no such user ID on key %s", n, k.Fingerprint())
		case len(found) > 1 && !strings.HasPrefix(n, "="):
			return nil, fmt.Errorf("keyring: invalid user ID %q: ambiguous on key %s", n, k.Fingerprint())
		}
		out = append(out, found...)
	}
	return out, nil
}

// liveUserIDs are the user IDs k signed that are neither revoked nor
// expired, in ring order.
func (k *Key) liveUserIDs() []string {
	now := clock.Now()
	var out []string
	for _, u := range k.uids {
		sig, err := k.ent.Identities[u].LatestValidSelfCertification(time.Time{}, config)
		if err != nil {
			continue
		}
		if sig.SigLifetimeSecs != nil && *sig.SigLifetimeSecs != 0 && !sig.CreationTime.Add(time.Duration(*sig.SigLifetimeSecs)*time.Second).After(now) {
			continue
		}
		out = append(out, u)
	}
	return out
}

// CertifiedBy reports whether the signer's primary key already certified
// the user ID uid of k with a certification that still counts: the
// newest it made is not a revocation and has not expired. gpg refuses to
// sign such a user ID again ("already signed").
func (k *Key) CertifiedBy(uid string, signer *packet.PublicKey) bool {
	now := clock.Now()
	for _, u := range k.pub.uids {
		if u.pkt.tag != tagUserID || string(u.pkt.body) != uid {
			continue
		}
		var newest *pgppacket.Signature
		for _, p := range u.sigs {
			s, err := pgppacket.ParseSignature(p.body, -1)
			if err != nil || !isCertification(s.SigType) || !(primaryID{signer.Fingerprint, signer.KeyId}).issued(s) {
				continue
			}
			if newest != nil && s.Created.Before(newest.Created) {
				continue
			}
			if sig, _, err := readSignature(p); err != nil || signer.VerifyUserIdSignature(uid, k.ent.PrimaryKey, sig) != nil {
				continue
			}
			newest = s
		}
		if newest != nil && newest.SigType != sigCertRevocation &&
			(newest.Lifetime == 0 || newest.Created.Add(time.Duration(newest.Lifetime)*time.Second).After(now)) {
			return true
		}
	}
	return false
}

// Certify certifies the user IDs uids (as CertifyTargets names them) of
// the key with full fingerprint fpr with opt.Signer, under the home's
// lock: gpg's --quick-sign-key. A user ID the signer already certified is
// left alone and reported; when that is every one, the error is
// ErrNothingToSign. A key read from gpg's rings is written to pgpstream's
// own ring with the new certifications, as any changed key is.
func (r *Ring) Certify(fpr string, uids []string, opt CertifyOptions) (CertifyResult, error) {
	var res CertifyResult
	err := r.update(secretFirst, func() (bool, error) {
		res = CertifyResult{}
		k, err := r.fingerprintKey(fpr)
		if err != nil {
			return false, err
		}
		nk, rs, err := r.certified(k, uids, opt)
		if err != nil {
			return false, err
		}
		res = rs
		if len(rs.Signed) == 0 {
			return false, nil
		}
		*k = *nk
		return true, nil
	})
	if err == nil && len(res.Signed) == 0 {
		err = ErrNothingToSign
	}
	return res, err
}

// fingerprintKey resolves fpr, which must be a full primary-key
// fingerprint, to its key.
func (r *Ring) fingerprintKey(fpr string) (*Key, error) {
	b, bang, ok := parseHexID(strings.TrimSpace(fpr))
	if !ok || bang || (len(b) != 20 && len(b) != 32) {
		return nil, fmt.Errorf("keyring: %q is not a fingerprint: name the key by its full fingerprint", fpr)
	}
	k := r.byFingerprint(fmt.Sprintf("%X", b))
	if k == nil {
		return nil, noKey(fpr, false)
	}
	return k, nil
}

// certified is k with new certifications of uids by opt.Signer, as a new
// key value (k is left as it was).
func (r *Ring) certified(k *Key, uids []string, opt CertifyOptions) (*Key, CertifyResult, error) {
	var res CertifyResult
	if opt.Signer == nil {
		return nil, res, fmt.Errorf("keyring: no certifying key")
	}
	if st := k.primaryState(clock.Now()); st.revoked {
		return nil, res, fmt.Errorf("keyring: key %s is revoked: unable to sign", k.Fingerprint())
	}
	now := clock.Now().Truncate(time.Second)
	add := &block{primary: component{pkt: k.pub.primary.pkt}}
	for _, uid := range uids {
		if k.CertifiedBy(uid, &opt.Signer.PublicKey) {
			res.Already = append(res.Already, uid)
			continue
		}
		p, err := certification(opt, k.ent.PrimaryKey, uid, now)
		if err != nil {
			return nil, res, err
		}
		add.uids = append(add.uids, component{pkt: rawPacket{tag: tagUserID, body: []byte(uid)}, sigs: []rawPacket{p}})
		res.Signed = append(res.Signed, uid)
	}
	if len(res.Signed) == 0 {
		return k, res, nil
	}
	np := k.pub.clone()
	if _, err := merge(np, add); err != nil {
		return nil, res, err
	}
	if err := checkBounds(np); err != nil {
		return nil, res, fmt.Errorf("keyring: key %s: %w", k.Fingerprint(), err)
	}
	nk, err := r.newKey(np, k.sec)
	if err != nil {
		return nil, res, fmt.Errorf("keyring: key %s after certifying it: %w", k.Fingerprint(), err)
	}
	return nk, res, nil
}

// certification makes one certification of uid on the key target.
func certification(opt CertifyOptions, target *packet.PublicKey, uid string, now time.Time) (rawPacket, error) {
	signer := opt.Signer
	pk := &signer.PublicKey
	if opt.Level < 0 || opt.Level > 3 {
		return rawPacket{}, fmt.Errorf("keyring: certification level %d: expected 0 to 3", opt.Level)
	}
	id := pk.KeyId
	s := &packet.Signature{
		Version:           pk.Version,
		SigType:           packet.SignatureType(0x10 + opt.Level),
		PubKeyAlgo:        pk.PubKeyAlgo,
		Hash:              hashFor(pk),
		CreationTime:      now,
		IssuerKeyId:       &id,
		IssuerKeyVersion:  uint8(pk.Version),
		IssuerFingerprint: pk.Fingerprint,
	}
	if !opt.Expires.IsZero() {
		d := opt.Expires.Unix() - now.Unix()
		if d <= 0 || d > 0xffffffff {
			return rawPacket{}, fmt.Errorf("keyring: the certification's expiry %s is not in the next 136 years", day(opt.Expires))
		}
		life := uint32(d)
		s.SigLifetimeSecs = &life
	}
	if opt.TrustDepth > 0 {
		s.TrustLevel, s.TrustAmount = packet.TrustLevel(opt.TrustDepth), packet.TrustAmount(opt.TrustAmount)
		if opt.TrustRegexp != "" {
			re := opt.TrustRegexp
			s.TrustRegularExpression = &re
		}
	}
	// No salt notation: gpg writes none on a certification, and a
	// listing would show it (the N flag).
	noSalt := false
	cfg := &packet.Config{DefaultHash: s.Hash, Time: func() time.Time { return now }, NonDeterministicSignaturesViaNotation: &noSalt}
	h, err := s.PrepareSign(cfg)
	if err != nil {
		return rawPacket{}, err
	}
	if err := target.SerializeForHash(h); err != nil {
		return rawPacket{}, err
	}
	// RFC 9580 section 5.2.4: a user ID is hashed as 0xb4, its length in
	// four octets, and its bytes.
	var hdr [5]byte
	hdr[0] = 0xb4
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(uid)))
	h.Write(hdr[:])
	h.Write([]byte(uid))
	var local *localHash
	signH := h
	if opt.Local {
		local = &localHash{Hash: h}
		signH = local
	}
	if ak := agent.AgentKey(signer); ak != nil && pk.PubKeyAlgo == packet.PubKeyAlgoDSA {
		return rawPacket{}, fmt.Errorf("keyring: certifying with the DSA key %X that gpg-agent holds is not supported; use gpg", pk.Fingerprint)
	}
	if err := s.Sign(signH, signer, cfg); err != nil {
		return rawPacket{}, fmt.Errorf("keyring: certifying %q: %w", uid, err)
	}
	if err := signError(signer); err != nil {
		return rawPacket{}, fmt.Errorf("keyring: certifying %q: %w", uid, err)
	}
	p, err := sigPacket(s)
	if err != nil {
		return rawPacket{}, err
	}
	if local != nil {
		p.hdr = nil // the body changes length: a header of its own
		if p.body, err = local.splice(p.body); err != nil {
			return rawPacket{}, err
		}
	}
	return p, nil
}

// signError is what a key held by gpg-agent says went wrong with its
// last signature (go-crypto drops a signer's error for RSA and EdDSA).
func signError(priv *packet.PrivateKey) error {
	if ak := agent.AgentKey(priv); ak != nil {
		return ak.SignError()
	}
	return nil
}

// localHash marks a certification non-exportable, which go-crypto cannot
// (it neither writes the exportable certification subpacket nor reads a
// signature with it): go-crypto builds and signs the signature, and the
// signature's trailer (RFC 9580 section 5.2.4), which go-crypto hashes
// last in one Write before it takes the digest, is replaced on its way
// into the hash by one whose hashed subpackets end with the subpacket
// "exportable: no" (section 5.2.3.19). The same hashed area then replaces
// go-crypto's in the packet (splice), so what is signed is what is
// written.
type localHash struct {
	hash.Hash
	pending []byte // the last write, not yet hashed: the trailer, if Sum follows
	hashed  []byte // the hashed subpacket area as signed
	err     error
}

func (l *localHash) Write(p []byte) (int, error) {
	if l.pending != nil {
		l.Hash.Write(l.pending)
	}
	l.pending = append([]byte(nil), p...)
	return len(p), nil
}

func (l *localHash) Sum(b []byte) []byte {
	t := l.pending
	l.pending = nil
	hashed, suffix, err := withLocalFlag(t)
	if err != nil {
		l.err = err
		l.Hash.Write(t)
	} else {
		l.hashed = hashed
		l.Hash.Write(suffix)
	}
	return l.Hash.Sum(b)
}

// withLocalFlag reads a v4 or v6 signature trailer (version, type,
// algorithms, hashed subpackets, then version, 0xff and a length) and
// returns its hashed area with the exportable subpacket appended, and the
// trailer over that area.
func withLocalFlag(t []byte) (hashed, suffix []byte, err error) {
	bad := errors.New("keyring: making a local certification: unexpected signature trailer")
	if len(t) < 6 || (t[0] != 4 && t[0] != 6) {
		return nil, nil, bad
	}
	lenSize := 2
	if t[0] == 6 {
		lenSize = 4
	}
	if len(t) < 4+lenSize+6 {
		return nil, nil, bad
	}
	var n int
	if lenSize == 4 {
		n = int(binary.BigEndian.Uint32(t[4:]))
	} else {
		n = int(binary.BigEndian.Uint16(t[4:]))
	}
	if 4+lenSize+n+6 != len(t) || t[len(t)-6] != t[0] || t[len(t)-5] != 0xff {
		return nil, nil, bad
	}
	hashed = pgppacket.AppendSubpacket(append([]byte(nil), t[4+lenSize:4+lenSize+n]...), 4, false, []byte{0})
	suffix = append([]byte(nil), t[:4]...)
	if lenSize == 4 {
		suffix = binary.BigEndian.AppendUint32(suffix, uint32(len(hashed)))
	} else {
		if len(hashed) > 0xffff {
			return nil, nil, bad
		}
		suffix = binary.BigEndian.AppendUint16(suffix, uint16(len(hashed)))
	}
	suffix = append(suffix, hashed...)
	suffix = append(suffix, t[0], 0xff)
	suffix = binary.BigEndian.AppendUint32(suffix, uint32(4+lenSize+len(hashed)))
	return hashed, suffix, nil
}

// splice puts the hashed area that was signed into the packet body
// go-crypto serialized.
func (l *localHash) splice(body []byte) ([]byte, error) {
	if l.err != nil {
		return nil, l.err
	}
	if l.hashed == nil {
		return nil, errors.New("keyring: making a local certification: the signature was not hashed as expected")
	}
	s, err := pgppacket.ParseSignature(body, -1)
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), body[:4]...)
	if s.Version == 6 {
		out = binary.BigEndian.AppendUint32(out, uint32(len(l.hashed)))
	} else {
		out = binary.BigEndian.AppendUint16(out, uint16(len(l.hashed)))
	}
	out = append(out, l.hashed...)
	out = append(out, body[s.HashedEnd:]...)
	if check, err := pgppacket.ParseSignature(out, -1); err != nil || !check.Local {
		return nil, errors.New("keyring: making a local certification: the flag did not take")
	}
	return out, nil
}
