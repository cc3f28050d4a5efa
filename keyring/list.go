package keyring

import (
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"

	"github.com/pgpstream/pgpstream/internal/escape"
	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// Capability bits, in the order gpg prints them.
const (
	capSign = 1 << iota
	capCertify
	capEncrypt
	capAuth
)

// keyState is what a listing shows about one primary key or subkey.
type keyState struct {
	pub       *packet.PublicKey
	caps      int
	expires   time.Time // zero: never
	revoked   bool
	revokedAt time.Time // when the revocation that counts was made
	expired   bool
	invalid   bool // no valid self-signature
	secret    byte // 0: no secret part, '+': available, '#': stub without secret material
}

func capsOf(sig *packet.Signature, algo packet.PublicKeyAlgorithm, primary bool) int {
	alg := algoUsage(algo)
	c := alg
	if sig != nil && sig.FlagsValid {
		c = 0
		if sig.FlagSign {
			c |= capSign
		}
		if sig.FlagCertify {
			c |= capCertify
		}
		if sig.FlagEncryptCommunications || sig.FlagEncryptStorage {
			c |= capEncrypt
		}
		if sig.FlagAuthenticate {
			c |= capAuth
		}
		if alg != 0 {
			c &= alg // flags claim no more than the algorithm can do
		}
	}
	if primary {
		// A primary key always certifies its own components
		// (RFC 9580 section 5.2.3.29), whatever its flags say.
		c |= capCertify
	}
	return c
}

// algoUsage is what gpg takes a key of algo to do when its
// self-signature has no key flags (the usages gpg 1.0 hardwired), and the
// most that flags may claim for it: every usage for RSA, signing,
// certifying and authenticating for the signature algorithms, encrypting
// for the encryption ones. gpg 2.2 gives Elgamal that signs (algorithm
// 20, deprecated) nothing.
func algoUsage(algo packet.PublicKeyAlgorithm) int {
	switch algo {
	case packet.PubKeyAlgoRSA:
		return capCertify | capSign | capEncrypt | capAuth
	case packet.PubKeyAlgoRSASignOnly:
		return capCertify | capSign
	case packet.PubKeyAlgoRSAEncryptOnly, packet.PubKeyAlgoElGamal, packet.PubKeyAlgoECDH, packet.PubKeyAlgoX25519, packet.PubKeyAlgoX448:
		return capEncrypt
	case packet.PubKeyAlgoDSA, packet.PubKeyAlgoECDSA, packet.PubKeyAlgoEdDSA, packet.PubKeyAlgoEd25519, packet.PubKeyAlgoEd448:
		return capCertify | capSign | capAuth
	}
	return 0
}

func expiryOf(pk *packet.PublicKey, sig *packet.Signature) time.Time {
	if sig == nil || sig.KeyLifetimeSecs == nil || *sig.KeyLifetimeSecs == 0 {
		return time.Time{}
	}
	return pk.CreationTime.Add(time.Duration(*sig.KeyLifetimeSecs) * time.Second)
}

// secretMark asks gpg-agent only once it was started for a secret key:
// listing public keys and choosing recipients never start it.
func (k *Key) secretMark(pk *packet.PublicKey) byte {
	if k.sec == nil && !k.inAgent(false) {
		return 0
	}
	priv := k.privs[strings.ToUpper(hex.EncodeToString(pk.Fingerprint))]
	if priv != nil && !priv.Dummy() {
		return '+'
	}
	if m := k.agentMark(pk); m != 0 {
		return m
	}
	return '#'
}

func (k *Key) primaryState(now time.Time) keyState {
	e := k.ent
	st := keyState{pub: e.PrimaryKey, secret: k.secretMark(e.PrimaryKey)}
	sig, err := e.PrimarySelfSignature(time.Time{}, config)
	if err != nil {
		st.invalid = true
	}
	st.caps = capsOf(sig, e.PrimaryKey.PubKeyAlgo, true)
	st.expires = expiryOf(e.PrimaryKey, sig)
	if e.PrimaryKey.Version != 6 {
		// A v4 direct-key signature can also set an expiry.
		if ds, err := e.LatestValidDirectSignature(time.Time{}, config); err == nil {
			if x := expiryOf(e.PrimaryKey, ds); !x.IsZero() && (st.expires.IsZero() || x.Before(st.expires)) {
				st.expires = x
			}
		}
	}
	st.revoked = e.Revoked(now)
	if st.revoked {
		st.revokedAt = latestRevocation(e.Revocations)
	}
	st.expired = !st.expires.IsZero() && now.After(st.expires)
	return st
}

// latestRevocation returns when the newest verified revocation among
// revs was made.
func latestRevocation(revs []*packet.VerifiableSignature) time.Time {
	var t time.Time
	for _, r := range revs {
		if r.Valid != nil && *r.Valid && r.Packet.CreationTime.After(t) {
			t = r.Packet.CreationTime
		}
	}
	return t
}

func (k *Key) subkeyState(s *v2.Subkey, now time.Time) keyState {
	st := keyState{pub: s.PublicKey, secret: k.secretMark(s.PublicKey)}
	sig, err := s.LatestValidBindingSignature(time.Time{}, config)
	if err != nil {
		st.invalid = true
		return st
	}
	st.caps = capsOf(sig, s.PublicKey.PubKeyAlgo, false)
	st.expires = expiryOf(s.PublicKey, sig)
	st.revoked = s.Revoked(sig, now)
	if st.revoked {
		st.revokedAt = latestRevocation(s.Revocations)
	}
	st.expired = !st.expires.IsZero() && now.After(st.expires)
	return st
}

// curveName gives gpg's name for an elliptic-curve key, and its size in
// bits as gpg shows it in listings.
func curveName(pk *packet.PublicKey) (string, int) {
	c, err := pk.Curve()
	if err != nil {
		return "", 0
	}
	enc := pk.PubKeyAlgo == packet.PubKeyAlgoECDH || pk.PubKeyAlgo == packet.PubKeyAlgoX25519 || pk.PubKeyAlgo == packet.PubKeyAlgoX448
	switch c {
	case packet.Curve25519:
		if enc {
			return "cv25519", 255
		}
		return "ed25519", 255
	case packet.Curve448:
		if enc {
			return "cv448", 448
		}
		return "ed448", 448
	case packet.CurveNistP256:
		return "nistp256", 256
	case packet.CurveNistP384:
		return "nistp384", 384
	case packet.CurveNistP521:
		return "nistp521", 521
	case packet.CurveBrainpoolP256:
		return "brainpoolP256r1", 256
	case packet.CurveBrainpoolP384:
		return "brainpoolP384r1", 384
	case packet.CurveBrainpoolP512:
		return "brainpoolP512r1", 512
	case packet.CurveSecP256k1:
		return "secp256k1", 256
	}
	return strings.ToLower(string(c)), 0
}

// algoName returns gpg's short algorithm string ("rsa3072", "ed25519") and
// the key size gpg prints in colon listings.
func algoName(pk *packet.PublicKey) (string, int) {
	switch pk.PubKeyAlgo {
	case packet.PubKeyAlgoRSA, packet.PubKeyAlgoRSAEncryptOnly, packet.PubKeyAlgoRSASignOnly,
		packet.PubKeyAlgoDSA, packet.PubKeyAlgoElGamal:
		// gpg's name in lower case, and the size: rsa3072, dsa2048, elg2048.
		n, _ := pk.BitLength()
		return strings.ToLower(pgppacket.PubKeyAlgo(pk.PubKeyAlgo).GPGName()) + strconv.Itoa(int(n)), int(n)
	}
	if name, bits := curveName(pk); name != "" {
		return name, bits
	}
	n, _ := pk.BitLength()
	return "algo" + strconv.Itoa(int(pk.PubKeyAlgo)), int(n)
}

// capString spells capabilities in gpg's colon order (e, s, c, a).
func capString(c int, upper bool) string {
	var b strings.Builder
	for _, x := range []struct {
		bit int
		ch  byte
	}{{capEncrypt, 'e'}, {capSign, 's'}, {capCertify, 'c'}, {capAuth, 'a'}} {
		if c&x.bit != 0 {
			ch := x.ch
			if upper {
				ch -= 'a' - 'A'
			}
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// usageString spells capabilities as gpg's human listing does: [SCEA].
func usageString(c int) string {
	var b strings.Builder
	for _, x := range []struct {
		bit int
		ch  byte
	}{{capSign, 'S'}, {capCertify, 'C'}, {capEncrypt, 'E'}, {capAuth, 'A'}} {
		if c&x.bit != 0 {
			b.WriteByte(x.ch)
		}
	}
	return b.String()
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// ListKeys writes the matching keys in gpg's human format or, with
// withColons, as gpg's machine-readable records (GnuPG doc/DETAILS).
// With secret, only keys with a secret part are listed, as sec/ssb.
func (r *Ring) ListKeys(w io.Writer, patterns []string, secret, withColons bool) error {
	_, err := r.List(w, patterns, ListOptions{Secret: secret, Colons: withColons})
	return err
}

func stateSuffix(st keyState) string {
	switch {
	case st.revoked && !st.revokedAt.IsZero():
		return " [revoked: " + day(st.revokedAt) + "]"
	case st.revoked:
		return " [revoked]"
	case st.expired:
		return " [expired: " + day(st.expires) + "]"
	case !st.expires.IsZero():
		return " [expires: " + day(st.expires) + "]"
	}
	return ""
}

func (k *Key) writeHuman(w io.Writer, lc *listCtx, now time.Time) {
	secret := lc.opt.Secret
	ps := k.primaryState(now)
	typ, subTyp := "pub", "sub"
	if secret {
		typ, subTyp = "sec", "ssb"
	}
	mark := func(st keyState) string {
		if secret && (st.secret == '#' || st.secret == '>') {
			return string(st.secret)
		}
		return ""
	}
	algo, _ := algoName(ps.pub)
	fmt.Fprintf(w, "%-5s %s %s [%s]%s\n", typ+mark(ps), algo, day(ps.pub.CreationTime), usageString(ps.caps), stateSuffix(ps))
	lc.keyLines(w, ps.pub, true)
	lc.originLine(w, 6, k.pub.primary.meta)
	lc.sigLines(w, k, k.pub.primary.sigs)
	for _, u := range k.uidStates(ps, now) {
		if u.colon == "r" && !ps.revoked {
			// gpg hides a revoked user ID of a key that is not
			// itself revoked; --with-colons still shows it.
			continue
		}
		if lc.opt.ShowOnly {
			fmt.Fprintf(w, "uid                      %s\n", escape.Human(u.name))
			lc.originLine(w, 25, u.meta)
		} else {
			fmt.Fprintf(w, "uid           %s %s\n", lc.uidValidity(k, u), escape.Human(u.name))
			lc.originLine(w, 14, u.meta)
		}
		lc.sigLines(w, k, u.sigs)
	}
	for i := range k.ent.Subkeys {
		ss := k.subkeyState(&k.ent.Subkeys[i], now)
		if ss.invalid || hiddenSubkey(ps, ss) {
			continue
		}
		algo, _ := algoName(ss.pub)
		fmt.Fprintf(w, "%-5s %s %s [%s]%s\n", subTyp+mark(ss), algo, day(ss.pub.CreationTime), usageString(ss.caps), stateSuffix(ss))
		lc.keyLines(w, ss.pub, false)
		lc.sigLines(w, k, k.subkeySigs(ss.pub))
	}
	fmt.Fprintln(w)
}

// originLine is --with-key-origin's line under a key or a user ID, as
// gpg 2.2 writes it, indented under the name: where the ring has it from
// and when, and the URL; nothing when the ring has no record of it.
func (lc *listCtx) originLine(w io.Writer, indent int, m meta) {
	if !lc.opt.KeyOrigin || m.zero() {
		return
	}
	url := ""
	if m.url != "" {
		url = "url=" + escape.Human(m.url)
	}
	fmt.Fprintf(w, "%*sorigin=%s last=%s %s\n", indent, "", m.org, day(time.Unix(int64(m.update), 0)), url)
}

type uidState struct {
	name     string
	validity string // human: "unknown", "revoked", "expired"
	colon    string // field 2 of the uid record
	created  time.Time
	expires  time.Time
	sigs     []rawPacket // the signatures on it, in keyblock order
	meta     meta        // where the ring has it from (origin.go)
}

func (k *Key) uidStates(ps keyState, now time.Time) []uidState {
	out := k.ringUIDStates(ps, now)
	// gpg lists the primary user ID first and the others in ring order,
	// and its clients take the first uid record for the key's name
	// (GPGME's key->uids).
	if primary := k.PrimaryUserID(); primary != "" {
		for i, u := range out {
			if u.name == primary {
				copy(out[1:i+1], out[:i])
				out[0] = u
				break
			}
		}
	}
	return out
}

// ringUIDStates is uidStates in ring order.
func (k *Key) ringUIDStates(ps keyState, now time.Time) []uidState {
	var out []uidState
	for _, u := range k.pub.uids {
		if u.pkt.tag != tagUserID {
			continue
		}
		id := k.ent.Identities[string(u.pkt.body)]
		if id == nil {
			continue
		}
		sig, err := id.LatestValidSelfCertification(time.Time{}, config)
		if err != nil {
			continue // unsigned user IDs are not shown; see UserIDs
		}
		us := uidState{name: id.Name, validity: "unknown", colon: "-", created: sig.CreationTime, sigs: u.sigs, meta: u.meta}
		if k.accepted[id.Name] {
			// Accepted without a self-signature: gpg lists no date.
			us.created = time.Time{}
		}
		if sig.SigLifetimeSecs != nil && *sig.SigLifetimeSecs != 0 {
			us.expires = sig.CreationTime.Add(time.Duration(*sig.SigLifetimeSecs) * time.Second)
		}
		switch {
		case ps.revoked || uidRevoked(id, sig, now):
			us.validity, us.colon = "revoked", "r"
		case ps.expired || (!us.expires.IsZero() && now.After(us.expires)):
			us.validity, us.colon = "expired", "e"
		}
		out = append(out, us)
	}
	return out
}

func colonValidity(st keyState) string {
	switch {
	case st.revoked:
		return "r"
	case st.expired:
		return "e"
	case st.invalid:
		return "i"
	}
	return "-"
}

func epoch(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return strconv.FormatInt(t.Unix(), 10)
}

// colonRecord writes fields 1..n joined by ':' with gpg's trailing colon.
// revokerRecords writes gpg's rvk records under a pub record: the
// designated revokers of every valid direct-key self-signature, each
// once. gpg takes them from all such signatures, not only the newest,
// since PGP writes a revoker (a sensitive one above all) in a signature
// of its own.
func (k *Key) revokerRecords(w io.Writer) {
	seen := map[string]bool{}
	for _, p := range k.pub.primary.sigs {
		ours, err := pgppacket.ParseSignature(p.body, -1)
		if err != nil || ours.SigType != byte(packet.SigTypeDirectSignature) || len(ours.Revokers) == 0 {
			continue
		}
		sig, err := goSignature(p, ours)
		if err != nil || k.ent.PrimaryKey.VerifyDirectKeySignature(sig) != nil {
			continue
		}
		for _, r := range ours.Revokers {
			id := fmt.Sprintf("%02x%02x%X", r.Class, r.PubKeyAlgo, r.Fingerprint)
			if seen[id] {
				continue
			}
			seen[id] = true
			class := fmt.Sprintf("%02x", r.Class)
			if r.Class&0x40 != 0 {
				class += "s"
			}
			colonRecord(w, []string{"rvk", "", "", strconv.Itoa(int(r.PubKeyAlgo)), "", "", "", "", "", fmt.Sprintf("%X", r.Fingerprint), class})
		}
	}
}

func colonRecord(w io.Writer, f []string) {
	fmt.Fprintf(w, "%s:\n", strings.Join(f, ":"))
}

// keyFields is a pub/sec (primary, 20 fields) or sub/ssb (18 fields)
// record, as many as gpg 2.2 writes for each.
func keyFields(typ string, st keyState, caps string, secret, primary bool) []string {
	f := make([]string, 20)
	if !primary {
		f = f[:18]
	}
	algo, bits := algoName(st.pub)
	f[0] = typ
	f[1] = colonValidity(st)
	f[2] = strconv.Itoa(bits)
	f[3] = strconv.Itoa(int(st.pub.PubKeyAlgo))
	f[4] = fmt.Sprintf("%016X", st.pub.KeyId)
	f[5] = epoch(st.pub.CreationTime)
	f[6] = epoch(st.expires)
	f[11] = caps
	if secret && st.secret == '>' {
		f[14] = "+" // gpg gives the card's serial number here
	} else if secret && st.secret != 0 {
		f[14] = string(st.secret)
	}
	if name, _ := curveName(st.pub); name != "" {
		f[16] = algo
	}
	f[17] = complianceFlags(st.pub, bits)
	return f
}

// originFields fills fields 19 and 20 of a pub, sec or uid record from
// m, as gpg 2.2 writes them: the last update, empty when unknown; the
// origin's number, then a space and the URL (escaped as a colon field)
// when there is one. gpg writes 0 for a key it has no record of.
func originFields(f []string, m meta) {
	if m.update != 0 {
		f[18] = strconv.FormatUint(uint64(m.update), 10)
	}
	f[19] = strconv.Itoa(int(m.org))
	if m.url != "" {
		f[19] += " " + escape.Colon(m.url)
	}
}

// writeColons lists k as gpg's --with-colons does; validity and
// ownertrust come from the ring's trust (see Validity), and are unknown
// for keys shown from a file.
func (k *Key) writeColons(w io.Writer, lc *listCtx, now time.Time) {
	secret := lc.opt.Secret
	validity, ownertrust := lc.trust(k.Fingerprint())
	ps := k.primaryState(now)
	typ, subTyp := "pub", "sub"
	if secret {
		typ, subTyp = "sec", "ssb"
	}
	// Upper-case capabilities are those of the whole key: what its usable
	// primary key and subkeys can do together.
	var subs []keyState
	total := 0
	usable := func(st keyState) bool { return !st.revoked && !st.expired && !st.invalid }
	if usable(ps) {
		total |= ps.caps
	}
	for i := range k.ent.Subkeys {
		ss := k.subkeyState(&k.ent.Subkeys[i], now)
		if ss.invalid {
			continue
		}
		subs = append(subs, ss)
		if usable(ss) && usable(ps) {
			total |= ss.caps
		}
	}
	f := keyFields(typ, ps, capString(ps.caps, false)+capString(total, true), secret, true)
	originFields(f, k.pub.primary.meta)
	if f[1] == "-" {
		f[1] = validity.Letter()
	}
	f[8] = ownertrust.Letter()
	colonRecord(w, f)
	k.revokerRecords(w)
	colonRecord(w, []string{"fpr", "", "", "", "", "", "", "", "", k.Fingerprint()})
	lc.gripRecord(w, ps.pub)
	lc.sigRecords(w, k, k.pub.primary.sigs)
	for _, u := range k.uidStates(ps, now) {
		f := make([]string, 20)
		f[0] = "uid"
		f[1] = u.colon
		if f[1] == "-" {
			f[1] = lc.uidTrust(k, u.name).Letter()
		}
		f[5] = epoch(u.created)
		f[6] = epoch(u.expires)
		f[7] = uidHash(u.name)
		f[9] = escape.Colon(u.name)
		originFields(f, u.meta)
		colonRecord(w, f)
		lc.tfsRecord(w, k, u.name)
		lc.sigRecords(w, k, u.sigs)
	}
	for _, ss := range subs {
		sf := keyFields(subTyp, ss, capString(ss.caps, false), secret, false)
		if sf[1] == "-" {
			// A subkey is as valid as its key, in gpg's listings,
			// and revoked or expired with it.
			sf[1] = f[1]
		}
		colonRecord(w, sf)
		colonRecord(w, []string{"fpr", "", "", "", "", "", "", "", "", fmt.Sprintf("%X", ss.pub.Fingerprint)})
		lc.gripRecord(w, ss.pub)
		lc.sigRecords(w, k, k.subkeySigs(ss.pub))
	}
}
