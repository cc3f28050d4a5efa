package keyring

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/internal/mailbox"
	pgppacket "github.com/pgpstream/pgpstream/packet"
	"github.com/pgpstream/pgpstream/tofu"
)

// The TOFU trust models (gpg's --trust-model tofu and tofu+pgp): a key's
// validity is what its history of use says (package tofu), or under
// tofu+pgp the better of that and the web of trust's, a key marked bad
// in either being never valid.
const (
	ModelTOFU    = "tofu"
	ModelTOFUPGP = "tofu+pgp"
)

// isTOFU says whether model keeps a TOFU history.
func isTOFU(model string) bool { return model == ModelTOFU || model == ModelTOFUPGP }

// tofuState is the ring's open history, opened on first use.
type tofuState struct {
	db  *tofu.DB
	err error // why it could not be opened; said once, then no TOFU validity
	def tofu.Policy
	// told keeps a failure from being reported on every key.
	told bool
}

// SetTOFUDefault sets the policy a binding whose policy is auto takes
// (--tofu-default-policy); auto, the default, makes it marginal.
func (r *Ring) SetTOFUDefault(p tofu.Policy) {
	r.tofu.def = p
	if r.tofu.db != nil {
		r.tofu.db.Default = p
	}
}

// tofuPath is the history's file: in the GnuPG home when the ring reads
// one, so that gpg and pgpstream keep one history; else in the ring's own
// home.
func (r *Ring) tofuPath() string {
	dir := r.home
	if r.gnupg != "" {
		dir = r.gnupg
	}
	return filepath.Join(dir, tofu.FileName)
}

// TOFU is the ring's history, opened (and created) on first use.
func (r *Ring) TOFU() (*tofu.DB, error) {
	if r.tofu.db != nil || r.tofu.err != nil {
		return r.tofu.db, r.tofu.err
	}
	db, err := tofu.Open(r.tofuPath(), tofuKeys{r}, r.ultimateKeyIDs())
	if err != nil {
		r.tofu.err = err
		return nil, err
	}
	if r.tofu.def == tofu.None {
		r.tofu.def = tofu.Auto
	}
	db.Default = r.tofu.def
	r.tofu.db = db
	return db, nil
}

// CloseTOFU closes the history, if it was opened.
func (r *Ring) CloseTOFU() error {
	if r.tofu.db == nil {
		return nil
	}
	err := r.tofu.db.Close()
	r.tofu.db = nil
	return err
}

// tofuFailed reports a history that cannot be used, once.
func (r *Ring) tofuFailed(err error) {
	if r.tofu.told {
		return
	}
	r.tofu.told = true
	r.notify(Notice{Kind: NoticeTOFUUnusable, File: r.tofuPath(), Err: err})
}

// ultimateKeyIDs are the key IDs of the keys trusted ultimately.
func (r *Ring) ultimateKeyIDs() []string {
	r.OwnerTrust("") // fills r.trust
	var ids []string
	for fpr, t := range r.trust {
		if t == TrustUltimate {
			ids = append(ids, tofu.KeyID(fpr))
		}
	}
	slices.Sort(ids)
	return ids
}

// tofuUserIDs are k's user IDs a TOFU validity is computed from: those
// not revoked, in ring order, an expired one marked so. With only, just
// the user ID of that name; with signer, those whose address it is (a
// signature's signer's user ID subpacket).
func (k *Key) tofuUserIDs(only, signer string, now time.Time) []tofu.UserID {
	var out []tofu.UserID
	for _, u := range k.ringUIDStates(k.primaryState(now), now) {
		if u.colon == "r" || only != "" && u.name != only {
			continue
		}
		if signer != "" {
			if m, ok := mailbox.FromUserID(u.name); !ok || m != signer {
				continue
			}
		}
		out = append(out, tofu.UserID{Name: u.name, Expired: u.colon == "e"})
	}
	return out
}

// TOFUValidity is k's validity under the TOFU model (or tofu+pgp) from
// the bindings of its user IDs, or of uid alone when given, and what the
// history says of each binding, as gpg reports it for a recipient. A
// history that cannot be used is told once (NoticeTOFUUnusable) and
// gives undefined validity.
func (r *Ring) TOFUValidity(k *Key, uid, model string) (OwnerTrust, []tofu.Binding) {
	db, err := r.TOFU()
	if err != nil {
		r.tofuFailed(err)
		return TrustUndefined, nil
	}
	now := clock.Now()
	t, bindings, err := db.Validity(k.Fingerprint(), k.tofuUserIDs(uid, "", now), now)
	if err != nil {
		r.tofuFailed(err)
		return TrustUndefined, nil
	}
	return r.withPGP(k, uid, model, t), bindings
}

