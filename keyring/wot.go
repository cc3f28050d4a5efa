package keyring

import (
	"bytes"
	"regexp"
	"strings"
	"time"

	"github.com/pgpstream/pgpstream/clock"
	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// The web of trust: gpg's pgp trust model (GnuPG's g10/trustdb.c,
// validate_keys), computed from the certifications the ring holds and
// the owner trust set, whenever a validity is first asked for. gpg keeps
// the result in trustdb.gpg and recomputes it when it is stale;
// pgpstream keeps nothing and computes it anew in each process.
//
// The ultimately trusted keys (owner trust ultimate: the keys made here,
// and those given it) are valid, every user ID of theirs ultimately, and
// are the first introducers. At each depth up to MaxDepth, every key not
// yet fully valid, neither revoked nor expired, is looked at: a user ID
// the key itself signed (not revoked, not expired) counts the usable
// certifications of the current introducers, per introducer its newest
// one (a revocation by it, or an expired newest, counts nothing). An
// ultimately trusted introducer counts as Completes at once, one trusted
// fully as one complete, one trusted marginally as one marginal, and
// these counts add up over the depths. Completes complete ones or
// Marginals marginal ones make the user ID fully valid; fewer, marginally
// valid; certifications by introducers of no owner trust, undefined. The
// key is as valid as its most valid user ID, and every key that became
// fully valid at this depth is an introducer at the next, with its own
// owner trust. Trust signatures (tsign) raise the owner trust of the key
// they certify to marginal (amount 60) or full (120) within their depth
// and regular expression, as gpg has it.

// TrustParams are gpg's --marginals-needed, --completes-needed,
// --max-cert-depth and --min-cert-level.
type TrustParams struct {
	Marginals, Completes, MaxDepth, MinCertLevel int
}

// DefaultTrustParams are gpg's defaults.
var DefaultTrustParams = TrustParams{Marginals: 3, Completes: 1, MaxDepth: 5, MinCertLevel: 2}

// TrustDepth is one depth of the computation, as --check-trustdb reports
// it: how many introducers (Valid) with which owner trust, and how many
// keys they certified (Signed).
type TrustDepth struct {
	Depth, Valid, Signed                                int
	Unknown, Undefined, Never, Marginal, Full, Ultimate int
}

// TrustReport is what the computation did.
type TrustReport struct {
	Params TrustParams
	// NoUltimate: no key of the ring is trusted ultimately, so no key
	// is valid through others.
	NoUltimate bool
	Depths     []TrustDepth
	// NextCheck is when a key, user ID or certification that counted
	// expires, after which validities change; zero when none does.
	NextCheck time.Time
	// Unasked are the fingerprints of the introducers (fully valid keys,
	// not ultimately trusted) whose owner trust is unknown: gpg's
	// --update-trustdb asks about them.
	Unasked []string
}

// web is the computed validity of every key the web of trust reaches.
type web struct {
	valid    map[string]keyValidity // by fingerprint
	minTrust map[string]OwnerTrust  // owner trust a trust signature gave, by fingerprint
	report   TrustReport
}

type keyValidity struct {
	best OwnerTrust
	uids map[string]OwnerTrust // by user ID
}

// introducer is a key whose certifications count at a depth (gpg's
// key_item).
type introducer struct {
	k          *Key
	ownerTrust OwnerTrust
	depth      byte // how far its trust signature may still reach
	amount     byte // its trust signature's amount
	regexps    []string
}

// chainState is what a trust signature on a key says (gpg's
// pk->trust_depth, trust_value and trust_regexp).
type chainState struct {
	depth, amount byte
	regexps       []string
}

// SetTrustParams sets the parameters validity is computed with
// (DefaultTrustParams when unset).
func (r *Ring) SetTrustParams(p TrustParams) {
	r.trustParams = p
	r.web = nil
}

// CheckTrust computes the web of trust (as gpg --check-trustdb) and
// reports what it did.
func (r *Ring) CheckTrust() TrustReport { return r.webOfTrust().report }

func (r *Ring) webOfTrust() *web {
	if r.web == nil {
		p := r.trustParams
		if p == (TrustParams{}) {
			p = DefaultTrustParams
		}
		r.web = r.computeWeb(p, clock.Now())
	}
	return r.web
}

// wotRun is one computation.
type wotRun struct {
	r        *Ring
	p        TrustParams
	now      time.Time
	w        *web
	counts   map[*Key]map[string][2]int // accumulated (full, marginal) per user ID
	chains   map[*Key]chainState
	verified map[string]bool // by signature body: the check's result
	next     time.Time
}

func (r *Ring) computeWeb(p TrustParams, now time.Time) *web {
	run := &wotRun{r: r, p: p, now: now, w: &web{valid: map[string]keyValidity{}, minTrust: map[string]OwnerTrust{}, report: TrustReport{Params: p}},
		counts: map[*Key]map[string][2]int{}, chains: map[*Key]chainState{}, verified: map[string]bool{}}
	done := map[*Key]bool{} // gpg's full_trust: not looked at again
	used := map[*Key]bool{}
	var klist []*introducer
	for _, k := range r.keys {
		if r.OwnerTrust(k.Fingerprint()) != TrustUltimate {
			continue
		}
		done[k], used[k] = true, true
		kv := keyValidity{best: TrustUltimate, uids: map[string]OwnerTrust{}}
		for _, u := range k.uids {
			kv.uids[u] = TrustUltimate
		}
		run.w.valid[k.Fingerprint()] = kv
		run.expiring(k.primaryState(now).expires)
		klist = append(klist, &introducer{k: k, ownerTrust: TrustUltimate})
	}
	if len(klist) == 0 {
		run.w.report.NoUltimate = true
		return run.w
	}
	for depth := 0; depth < p.MaxDepth && len(klist) > 0; depth++ {
		d := TrustDepth{Depth: depth, Valid: len(klist)}
		for _, in := range klist {
			if in.ownerTrust == TrustUnknown {
				run.w.report.Unasked = append(run.w.report.Unasked, in.k.Fingerprint())
			}
			if m := minOwnerTrust(in.amount); m > in.ownerTrust {
				in.ownerTrust = m
				run.w.minTrust[in.k.Fingerprint()] = m
			}
			d.count(in.ownerTrust)
		}
		var signed []*Key
		for _, k := range r.keys {
			if done[k] {
				continue
			}
			ps := k.primaryState(now)
			if ps.revoked || ps.expired || ps.invalid {
				done[k] = true
				continue
			}
			flags, any := run.validateKey(k, klist)
			if !any {
				continue
			}
			run.expiring(ps.expires)
			signed = append(signed, k)
			run.store(k, flags)
			if allFull(k, flags) {
				done[k] = true
			}
		}
		d.Signed = len(signed)
		run.w.report.Depths = append(run.w.report.Depths, d)
		klist = nil
		for _, k := range signed {
			kv := run.w.valid[k.Fingerprint()]
			if used[k] || kv.best != TrustFully {
				continue
			}
			used[k] = true
			c := run.chains[k]
			klist = append(klist, &introducer{k: k, ownerTrust: r.OwnerTrust(k.Fingerprint()), depth: c.depth, amount: c.amount, regexps: c.regexps})
		}
	}
	run.w.report.NextCheck = run.next
	return run.w
}

// minOwnerTrust is the owner trust a trust signature's amount gives
// (RFC 4880's 60 partial and 120 complete).
func minOwnerTrust(amount byte) OwnerTrust {
	switch {
	case amount >= 120:
		return TrustFully
	case amount >= 60:
		return TrustMarginal
	}
	return TrustUnknown
}

func (d *TrustDepth) count(t OwnerTrust) {
	switch t {
	case TrustUndefined:
		d.Undefined++
	case TrustNever:
		d.Never++
	case TrustMarginal:
		d.Marginal++
	case TrustFully:
		d.Full++
	case TrustUltimate:
		d.Ultimate++
	default:
		d.Unknown++
	}
}

func (run *wotRun) expiring(t time.Time) {
	if !t.IsZero() && t.After(run.now) && (run.next.IsZero() || t.Before(run.next)) {
		run.next = t
	}
}

// uidFlag is gpg's node flag for a user ID at one depth: 0 not
// certified by an introducer, else its validity.
type uidFlag = OwnerTrust

// validateKey counts the introducers' certifications of k's user IDs
// (gpg's validate_one_keyblock) and says whether any user ID was
// certified by one.
func (run *wotRun) validateKey(k *Key, klist []*introducer) (map[string]uidFlag, bool) {
	flags := map[string]uidFlag{}
	any := false
	for i := range k.pub.uids {
		u := &k.pub.uids[i]
		name := string(u.pkt.body)
		if u.pkt.tag != tagUserID || !run.liveUserID(k, name) {
			continue
		}
		c := run.counts[k][name]
		signed := false
		for _, cert := range run.usableCerts(k, name, u.sigs, klist) {
			in, s := cert.in, cert.sig
			if len(in.regexps) > 0 && !matchesAny(in.regexps, name) {
				continue // as if the certification did not exist
			}
			run.chain(k, in, s)
			switch in.ownerTrust {
			case TrustUltimate:
				c[0] = run.p.Completes
			case TrustFully:
				c[0]++
			case TrustMarginal:
				c[1]++
			}
			signed = true
		}
		if !signed {
			continue
		}
		if run.counts[k] == nil {
			run.counts[k] = map[string][2]int{}
		}
		run.counts[k][name] = c
		switch {
		case c[0] >= run.p.Completes || c[1] >= run.p.Marginals:
			flags[name] = TrustFully
		case c[0] > 0 || c[1] > 0:
			flags[name] = TrustMarginal
		default:
			flags[name] = TrustUndefined
		}
		any = true
	}
	return flags, any
}

// chain applies a trust signature by in on k: the newest wins, its
// depth no deeper than in's own chain allows unless in is trusted
// ultimately.
func (run *wotRun) chain(k *Key, in *introducer, s *pgppacket.Signature) {
	if s.TrustDepth == 0 {
		return
	}
	depth := in.depth
	if s.TrustDepth < in.depth || in.ownerTrust == TrustUltimate {
		depth = s.TrustDepth
	}
	if depth > 0 {
		run.chains[k] = chainState{depth: depth - 1, amount: s.TrustAmount, regexps: s.TrustRegexp}
	}
}

// store records the user IDs' validity at this depth; one not certified
// at this depth keeps what an earlier depth gave it.
func (run *wotRun) store(k *Key, flags map[string]uidFlag) {
	fpr := k.Fingerprint()
	kv := run.w.valid[fpr]
	if kv.uids == nil {
		kv.uids = map[string]OwnerTrust{}
	}
	for name, v := range flags {
		kv.uids[name] = v
	}
	kv.best = 0
	for _, v := range kv.uids {
		kv.best = max(kv.best, v)
	}
	run.w.valid[fpr] = kv
}

func allFull(k *Key, flags map[string]uidFlag) bool {
	for i := range k.pub.uids {
		if k.pub.uids[i].pkt.tag == tagUserID && flags[string(k.pub.uids[i].pkt.body)] != TrustFully {
			return false
		}
	}
	return true
}

// liveUserID reports whether k signed the user ID and it is neither
// revoked nor expired: a user ID the owner revoked, or let expire, no
// longer carries validity until it is signed again. (gpg also counts user
// IDs the key never signed; pgpstream neither shows nor matches those.)
func (run *wotRun) liveUserID(k *Key, name string) bool {
	id := k.ent.Identities[name]
	if id == nil {
		return false
	}
	sig, err := id.LatestValidSelfCertification(time.Time{}, config)
	if err != nil || uidRevoked(id, sig, run.now) {
		return false
	}
	if sig.SigLifetimeSecs != nil && *sig.SigLifetimeSecs != 0 {
		exp := sig.CreationTime.Add(time.Duration(*sig.SigLifetimeSecs) * time.Second)
		if !exp.After(run.now) {
			return false
		}
		run.expiring(exp)
	}
	return true
}

type usableCert struct {
	in  *introducer
	sig *pgppacket.Signature
}

// usableCerts is, per introducer that certified the user ID name of k,
// its newest good certification, if that is not a revocation and has not
// expired (gpg's mark_usable_uid_certs).
func (run *wotRun) usableCerts(k *Key, name string, sigs []rawPacket, klist []*introducer) []usableCert {
	type cand struct {
		in  *introducer
		sig *pgppacket.Signature
	}
	var order []*introducer
	best := map[*introducer]*pgppacket.Signature{}
	self := primaryID{k.ent.PrimaryKey.Fingerprint, k.KeyID()}
	for _, p := range sigs {
		s, err := pgppacket.ParseSignature(p.body, -1)
		if err != nil || !isCertification(s.SigType) || self.issued(s) {
			continue
		}
		if s.SigType >= 0x11 && s.SigType <= 0x13 && int(s.SigType-0x10) < run.p.MinCertLevel {
			continue
		}
		in := issuerIn(klist, s)
		if in == nil || !run.verify(in.k, k, name, p) {
			continue
		}
		cur, ok := best[in]
		if !ok {
			order = append(order, in)
			best[in] = s
			continue
		}
		if run.newer(s, cur) {
			best[in] = s
		}
	}
	var out []usableCert
	for _, in := range order {
		s := best[in]
		if s.SigType == sigCertRevocation || run.expired(s) {
			continue
		}
		if s.Lifetime != 0 {
			run.expiring(s.Created.Add(time.Duration(s.Lifetime) * time.Second))
		}
		out = append(out, usableCert{in, s})
	}
	return out
}

// newer says whether s replaces cur as an introducer's certification: a
// non-revocable one that has not expired stands against any other;
// otherwise the later one, the later in the certificate on a tie.
func (run *wotRun) newer(s, cur *pgppacket.Signature) bool {
	firm := func(x *pgppacket.Signature) bool {
		return x.SigType != sigCertRevocation && x.NonRevocable && !run.expired(x)
	}
	switch {
	case firm(cur) && !firm(s):
		return false
	case firm(s) && !firm(cur):
		return true
	}
	return !s.Created.Before(cur.Created)
}

func (run *wotRun) expired(s *pgppacket.Signature) bool {
	return s.Lifetime != 0 && !s.Created.Add(time.Duration(s.Lifetime)*time.Second).After(run.now)
}

// issuerIn finds the introducer whose primary key made s.
func issuerIn(klist []*introducer, s *pgppacket.Signature) *introducer {
	for _, in := range klist {
		pk := in.k.ent.PrimaryKey
		if s.IssuerFingerprint != nil {
			if bytes.Equal(s.IssuerFingerprint, pk.Fingerprint) {
				return in
			}
			continue
		}
		if s.IssuerKeyID == pk.KeyId {
			return in
		}
	}
	return nil
}

// SHA1CertificationCutoff is when SHA-1 certifications stop counting:
// a chosen-prefix collision (SHA-1 is a Shambles, 2020) lets whoever asks
// for a certification of one key reuse it on another, which is why gpg
// 2.2 refuses SHA-1 key signatures made after this day unless
// --allow-weak-key-signatures.
var SHA1CertificationCutoff = time.Date(2019, 1, 19, 0, 0, 0, 0, time.UTC)

// verify checks that signer's primary key made the certification p of
// the user ID name on k, once per signature.
func (run *wotRun) verify(signer, k *Key, name string, p rawPacket) bool {
	if ok, seen := run.verified[string(p.body)]; seen {
		return ok
	}
	ok := false
	if s, err := pgppacket.ParseSignature(p.body, -1); err == nil && s.Hash == pgppacket.HashSHA1 &&
		!s.Created.Before(SHA1CertificationCutoff) && !run.r.opt.AllowWeakKeySignatures {
		run.verified[string(p.body)] = false
		return false
	}
	if sig, _, err := readSignature(p); err == nil {
		pk := signer.ent.PrimaryKey
		ok = !pk.CreationTime.After(sig.CreationTime) && pk.VerifyUserIdSignature(name, k.ent.PrimaryKey, sig) == nil
	}
	run.verified[string(p.body)] = ok
	return ok
}

// matchesAny reports whether the user ID matches one of a trust
// signature's regular expressions, read as gpg reads them (see
// trustRegexp), without regard to case; one that does not compile
// matches nothing.
func matchesAny(exprs []string, uid string) bool {
	for _, e := range exprs {
		re, err := regexp.Compile("(?i)" + trustRegexp(e))
		if err == nil && re.MatchString(uid) {
			return true
		}
	}
	return false
}

// trustRegexp makes a trust signature's expression safe, as gpg does:
// the domain form "<[^>]+[@.]DOMAIN>$" keeps its frame, and within it
// (or in a bare expression) every operator but "." and "\" is taken
// literally, so "example.com" means what PGP users type it for.
func trustRegexp(e string) string {
	const frame, end = "<[^>]+[@.]", ">$"
	var b strings.Builder
	body := e
	framed := len(e) >= len(frame)+2 && strings.HasPrefix(e, frame) && strings.HasSuffix(e, end)
	if framed {
		b.WriteString(frame)
		body = e[len(frame) : len(e)-len(end)]
	}
	escaped := false
	for _, c := range body {
		switch {
		case !escaped && c == '\\':
			escaped = true
		case !escaped && strings.ContainsRune("^[$()|*+?{", c):
			b.WriteByte('\\')
		default:
			escaped = false
		}
		b.WriteRune(c)
	}
	if framed {
		b.WriteString(end)
	}
	return b.String()
}
