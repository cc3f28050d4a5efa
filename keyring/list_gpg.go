package keyring

import (
	"bufio"
	"bytes"
	"crypto"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"golang.org/x/crypto/ripemd160"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/internal/escape"
	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// ListOptions choose what a key listing shows, as gpg's options do.
type ListOptions struct {
	Secret             bool // -K: keys with a secret part, as sec/ssb
	Colons             bool // --with-colons
	Fingerprint        bool // --fingerprint: the primary's fingerprint in groups of four
	SubkeyFingerprints bool // --with-subkey-fingerprint (or --fingerprint twice)
	Keygrip            bool // --with-keygrip
	KeyOrigin          bool // --with-key-origin: where the ring has each key and user ID from
	Sigs               bool // --list-sigs: the signatures on each user ID and subkey
	CheckSigs          bool // --check-sigs: the same, each one verified
	ShowOnly           bool // keys read from a file (--show-keys): no ring, no validity
	JSON               bool // --json: the keys as JSON (see list_json.go), not gpg's formats
	// TOFUInfo is --with-tofu-info: under the TOFU trust models a tfs
	// record after each uid record, its binding's policy and history.
	TOFUInfo bool
}

// SigCounts is what --check-sigs found.
type SigCounts struct {
	Good, Bad, NoKey, Error int
}

// listCtx carries one listing's options and the keys signers are looked
// up in.
type listCtx struct {
	opt    ListOptions
	keys   []*Key
	ring   *Ring // where validity and ownertrust come from; nil for a file's keys
	counts SigCounts
}

// trust is the validity and ownertrust of fpr for a listing.
func (lc *listCtx) trust(fpr string) (validity, ownertrust OwnerTrust) {
	if lc.ring == nil || lc.opt.ShowOnly {
		return TrustUnknown, TrustUnknown
	}
	return lc.ring.Validity(fpr, lc.ring.model), lc.ring.ListedOwnerTrust(fpr)
}

// uidTrust is the validity of one user ID of k for a listing.
func (lc *listCtx) uidTrust(k *Key, uid string) OwnerTrust {
	if lc.ring == nil || lc.opt.ShowOnly {
		return TrustUnknown
	}
	return lc.ring.UserIDValidity(k.Fingerprint(), uid, lc.ring.model)
}

// List writes the matching keys as ListOptions say and, with CheckSigs,
// counts the signatures checked.
func (r *Ring) List(w io.Writer, patterns []string, opt ListOptions) (SigCounts, error) {
	keys, err := r.Select(patterns, opt.Secret)
	if err != nil {
		return SigCounts{}, err
	}
	if opt.JSON {
		return SigCounts{}, writeJSONKeys(w, keys)
	}
	lc := &listCtx{opt: opt, keys: r.keys, ring: r}
	bw := bufio.NewWriter(w)
	if opt.Colons && !opt.Secret {
		// gpg's trust-database line: model (0 classic, 1 pgp), the
		// database's creation and expiry, marginals, completes, depth.
		// gpg writes it for public listings only.
		fmt.Fprintf(bw, "tru::1:0:0:3:1:5\n")
	}
	if !opt.Colons && len(patterns) == 0 && len(keys) > 0 {
		// gpg names the ring file above a full listing.
		name := r.listingName(opt.Secret)
		fmt.Fprintf(bw, "%s\n%s\n", name, strings.Repeat("-", len(name)))
	}
	lc.write(bw, keys)
	return lc.counts, bw.Flush()
}

// ShowKeys lists the keys in rd (armored or binary) without importing
// them: gpg's --show-keys and --import-options show-only. Signers are
// looked up among the keys shown and, when ring is not nil, in the ring.
func ShowKeys(w io.Writer, rd io.Reader, ring *Ring, opt ListOptions) (SigCounts, error) {
	var keys []*Key
	var err error
	if ring != nil {
		keys, err = ring.readKeys(rd)
	} else {
		keys, err = ReadKeys(rd)
	}
	if err != nil {
		return SigCounts{}, err
	}
	if opt.JSON {
		return SigCounts{}, writeJSONKeys(w, keys)
	}
	opt.ShowOnly = true
	lc := &listCtx{opt: opt, keys: keys}
	if ring != nil {
		lc.keys = append(append([]*Key{}, keys...), ring.keys...)
	}
	bw := bufio.NewWriter(w)
	lc.write(bw, keys)
	return lc.counts, bw.Flush()
}

// ReadKeys parses the transferable keys in rd, armored or binary, with
// the default policy.
func ReadKeys(rd io.Reader) ([]*Key, error) { return (&Ring{}).readKeys(rd) }

// readKeys is ReadKeys under r's policy; the keys are not added to r.
func (r *Ring) readKeys(rd io.Reader) ([]*Key, error) {
	pkts, err := decodeKeyData(rd)
	if err != nil {
		return nil, err
	}
	blocks, err := splitBlocks(pkts)
	if err != nil {
		return nil, err
	}
	var keys []*Key
	for _, b := range blocks {
		pub, sec := b, (*block)(nil)
		if b.secret() {
			sec = b
			if pub, err = publicBlock(b); err != nil {
				return nil, err
			}
		}
		k, err := r.newKey(pub, sec)
		if err != nil {
			fp, _ := fingerprintOf(pub.primary.pkt)
			return nil, fmt.Errorf("keyring: key %X: %w", fp, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

func (lc *listCtx) write(w io.Writer, keys []*Key) {
	now := clock.Now()
	for _, k := range keys {
		secret := lc.opt.Secret
		if lc.opt.ShowOnly {
			// A file's secret keys are shown as sec, its public ones as pub.
			lc.opt.Secret = k.sec != nil
		}
		if lc.opt.Colons {
			k.writeColons(w, lc, now)
		} else {
			k.writeHuman(w, lc, now)
		}
		lc.opt.Secret = secret
	}
}

// spacedFingerprint groups a fingerprint as gpg's --fingerprint does:
// fours, with two spaces in the middle (v4: 10 groups).
func spacedFingerprint(fp []byte) string {
	h := fmt.Sprintf("%X", fp)
	var b strings.Builder
	n := len(h) / 4
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
			if i == n/2 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(h[4*i : 4*i+4])
	}
	return b.String()
}

// keyLines writes the lines gpg puts under a pub or sub line.
func (lc *listCtx) keyLines(w io.Writer, pk *packet.PublicKey, primary bool) {
	if primary || lc.opt.SubkeyFingerprints {
		if lc.opt.Fingerprint {
			fmt.Fprintf(w, "      %s\n", spacedFingerprint(pk.Fingerprint))
		} else {
			fmt.Fprintf(w, "      %X\n", pk.Fingerprint)
		}
	}
	if lc.opt.Keygrip {
		if g := KeygripHex(pk); g != "" {
			fmt.Fprintf(w, "      Keygrip = %s\n", g)
		}
	}
}

// gripRecord writes the keygrip under a key: with --with-keygrip, and
// always in a colon listing of secret keys, as gpg 2.2 does (a secret
// key is found in gpg-agent by its keygrip).
func (lc *listCtx) gripRecord(w io.Writer, pk *packet.PublicKey) {
	if !lc.opt.Keygrip && !(lc.opt.Secret && lc.opt.Colons) {
		return
	}
	if g := KeygripHex(pk); g != "" {
		colonRecord(w, []string{"grp", "", "", "", "", "", "", "", "", g})
	}
}

// subkeySigs returns the signatures stored after the subkey pk.
func (k *Key) subkeySigs(pk *packet.PublicKey) []rawPacket {
	for _, s := range k.pub.subs {
		if fp, err := fingerprintOf(s.pkt); err == nil && bytes.Equal(fp, pk.Fingerprint) {
			return s.sigs
		}
	}
	return nil
}

// listedSig is one signature as a listing shows it.
type listedSig struct {
	sig    *packet.Signature
	flags  *pgppacket.Signature // what go-crypto does not keep: local, trust
	keyID  uint64
	issuer []byte // issuer fingerprint, when the signature names it
	rc     byte   // ' ' not checked, '!' good, '-' bad, '?' no key, '%' error
	signer string // the signer's primary user ID, "" when unknown
}

func (lc *listCtx) signerKey(id uint64, fp []byte) *Key {
	for _, k := range lc.keys {
		if len(fp) > 0 && bytes.Equal(k.ent.PrimaryKey.Fingerprint, fp) || id != 0 && k.KeyID() == id {
			return k
		}
		for _, s := range k.ent.Subkeys {
			if len(fp) > 0 && bytes.Equal(s.PublicKey.Fingerprint, fp) || id != 0 && s.PublicKey.KeyId == id {
				return k
			}
		}
	}
	return nil
}

func signerPublic(k *Key, id uint64, fp []byte) *packet.PublicKey {
	if id != 0 && k.ent.PrimaryKey.KeyId == id || len(fp) > 0 && bytes.Equal(k.ent.PrimaryKey.Fingerprint, fp) {
		return k.ent.PrimaryKey
	}
	for _, s := range k.ent.Subkeys {
		if id != 0 && s.PublicKey.KeyId == id || len(fp) > 0 && bytes.Equal(s.PublicKey.Fingerprint, fp) {
			return s.PublicKey
		}
	}
	return nil
}

// examine parses and, with CheckSigs, verifies the signatures on the
// component of k they follow (the primary key itself, a user ID, or a
// subkey).
func (lc *listCtx) examine(k *Key, pkts []rawPacket, uid string, sub *packet.PublicKey) []listedSig {
	var out []listedSig
	for _, p := range pkts {
		sig, flags, err := readSignature(p)
		if err != nil {
			continue
		}
		ls := listedSig{sig: sig, flags: flags, issuer: sig.IssuerFingerprint, rc: ' '}
		if sig.IssuerKeyId != nil {
			ls.keyID = *sig.IssuerKeyId
		} else if len(sig.IssuerFingerprint) >= 20 {
			ls.keyID = keyIDFromFingerprint(sig.IssuerFingerprint, sig.Version)
		}
		signer := lc.signerKey(ls.keyID, ls.issuer)
		if signer != nil {
			ls.signer = signer.PrimaryUserID()
		}
		if lc.opt.CheckSigs {
			ls.rc = lc.check(k, signer, sig, ls, uid, sub)
			switch ls.rc {
			case '!':
				lc.counts.Good++
			case '-':
				lc.counts.Bad++
			case '?':
				lc.counts.NoKey++
			default:
				lc.counts.Error++
			}
		}
		out = append(out, ls)
	}
	return out
}

func keyIDFromFingerprint(fp []byte, version int) uint64 {
	var b []byte
	if version >= 5 {
		b = fp[:8]
	} else {
		b = fp[len(fp)-8:]
	}
	var id uint64
	for _, c := range b {
		id = id<<8 | uint64(c)
	}
	return id
}

func (lc *listCtx) check(k, signer *Key, sig *packet.Signature, ls listedSig, uid string, sub *packet.PublicKey) byte {
	if signer == nil {
		return '?'
	}
	spk := signerPublic(signer, ls.keyID, ls.issuer)
	if spk == nil {
		return '?'
	}
	primary := k.ent.PrimaryKey
	var err error
	switch sig.SigType {
	case packet.SigTypeGenericCert, packet.SigTypePersonaCert, packet.SigTypeCasualCert, packet.SigTypePositiveCert, packet.SigTypeCertificationRevocation:
		err = spk.VerifyUserIdSignature(uid, primary, sig)
	case packet.SigTypeSubkeyBinding:
		err = spk.VerifyKeySignature(sub, sig)
	case packet.SigTypeSubkeyRevocation:
		err = spk.VerifySubkeyRevocationSignature(sig, sub)
	case packet.SigTypeKeyRevocation:
		err = spk.VerifyRevocationSignature(sig)
	case packet.SigTypeDirectSignature:
		err = spk.VerifyDirectKeySignature(sig)
	default:
		return '%'
	}
	if err != nil {
		return '-'
	}
	return '!'
}

// withHeader frames a stored packet body again for go-crypto's reader.
func withHeader(p rawPacket) []byte {
	var b bytes.Buffer
	p.writeTo(&b)
	return b.Bytes()
}

func (lc *listCtx) sigsFor(k *Key, pkts []rawPacket) []listedSig {
	if !lc.opt.Sigs && !lc.opt.CheckSigs {
		return nil
	}
	// Which component the signatures belong to decides what they sign.
	for _, u := range k.pub.uids {
		if len(u.sigs) > 0 && len(pkts) > 0 && &u.sigs[0] == &pkts[0] {
			return lc.examine(k, pkts, string(u.pkt.body), nil)
		}
	}
	for _, s := range k.pub.subs {
		if len(s.sigs) > 0 && len(pkts) > 0 && &s.sigs[0] == &pkts[0] {
			spk, _, err := parseKey(s.pkt)
			if err != nil {
				return nil
			}
			for _, es := range k.ent.Subkeys {
				if bytes.Equal(es.PublicKey.Fingerprint, spk.Fingerprint) {
					spk = es.PublicKey
				}
			}
			return lc.examine(k, pkts, "", spk)
		}
	}
	return lc.examine(k, pkts, "", nil)
}

// sigClassDigit is the certification level gpg shows after "sig".
func sigClassDigit(t packet.SignatureType) byte {
	if t > 0x10 && t < 0x14 {
		return '0' + byte(t-0x10)
	}
	return ' '
}

func sigWord(t packet.SignatureType) string {
	switch t {
	case packet.SigTypeKeyRevocation, packet.SigTypeSubkeyRevocation, packet.SigTypeCertificationRevocation:
		return "rev"
	}
	return "sig"
}

// sigLines writes gpg's --list-sigs lines for the signatures pkts.
func (lc *listCtx) sigLines(w io.Writer, k *Key, pkts []rawPacket) {
	for _, s := range lc.sigsFor(k, pkts) {
		exp := byte(' ')
		if s.sig.SigExpired(clock.Now()) {
			exp = 'X'
		}
		name := s.signer
		switch {
		case s.rc == '?':
			name = ""
		case name == "":
			name = "[User ID not found]"
		}
		local, nonRev, policy, notation, depth := byte(' '), byte(' '), byte(' '), byte(' '), byte(' ')
		if s.flags.Local {
			local = 'L'
		}
		if s.flags.NonRevocable {
			nonRev = 'R'
		}
		if s.sig.PolicyURI != "" {
			policy = 'P'
		}
		if len(s.sig.Notations) > 0 {
			notation = 'N'
		}
		if d := s.flags.TrustDepth; d > 0 {
			depth = '0' + min(d, 9)
			if d > 9 {
				depth = 'T'
			}
		}
		// sig, check result, level, then gpg's flag columns: local,
		// non-revocable, policy, notation, expired, trust depth.
		fmt.Fprintf(w, "%s%c%c %c%c%c%c%c%c %016X %s  %s\n", sigWord(s.sig.SigType), s.rc, sigClassDigit(s.sig.SigType),
			local, nonRev, policy, notation, exp, depth, s.keyID, day(s.sig.CreationTime), escape.Human(name))
		if sigWord(s.sig.SigType) == "rev" && s.sig.RevocationReason != nil {
			fmt.Fprintf(w, "      reason for revocation: %s\n", revocationReasonText(uint8(*s.sig.RevocationReason)))
			if c := s.sig.RevocationReasonText; c != "" {
				fmt.Fprintf(w, "      revocation comment: %s\n", escape.Human(c))
			}
		}
	}
}

// sigRecords writes gpg's sig/rev colon records (GnuPG doc/DETAILS).
func (lc *listCtx) sigRecords(w io.Writer, k *Key, pkts []rawPacket) {
	for _, s := range lc.sigsFor(k, pkts) {
		f := make([]string, 16)
		f[0] = sigWord(s.sig.SigType)
		if s.rc != ' ' {
			f[1] = string(s.rc)
		}
		f[3] = strconv.Itoa(int(s.sig.PubKeyAlgo))
		f[4] = fmt.Sprintf("%016X", s.keyID)
		f[5] = epoch(s.sig.CreationTime)
		if s.sig.SigLifetimeSecs != nil && *s.sig.SigLifetimeSecs != 0 {
			f[6] = epoch(s.sig.CreationTime.Add(time.Duration(*s.sig.SigLifetimeSecs) * time.Second))
		}
		if s.flags.TrustDepth > 0 {
			f[7] = fmt.Sprintf("%d %d", s.flags.TrustDepth, s.flags.TrustAmount)
		}
		if s.rc != '?' {
			f[9] = escape.Colon(s.signer)
		}
		class := byte('x')
		if s.flags.Local {
			class = 'l'
		}
		f[10] = fmt.Sprintf("%02x%c", uint8(s.sig.SigType), class)
		if sigWord(s.sig.SigType) == "rev" && s.sig.RevocationReason != nil {
			// gpg appends the reason-for-revocation code.
			f[10] += fmt.Sprintf(",%02x", uint8(*s.sig.RevocationReason))
		}
		if len(s.issuer) > 0 {
			f[12] = fmt.Sprintf("%X", s.issuer)
		}
		f[15] = strconv.Itoa(int(hashID(s.sig.Hash)))
		if c := s.sig.RevocationReasonText; sigWord(s.sig.SigType) == "rev" && c != "" {
			// gpg 2.2 puts the revocation comment in field 21.
			f = append(f, "", "", "", "", escape.Colon(c))
		}
		colonRecord(w, f)
	}
}

// hashID is the OpenPGP id of a hash (RFC 9580 §9.5).
func hashID(h crypto.Hash) byte {
	switch h {
	case crypto.MD5:
		return 1
	case crypto.SHA1:
		return 2
	case crypto.RIPEMD160:
		return 3
	case crypto.SHA256:
		return 8
	case crypto.SHA384:
		return 9
	case crypto.SHA512:
		return 10
	case crypto.SHA224:
		return 11
	case crypto.SHA3_256:
		return 12
	case crypto.SHA3_512:
		return 14
	}
	return 0
}

// LookupID finds the key whose primary key or subkey has the key ID or
// the fingerprint (either may be zero or empty) and says its primary user
// ID and whether the ring holds the secret part of that (sub)key.
func (r *Ring) LookupID(keyID uint64, fingerprint []byte) (userID string, secret, known bool) {
	lc := &listCtx{keys: r.keys}
	k := lc.signerKey(keyID, fingerprint)
	if k == nil {
		return "", false, false
	}
	pk := signerPublic(k, keyID, fingerprint)
	if pk != nil {
		if priv := k.PrivateKey(pk.Fingerprint); priv != nil && !priv.Dummy() {
			secret = true
		}
	}
	return k.PrimaryUserID(), secret, true
}

// uidHash is field 8 of a uid record: RIPEMD-160 of the user ID, which
// clients use to tell user IDs apart (GnuPG's doc/DETAILS).
func uidHash(name string) string {
	h := ripemd160.New()
	h.Write([]byte(name))
	return fmt.Sprintf("%X", h.Sum(nil))
}

// complianceFlags is field 18 of a key record. gpg 2.2 writes 23 for a
// key usable in its de-vs mode (the German VS-NfD rules): RSA of 2048,
// 3072 or 4096 bits and ECC on the Brainpool curves; nothing otherwise.
func complianceFlags(pk *packet.PublicKey, bits int) string {
	switch pk.PubKeyAlgo {
	case packet.PubKeyAlgoRSA, packet.PubKeyAlgoRSAEncryptOnly, packet.PubKeyAlgoRSASignOnly:
		if bits == 2048 || bits == 3072 || bits == 4096 {
			return "23"
		}
	case packet.PubKeyAlgoECDH, packet.PubKeyAlgoECDSA:
		if name, _ := curveName(pk); strings.HasPrefix(name, "brainpoolP") {
			return "23"
		}
	}
	return ""
}

// Lifetime says, as the listings do, whether k's primary key is revoked
// at now and when it expired (zero when it has not).
func (k *Key) Lifetime(now time.Time) (revoked bool, expired time.Time) {
	st := k.primaryState(now)
	if st.expired {
		expired = st.expires
	}
	return st.revoked, expired
}

// Owner is the key whose primary key or subkey has the fingerprint fp,
// or nil.
func (r *Ring) Owner(fp []byte) *Key {
	if len(fp) == 0 {
		return nil
	}
	return (&listCtx{keys: r.keys}).signerKey(0, fp)
}

// RevokedSigner reports whether k is revoked and pk, one of its keys, was
// made to sign: a key whose signatures gpg still checks and reports as
// REVKEYSIG, where the signing-key lookup refuses it.
func (k *Key) RevokedSigner(pk *packet.PublicKey, now time.Time) bool {
	ps := k.primaryState(now)
	if !ps.revoked {
		return false
	}
	if bytes.Equal(pk.Fingerprint, k.ent.PrimaryKey.Fingerprint) {
		return ps.caps&capSign != 0
	}
	for i := range k.ent.Subkeys {
		if bytes.Equal(k.ent.Subkeys[i].PublicKey.Fingerprint, pk.Fingerprint) {
			return k.subkeyState(&k.ent.Subkeys[i], now).caps&capSign != 0
		}
	}
	return false
}

// uidValidity is the bracketed validity gpg 2.2 shows before a user ID in
// a listing, in its fixed-width spellings.
func (lc *listCtx) uidValidity(k *Key, u uidState) string {
	switch u.colon {
	case "r":
		return "[ revoked]"
	case "e":
		return "[ expired]"
	}
	switch lc.uidTrust(k, u.name) {
	case TrustUndefined:
		return "[  undef ]"
	case TrustNever:
		return "[  never ]"
	case TrustMarginal:
		return "[marginal]"
	case TrustFully:
		return "[  full  ]"
	case TrustUltimate:
		return "[ultimate]"
	}
	return "[ unknown]"
}

// hiddenSubkey reports whether gpg's human listing leaves the subkey out:
// one that is revoked or expired, or belongs to a revoked key (gpg's
// list-options show-unusable-subkeys is off by default). Colon listings
// show them all.
func hiddenSubkey(primary, sub keyState) bool {
	return sub.revoked || sub.expired || primary.revoked
}

// revocationReasonText is gpg's wording of a reason-for-revocation code
// (RFC 9580 §5.2.3.31), the code itself for one it does not name.
func revocationReasonText(code uint8) string {
	switch code {
	case 0:
		return "No reason specified"
	case 1:
		return "Key is superseded"
	case 2:
		return "Key has been compromised"
	case 3:
		return "Key is no longer used"
	case 32:
		return "User ID is no longer valid"
	}
	return fmt.Sprintf("Code=%02x", code)
}

// OwnerOfKeyID is the key whose primary key or subkey has the key ID, or
// nil (the first, should two share it).
func (r *Ring) OwnerOfKeyID(id uint64) *Key {
	if id == 0 {
		return nil
	}
	return (&listCtx{keys: r.keys}).signerKey(id, nil)
}