// withPGP is the TOFU validity t of k (of its user ID uid, when given)
// under model: t itself under tofu, combined with the web of trust's
// under tofu+pgp.
func (r *Ring) withPGP(k *Key, uid, model string, t tofu.Trust) OwnerTrust {
	if model != ModelTOFUPGP {
		return OwnerTrust(t)
	}
	pgp := r.Validity(k.Fingerprint(), ModelPGP)
	if uid != "" {
		pgp = r.UserIDValidity(k.Fingerprint(), uid, ModelPGP)
	}
	return OwnerTrust(tofu.CombinePGP(t, tofu.Trust(pgp)))
}

// tofuModelValidity is Validity (with uid, UserIDValidity) under the
// TOFU models.
func (r *Ring) tofuModelValidity(fpr, uid, model string) OwnerTrust {
	k := r.byFingerprint(strings.ToUpper(fpr))
	if k == nil {
		return TrustUnknown
	}
	v, _ := r.TOFUValidity(k, uid, model)
	return v
}

// TOFUPolicy is the effective TOFU policy of k's user ID uid and its
// history (gpg's tfs record).
func (r *Ring) TOFUPolicy(k *Key, uid string) (tofu.Policy, tofu.Stats, error) {
	db, err := r.TOFU()
	if err != nil {
		return tofu.None, tofu.Stats{}, err
	}
	p, err := db.Policy(k.Fingerprint(), uid, clock.Now())
	if err != nil {
		return tofu.None, tofu.Stats{}, err
	}
	s, err := db.Stats(k.Fingerprint(), tofu.Email(uid))
	return p, s, err
}

// RegisterSignature records a good signature by k in the history with
// the user IDs it may be from (those of the address in signerUID, when
// the signature names one: gpg's tofu_register_signature), and returns
// k's validity under model from them (tofu_get_validity) and what the
// history says of each. digest is the signature's hash value. A history
// that cannot be used is told once (NoticeTOFUUnusable), as TOFUValidity
// tells it, and counts as undefined.
func (r *Ring) RegisterSignature(k *Key, signerUID string, digest []byte, created time.Time, model string) (OwnerTrust, []tofu.Binding, error) {
	db, err := r.TOFU()
	if err != nil {
		r.tofuFailed(err)
		return r.withPGP(k, "", model, tofu.TrustUndefined), nil, nil
	}
	now := clock.Now()
	fpr := k.Fingerprint()
	if m, ok := mailbox.FromUserID(signerUID); ok {
		signerUID = m
	}
	uids := k.tofuUserIDs("", signerUID, now)
	if err := db.RegisterSignature(fpr, uids, digest, created, "", now); err != nil {
		return TrustUndefined, nil, err
	}
	t, bindings, err := db.Validity(fpr, uids, now)
	if err != nil {
		return TrustUndefined, nil, err
	}
	return r.withPGP(k, "", model, t), bindings, nil
}

// RegisterEncryption records a message encrypted to k (its user IDs not
// revoked), as gpg does under the TOFU models; a history that cannot be
// used is told once (NoticeTOFUUnusable).
func (r *Ring) RegisterEncryption(k *Key) error {
	db, err := r.TOFU()
	if err != nil {
		r.tofuFailed(err)
		return nil
	}
	return db.RegisterEncryption(k.Fingerprint(), k.tofuUserIDs("", "", clock.Now()), clock.Now())
}

// SetTOFUPolicy sets the TOFU policy of k's user IDs that are not
// revoked (gpg's --tofu-policy), and returns them with the policies they
// had (tofu.None: no binding yet).
func (r *Ring) SetTOFUPolicy(k *Key, p tofu.Policy) ([]string, []tofu.Policy, error) {
	db, err := r.TOFU()
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, u := range k.tofuUserIDs("", "", clock.Now()) {
		names = append(names, u.Name)
	}
	old, err := db.SetPolicy(k.Fingerprint(), names, p, clock.Now())
	return names, old, err
}

// tofuKeyChanged tells an existing history that keys changed (an import
// merged new user IDs or certifications into them), so their policies
// are computed again. No history is created for it: a home that has none
// has nothing cached.
func (r *Ring) tofuKeyChanged(fprs []string) {
	if len(fprs) == 0 {
		return
	}
	if r.tofu.db == nil {
		if _, err := os.Stat(r.tofuPath()); errors.Is(err, os.ErrNotExist) {
			return
		}
	}
	db, err := r.TOFU()
	if err != nil {
		r.tofuFailed(err)
		return
	}
	for _, f := range fprs {
		if err := db.KeyChanged(f); err != nil {
			r.tofuFailed(err)
			return
		}
	}
}

// tofuKeys answers package tofu's questions from the ring.
type tofuKeys struct{ r *Ring }

func (t tofuKeys) Ultimate(fpr string) bool { return t.r.OwnerTrust(fpr) == TrustUltimate }

func (t tofuKeys) SignedByUltimate(fpr, email string) bool {
	k := t.r.byFingerprint(fpr)
	if k == nil {
		return false
	}
	ultimate := map[string]bool{}
	for _, id := range t.r.ultimateKeyIDs() {
		ultimate[id] = true
	}
	return k.certifiedOn(email, func(id uint64) bool { return ultimate[fmt.Sprintf("%016X", id)] })
}

func (t tofuKeys) CrossSigned(a, b, email string) bool {
	ka, kb := t.r.byFingerprint(a), t.r.byFingerprint(b)
	if ka == nil || kb == nil {
		return false
	}
	is := func(k *Key) func(uint64) bool { return func(id uint64) bool { return id == k.KeyID() } }
	return kb.certifiedOn(email, is(ka)) && ka.certifiedOn(email, is(kb))
}

// certifiedOn says whether k's first user ID with the address email
// carries a user-ID certification (types 0x10 to 0x13) whose issuer
// key ID by says yes to. As in gpg, the certification's issuer is taken
// as it names itself; it is not verified. Unlike gpg 2.2, only that user
// ID's certifications are looked at: gpg's cross-signature check counts
// any key as cross-signed whose matching user ID is followed by another,
// which would hide a conflict.
func (k *Key) certifiedOn(email string, by func(uint64) bool) bool {
	for _, u := range k.pub.uids {
		if u.pkt.tag != tagUserID || tofu.Email(string(u.pkt.body)) != email {
			continue
		}
		for _, p := range u.sigs {
			s, err := pgppacket.ParseSignature(p.body, -1)
			if err != nil || s.SigType < 0x10 || s.SigType > 0x13 {
				continue
			}
			id := s.IssuerKeyID
			if id == 0 && len(s.IssuerFingerprint) >= 20 {
				id = keyIDOfFingerprint(s.IssuerFingerprint)
			}
			if id != 0 && by(id) {
				return true
			}
		}
		return false
	}
	return false
}

// keyIDOfFingerprint is the key ID a v4 (last 8 octets) or v6 (first 8)
// fingerprint names.
func keyIDOfFingerprint(f []byte) uint64 {
	b := f[len(f)-8:]
	if len(f) == 32 {
		b = f[:8]
	}
	var id uint64
	for _, c := range b {
		id = id<<8 | uint64(c)
	}
	return id
}

// tfsRecord writes gpg's tfs record for k's user ID uid: version 1, the
// summary, the signature and encryption counts, the effective policy,
// the first and last signature and encryption, the history's validity,
// the days with signatures and with encryptions.
func (lc *listCtx) tfsRecord(w io.Writer, k *Key, uid string) {
	if !lc.opt.TOFUInfo || lc.ring == nil || lc.opt.ShowOnly || !isTOFU(lc.ring.model) || uid == "" {
		return
	}
	p, s, err := lc.ring.TOFUPolicy(k, uid)
	if err != nil {
		lc.ring.tofuFailed(err)
		return
	}
	fmt.Fprintf(w, "tfs:1:%d:%d:%d:%s:%d:%d:%d:%d:%d:%d:%d:\n",
		s.Summary(p), s.Signatures, s.Encryptions, p,
		s.FirstSignature, s.LastSignature, s.FirstEncryption, s.LastEncryption,
		s.Validity(), s.SignatureDays, s.EncryptionDays)
}
