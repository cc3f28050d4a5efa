package filter

import (
	"bufio"
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/subtle"
	"encoding"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/big"
	"sync/atomic"
	"time"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/internal/asynchash"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// SignerKeys finds the public keys that may have made a signature.
type SignerKeys interface {
	// SignerKeys returns the keys (primary keys or subkeys) with this key
	// ID, and this fingerprint when fpr is not nil, that were valid for
	// signing when the signature was made, each with its state at now,
	// the time of the verification. None means the signer is unknown.
	SignerKeys(keyID uint64, fpr []byte, made, now time.Time) []SignerKey
}

// SignerKey is a key that may have made a signature, as the keyring
// knows it at the time of the verification.
type SignerKey struct {
	Key *gcpacket.PublicKey
	// Revoked says the key, or the certificate it belongs to, is
	// revoked. Its signatures are still checked, to be reported as
	// SigKeyRevoked, never as good.
	Revoked bool
	// Expired is when the key's certificate expired, zero when it had
	// not expired at the time of the verification.
	Expired time.Time
}

// SigStatus is the outcome of checking one signature.
type SigStatus int

const (
	SigGood      SigStatus = iota // made by Key over exactly this data; neither it nor Key has expired or been revoked
	SigBad                        // Key did not make it over this data: the data or the signature was changed
	SigNoKey                      // no key in the ring matches the issuer
	SigError                      // not checkable: unsupported version or algorithm, malformed, unusable key
	SigUnchecked                  // a signature after the literal data with no one-pass packet: see DecryptOptions.LegacyLiteralHash
	// The verdicts on a signature whose mathematics hold, in the order
	// they take precedence (gpg's):
	SigRejected   // its hash is one the caller rejects (RejectHashes)
	SigExpired    // the signature expired before the time of the verification
	SigKeyExpired // Key's certificate has expired since (KeyExpired says when); the signature was made while it was valid
	SigKeyRevoked // Key's certificate is revoked
)

func (s SigStatus) String() string {
	switch s {
	case SigGood:
		return "good"
	case SigBad:
		return "bad"
	case SigNoKey:
		return "no public key"
	case SigError:
		return "error"
	case SigUnchecked:
		return "not checked"
	case SigRejected:
		return "rejected hash"
	case SigExpired:
		return "expired signature"
	case SigKeyExpired:
		return "expired key"
	case SigKeyRevoked:
		return "revoked key"
	}
	return "unknown"
}

// Verified reports whether the signature's mathematics held: Key made
// it over this data. Only SigGood says it may also be relied on.
func (s SigStatus) Verified() bool {
	switch s {
	case SigGood, SigRejected, SigExpired, SigKeyExpired, SigKeyRevoked:
		return true
	}
	return false
}

// Signature forms, as SignatureResult.Form reports them.
const (
	FormOnePass     = "one-pass"           // OPS, literal, signature (RFC 9580 §10.3)
	FormPrefixed    = "signature first"    // signature, literal: the old form, hash known up front
	FormLegacy      = "literal, signature" // what old GnuPG wrote; RFC 2440 never allowed it
	FormDetached    = "detached"
	FormUnannounced = "missing" // a one-pass packet whose signature never came
)

// SignatureResult is one checked signature.
type SignatureResult struct {
	Status SigStatus
	Form   string
	// Sig is the parsed signature, or for FormUnannounced a stand-in
	// built from the one-pass packet. Nil only when the packet did not
	// parse at all.
	Sig *packet.Signature
	Key *gcpacket.PublicKey // the key that checked it (Status.Verified, SigBad)
	// KeyRevoked and KeyExpired are Key's state at the time of the
	// verification, as SignerKeys gave it. Status says which decided
	// the verdict; both are kept, since a key can be expired and revoked.
	KeyRevoked bool
	KeyExpired time.Time
	Err        error // why, for SigBad, SigError, SigUnchecked, SigRejected
	// Digest is the hash value the signature was checked against (over
	// the data and the signature's trailer), when it verified: what
	// identifies the signature in a TOFU history, as gpg records it.
	Digest []byte
}

// sigHash is one running hash over the literal data. Signatures that
// need the same hash (algorithm, salt and text mode) share it.
type sigHash struct {
	algo  packet.HashAlgo
	salt  string
	text  bool
	h     hash.Hash
	w     io.Writer // h, or the CRLF canonicalizer in front of it
	spent bool      // h was handed to a check and could not be cloned
}

// pendingSig is a signature waiting for its data: announced by a one-pass
// packet, or read before the literal data.
type pendingSig struct {
	ops  *packet.OnePassSignature
	sig  *packet.Signature
	form string
	hh   *sigHash
}

// SHA1Cutoff is when SHA-1 stopped being acceptable for data signatures:
// a signature over a document needs collision resistance, which SHA-1 no
// longer has (RFC 9580 §9.5 retires it for signatures); the date is the
// one Sequoia's standard policy uses for that purpose. A SHA-1 signature made
// after it is refused unless AllowWeakDigests is set (gpg's
// --allow-weak-digest-algos); one made before is still checked, so old
// archives keep verifying.
var SHA1Cutoff = time.Date(2013, time.February, 1, 0, 0, 0, 0, time.UTC)

// ErrWeakDigest is the reason a signature was refused for its hash.
var ErrWeakDigest = errors.New("signature uses a hash algorithm too weak for a data signature")

// policy refuses what must not be checked at all.
func (v *verifier) policy(sig *packet.Signature) error {
	if sig.Hash == packet.HashSHA1 && !v.allowWeak && !sig.Created.Before(SHA1Cutoff) {
		return fmt.Errorf("%w: SHA1, made %s, after SHA-1 data signatures were retired on %s",
			ErrWeakDigest, sig.Created.UTC().Format("2006-01-02"), SHA1Cutoff.Format("2006-01-02"))
	}
	return nil
}

// ErrNotAuthentic is wrapped by what UnencryptedAuthentic returns.
var ErrNotAuthentic = errors.New("nothing vouches for the data of this unencrypted message")

// NotAuthenticError says why the signatures of an unencrypted message do
// not vouch for its data.
type NotAuthenticError struct {
	Reason string
	// Tampered is set when the message carries evidence of a change: a
	// bad signature, a one-pass packet whose signature is missing, one
	// that does not match it. Otherwise the signatures only fail to
	// prove anything (none, unknown signers, unchecked forms).
	Tampered bool
}

func (e *NotAuthenticError) Error() string { return e.Reason }
func (e *NotAuthenticError) Unwrap() error { return ErrNotAuthentic }

// UnencryptedAuthentic is the one rule for releasing the data of a
// message that was not encrypted, where no MDC or AEAD tag protects it and
// its signatures are all there is. Given the message's signatures
// (Result.Signatures), it returns nil only when at least one verified
// good, none is bad, none was made by a revoked key, and every one-pass
// packet has its own signature, matching it in hash, type and issuer: so
// stripping a signature, changing its issuer, or adding or removing
// signature packets withholds the data rather than leaving it unsigned.
// A signature by a key that has expired since it was made (SigKeyExpired)
// counts as good, and so does an expired signature (SigExpired): it was
// made by its key over this data, and its verdict says it expired. A
// signature whose hash the caller rejects (SigRejected) proves nothing.
// Otherwise it returns a *NotAuthenticError.
func UnencryptedAuthentic(sigs []SignatureResult) error {
	good, onePass, legacy := 0, 0, 0
	for _, r := range sigs {
		switch r.Form {
		case FormOnePass, FormUnannounced:
			onePass++
		case FormLegacy:
			legacy++
		}
	}
	if onePass > 0 && legacy > 0 {
		return &NotAuthenticError{"more signatures follow the data than one-pass packets announced: the message was altered", true}
	}
	var unproven string
	revoked := false
	for _, r := range sigs {
		switch {
		case r.Status == SigBad:
			return &NotAuthenticError{"BAD signature on an unencrypted message", true}
		case r.Form == FormUnannounced:
			return &NotAuthenticError{"a one-pass signature packet has no signature after the data: the message was cut or altered", true}
		case r.Status.Verified() && r.KeyRevoked:
			// Whatever its mathematics say, a revoked key's
			// signature proves nothing, and another signature
			// beside it does not make up for it.
			revoked = true
		case r.Status == SigGood || r.Status == SigKeyExpired || r.Status == SigExpired:
			good++
		case unproven == "":
			unproven = r.Status.String()
			if r.Err != nil {
				unproven = r.Err.Error()
			}
		}
	}
	switch {
	case len(sigs) == 0:
		return &NotAuthenticError{"the message is neither encrypted nor signed: nothing vouches for its data", false}
	case revoked:
		return &NotAuthenticError{"the signer's key is revoked", true}
	case good == 0:
		return &NotAuthenticError{"no signature on the unencrypted message verified (" + unproven + ")", false}
	}
	return nil
}

// verifier follows the signature packets around the literal data, runs
// exactly the hashes they need over it, and checks them.
//
// Copies per byte: none. The hashes read the same slices the output gets.
type verifier struct {
	keys   SignerKeys
	legacy bool // DecryptOptions.LegacyLiteralHash
	// allowWeak checks SHA-1 signatures made after SHA1Cutoff too.
	allowWeak bool
	now       time.Time                // the time of the verification: DecryptOptions.Time
	reject    map[packet.HashAlgo]bool // DecryptOptions.RejectHashes
	res       *Result
	hashes    []*sigHash
	ops       []*pendingSig // announced, in packet order; signatures pop from the end
	pre       []*pendingSig // signature-first, waiting for the literal
	sawLit    bool
	litHash   []*sigHash // the legacy SHA-1 and RIPEMD-160 hashes, if run
	results   []SignatureResult
	async     *asynchash.Hasher // feeds the hashes during the literal data
	// rawText hashes text signatures' data as it is, with no CR LF
	// conversion: a not dash-escaped cleartext is signed so (gpg's
	// control packet gives it sigclass 0, which hashes it as binary).
	rawText bool
}

// wait lets the hashes catch up with the literal data and stops their
// goroutine; the hashes are the verifier's own again afterwards.
func (v *verifier) wait() {
	if v.async != nil {
		v.async.Close()
	}
}

func (v *verifier) hashFor(algo packet.HashAlgo, salt []byte, text bool) *sigHash {
	for _, sh := range v.hashes {
		if sh.algo == algo && sh.salt == string(salt) && sh.text == text && !sh.spent {
			return sh
		}
	}
	h := algo.New()
	if h == nil {
		return nil
	}
	h.Write(salt)
	sh := &sigHash{algo: algo, salt: string(salt), text: text, h: h, w: h}
	if text && !v.rawText {
		sh.w = &crlfWriter{w: h}
	}
	v.hashes = append(v.hashes, sh)
	v.res.Hashes = append(v.res.Hashes, algo)
	return sh
}

// onePass reads a one-pass signature packet.
func (v *verifier) onePass(body *packet.Body, h packet.Header) error {
	b, err := body.ReadAll(maxSmallPacket)
	if err != nil {
		return err
	}
	ops, err := packet.ParseOnePassSignature(b, h.Offset)
	if err != nil {
		// Its signature will still come and be reported then.
		v.ops = append(v.ops, &pendingSig{form: FormOnePass})
		return nil
	}
	if v.sawLit {
		v.results = append(v.results, SignatureResult{Status: SigError, Form: FormOnePass, Sig: opsStandIn(ops),
			Err: errors.New("one-pass signature packet after the literal data")})
		return nil
	}
	p := &pendingSig{ops: ops, form: FormOnePass}
	if ops.SigType == packet.SigBinary || ops.SigType == packet.SigText {
		p.hh = v.hashFor(ops.Hash, ops.Salt, ops.SigType == packet.SigText)
	}
	v.ops = append(v.ops, p)
	return nil
}

// signature reads a signature packet: before the literal data it is the
// old signature-first form; after it, it closes a one-pass signature or is
// old GnuPG's literal-then-signature form.
func (v *verifier) signature(body *packet.Body, h packet.Header) error {
	b, err := body.ReadAll(maxSmallPacket)
	if err != nil {
		return err
	}
	sig, perr := packet.ParseSignature(b, h.Offset)
	if !v.sawLit {
		if perr != nil {
			v.results = append(v.results, SignatureResult{Status: SigError, Form: FormPrefixed, Err: perr})
			return nil
		}
		p := &pendingSig{sig: sig, form: FormPrefixed}
		if sig.SigType == packet.SigBinary || sig.SigType == packet.SigText {
			p.hh = v.hashFor(sig.Hash, sig.Salt, sig.SigType == packet.SigText)
		}
		v.pre = append(v.pre, p)
		return nil
	}
	if n := len(v.ops); n > 0 {
		p := v.ops[n-1]
		v.ops = v.ops[:n-1]
		if perr != nil {
			v.results = append(v.results, SignatureResult{Status: SigError, Form: FormOnePass, Err: perr})
			return nil
		}
		p.sig = sig
		v.results = append(v.results, v.check(p))
		return nil
	}
	if perr != nil {
		v.results = append(v.results, SignatureResult{Status: SigError, Form: FormLegacy, Err: perr})
		return nil
	}
	if !v.legacy {
		v.results = append(v.results, SignatureResult{Status: SigUnchecked, Form: FormLegacy, Sig: sig,
			Err: errors.New("a signature after the literal data without a one-pass packet was not checked")})
		return nil
	}
	p := &pendingSig{sig: sig, form: FormLegacy}
	for _, sh := range v.litHash {
		if sh.algo == sig.Hash && sig.SigType == packet.SigBinary && sig.Salt == nil {
			p.hh = sh
		}
	}
	if p.hh == nil {
		v.results = append(v.results, SignatureResult{Status: SigError, Form: FormLegacy, Sig: sig,
			Err: fmt.Errorf("the literal data was hashed with SHA1 and RIPEMD160 only, the signature needs %v (type %#02x)", sig.Hash, sig.SigType)})
		return nil
	}
	v.results = append(v.results, v.check(p))
	return nil
}

// literal is called when the literal data starts; it returns the writer
// the data goes through on its way to out: out itself when nothing is
// hashed.
func (v *verifier) literal(out io.Writer) io.Writer {
	v.sawLit = true
	if len(v.ops) == 0 && len(v.pre) == 0 && v.legacy {
		// Old GnuPG put the signature after the data with nothing
		// before it to say which hash it used; GnuPG guesses the two
		// it used to default to. Only on request: it costs two hashes
		// over every unsigned message.
		for _, a := range []packet.HashAlgo{packet.HashSHA1, packet.HashRIPEMD160} {
			v.litHash = append(v.litHash, v.hashFor(a, nil, false))
		}
	}
	return v.writer(out)
}

// writer returns out with every running hash fed from the same slices.
func (v *verifier) writer(out io.Writer) io.Writer {
	if len(v.hashes) == 0 {
		return out
	}
	ws := make([]io.Writer, 0, len(v.hashes))
	for _, sh := range v.hashes {
		ws = append(ws, sh.w)
	}
	// On their own goroutine, so the hashing (SHA-512 or SHA-256 over
	// the whole literal, the slowest primitive of a signed message)
	// overlaps the decryption and the output's write(2)s.
	v.async = asynchash.New(ws...)
	if ow, ok := out.(iobuf.OwnedWriter); ok {
		return &ownedTee{teeWriter{hashes: v.async, out: out}, ow}
	}
	return &teeWriter{hashes: v.async, out: out}
}

// teeWriter hashes what it writes. It is not io.MultiWriter because a
// hash never fails and the output's errors must come back unchanged.
type teeWriter struct {
	hashes *asynchash.Hasher
	out    io.Writer
}

func (t *teeWriter) Write(p []byte) (int, error) {
	n, err := t.out.Write(p)
	t.hashes.Write(p[:n])
	return n, err
}

// ownedTee is teeWriter for an output that takes lent buffers: the
// hashes read a lent buffer in place too, and it is released once both
// are done with it.
type ownedTee struct {
	teeWriter
	ow iobuf.OwnedWriter
}

func (t *ownedTee) WriteOwned(p []byte, release func()) error {
	var refs atomic.Int32
	refs.Store(2)
	done := func() {
		if refs.Add(-1) == 0 {
			release()
		}
	}
	t.hashes.WriteShared(p, done)
	return t.ow.WriteOwned(p, done)
}

func (t *ownedTee) Wait() error { return t.ow.Wait() }

// finish checks the signature-first signatures, reports one-pass
// packets whose signature never came, and returns every result in packet
// order.
func (v *verifier) finish() []SignatureResult {
	v.wait()
	for _, p := range v.pre {
		if !v.sawLit {
			v.results = append(v.results, SignatureResult{Status: SigError, Form: p.form, Sig: p.sig,
				Err: errors.New("no literal data follows the signature")})
			continue
		}
		v.results = append(v.results, v.check(p))
	}
	v.pre = nil
	for i := len(v.ops) - 1; i >= 0; i-- {
		p := v.ops[i]
		r := SignatureResult{Status: SigError, Form: FormUnannounced, Err: errors.New("the signature a one-pass packet announced is missing")}
		if p.ops != nil {
			r.Sig = opsStandIn(p.ops)
		}
		v.results = append(v.results, r)
	}
	v.ops = nil
	return v.results
}

// opsStandIn describes the signature a one-pass packet announced, for
// reports about it.
func opsStandIn(o *packet.OnePassSignature) *packet.Signature {
	ver := 4
	if o.Version == 6 {
		ver = 6
	}
	return &packet.Signature{Version: ver, SigType: o.SigType, PubKeyAlgo: o.PubKeyAlgo, Hash: o.Hash,
		Salt: o.Salt, IssuerKeyID: o.KeyID, IssuerFingerprint: o.Fingerprint}
}

// check verifies one signature against its hash.
func (v *verifier) check(p *pendingSig) SignatureResult {
	v.wait()
	sig := p.sig
	r := SignatureResult{Form: p.form, Sig: sig, Status: SigError}
	if p.ops != nil {
		o := p.ops
		// The one-pass packet chose the hash; a signature that does not
		// match it was not computed over what was hashed.
		// Nor one by another issuer: the one-pass packet named who
		// signed, and its signature must say the same.
		if o.Hash != sig.Hash || o.SigType != sig.SigType || !bytes.Equal(o.Salt, sig.Salt) ||
			(o.Version == 6) != (sig.Version == 6) ||
			(o.Fingerprint != nil && !bytes.Equal(o.Fingerprint, sig.IssuerFingerprint)) ||
			(o.Version != 6 && o.KeyID != 0 && o.KeyID != sig.IssuerKeyID) {
			r.Status = SigBad
			r.Err = errors.New("the signature does not match its one-pass signature packet")
			return r
		}
	}
	if sig.SigType != packet.SigBinary && sig.SigType != packet.SigText {
		r.Err = fmt.Errorf("signature type %#02x is not a document signature", sig.SigType)
		return r
	}
	if p.hh == nil {
		r.Err = &packet.UnsupportedError{Packet: "signature", Offset: -1, What: "hash algorithm " + sig.Hash.String()}
		return r
	}
	if err := v.policy(sig); err != nil {
		r.Err = err
		return r
	}
	gs, err := goCryptoSignature(sig)
	if err != nil {
		r.Err = err
		return r
	}
	var keys []SignerKey
	now := v.now
	if now.IsZero() {
		now = clock.Now()
	}
	if v.keys != nil {
		keys = v.keys.SignerKeys(sig.IssuerKeyID, sig.IssuerFingerprint, sig.Created, now)
	}
	if len(keys) == 0 {
		r.Status = SigNoKey
		return r
	}
	for i, k := range keys {
		hc, err := p.hh.clone()
		if err != nil {
			r.Err = err
			return r
		}
		h := &summingHash{Hash: hc}
		if gs.Hash == crypto.RIPEMD160 && (k.Key.PubKeyAlgo == gcpacket.PubKeyAlgoRSA || k.Key.PubKeyAlgo == gcpacket.PubKeyAlgoRSASignOnly) {
			err = verifyRSARIPEMD160(k.Key, h, gs)
		} else {
			err = k.Key.VerifySignature(h, gs)
		}
		if err == nil {
			r.Key, r.KeyRevoked, r.KeyExpired, r.Err = k.Key, k.Revoked, k.Expired, nil
			r.Digest = h.sum
			r.Status = v.verdict(sig, k, now)
			if r.Status == SigRejected {
				r.Err = fmt.Errorf("%w: %v", ErrRejectedHash, sig.Hash)
			}
			return r
		}
		if i == 0 {
			r.Status, r.Key, r.KeyRevoked, r.KeyExpired, r.Err = SigBad, k.Key, k.Revoked, k.Expired, err
		}
		// go-crypto appends to HashSuffix for v5; parse afresh for the next key.
		if gs, err = goCryptoSignature(sig); err != nil {
			r.Status, r.Err = SigError, err
			return r
		}
	}
	return r
}

// summingHash keeps the value its last Sum returned: the verification
// (go-crypto's or verifyRSARIPEMD160) finishes the hash itself, and the
// value is the signature's digest.
type summingHash struct {
	hash.Hash
	sum []byte
}

func (h *summingHash) Sum(b []byte) []byte {
	out := h.Hash.Sum(b)
	h.sum = out[len(b):]
	return out
}

// ErrRejectedHash is the reason for SigRejected.
var ErrRejectedHash = errors.New("signature uses a hash algorithm that is rejected")

// verdict is what a signature whose mathematics hold is worth at now:
// gpg's precedence, the rejected hash first, then the signature's own
// expiry, then its key's, then the revocation.
func (v *verifier) verdict(sig *packet.Signature, k SignerKey, now time.Time) SigStatus {
	switch {
	case v.reject[sig.Hash]:
		return SigRejected
	case sig.ExpiredAt(now):
		return SigExpired
	case !k.Expired.IsZero():
		return SigKeyExpired
	case k.Revoked:
		return SigKeyRevoked
	}
	return SigGood
}

// clone returns a hash in the state of sh.h for one check to finish,
// leaving sh.h for the next; the standard library's hashes can do this
// through their binary marshaling. A hash that cannot (RIPEMD-160) is
// handed over itself, once.
func (sh *sigHash) clone() (hash.Hash, error) {
	if sh.spent {
		return nil, fmt.Errorf("%v hash already used by another signature", sh.algo)
	}
	if m, ok := sh.h.(encoding.BinaryMarshaler); ok {
		state, err := m.MarshalBinary()
		if err == nil {
			n := sh.algo.New()
			if u, ok := n.(encoding.BinaryUnmarshaler); ok && u.UnmarshalBinary(state) == nil {
				return n, nil
			}
		}
	}
	sh.spent = true
	return sh.h, nil
}

// goCryptoSignature parses sig's packet with go-crypto, which does the
// public-key arithmetic.
func goCryptoSignature(sig *packet.Signature) (*gcpacket.Signature, error) {
	body := sig.V4Body()
	// go-crypto parses no RIPEMD-160 signature; gpg 2.2 verifies them
	// (GPGME's test messages have some). It is parsed as SHA-256 and
	// given its own hash back: the hashed trailer is the packet's, and
	// the arithmetic takes the digest pgpstream computed.
	rmd := len(body) > 3 && body[0] == 4 && packet.HashAlgo(body[3]) == packet.HashRIPEMD160
	if rmd {
		body = append([]byte(nil), body...)
		body[3] = byte(packet.HashSHA256)
	}
	raw := packet.AppendHeader(make([]byte, 0, len(body)+6), packet.TagSignature, int64(len(body)))
	raw = append(raw, body...)
	p, err := gcpacket.Read(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	gs, ok := p.(*gcpacket.Signature)
	if !ok {
		return nil, errors.New("not a signature packet")
	}
	if rmd {
		gs.Hash = crypto.RIPEMD160
		if len(gs.HashSuffix) > 3 {
			gs.HashSuffix[3] = byte(packet.HashRIPEMD160)
		}
	}
	if t := sig.V3Trailer(); t != nil {
		gs.HashSuffix = append([]byte(nil), t...)
	}
	return gs, nil
}

// rmd160DigestInfo is the DER prefix OpenPGP puts before a RIPEMD-160
// digest in an RSA signature (RFC 4880 §5.2.2: OID 1.3.36.3.2.1). Go's
// crypto/rsa has another (ISO's 1.0.10118.3.0.49), so it rejects every
// OpenPGP RIPEMD-160 RSA signature; this check is the one pgpstream does.
var rmd160DigestInfo = []byte{0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x24, 0x03, 0x02, 0x01, 0x05, 0x00, 0x04, 0x14}

// verifyRSARIPEMD160 checks an RSA signature over a RIPEMD-160 digest:
// EMSA-PKCS1-v1_5 (RFC 8017 §9.2) with OpenPGP's DigestInfo, compared
// whole in constant time.
func verifyRSARIPEMD160(k *gcpacket.PublicKey, h hash.Hash, gs *gcpacket.Signature) error {
	pub, ok := k.PublicKey.(*rsa.PublicKey)
	if !ok || gs.RSASignature == nil {
		return errors.New("RSA verification failure: not an RSA key")
	}
	h.Write(gs.HashSuffix)
	digest := h.Sum(nil)
	if digest[0] != gs.HashTag[0] || digest[1] != gs.HashTag[1] {
		return errors.New("RSA verification failure: hash tag doesn't match")
	}
	size := pub.Size()
	sv := new(big.Int).SetBytes(gs.RSASignature.Bytes())
	if sv.Cmp(pub.N) >= 0 || size < 11+len(rmd160DigestInfo)+len(digest) {
		return errors.New("RSA verification failure")
	}
	em := new(big.Int).Exp(sv, big.NewInt(int64(pub.E)), pub.N).FillBytes(make([]byte, size))
	want := make([]byte, size)
	want[1] = 1
	t := size - len(rmd160DigestInfo) - len(digest)
	for i := 2; i < t-1; i++ {
		want[i] = 0xff
	}
	copy(want[t:], rmd160DigestInfo)
	copy(want[t+len(rmd160DigestInfo):], digest)
	if subtle.ConstantTimeCompare(em, want) != 1 {
		return errors.New("RSA verification failure")
	}
	return nil
}

// crlfWriter canonicalizes text for a text-mode signature (RFC 9580
// §5.2.1.2): every line ending is hashed as CR LF. It scans for LF with
// IndexByte and writes the runs between in bulk.
type crlfWriter struct {
	w      io.Writer
	lastCR bool
}

func (c *crlfWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.w.Write(p)
			c.lastCR = p[len(p)-1] == '\r'
			break
		}
		prevCR := c.lastCR
		if i > 0 {
			prevCR = p[i-1] == '\r'
		}
		if prevCR {
			c.w.Write(p[:i+1])
		} else {
			c.w.Write(p[:i])
			c.w.Write(crlf)
		}
		c.lastCR = false
		p = p[i+1:]
	}
	return n, nil
}

var crlf = []byte{'\r', '\n'}

// VerifyOptions configure VerifyDetached.
type VerifyOptions struct {
	Signers SignerKeys
	Events  Events // told about each signature; nil for none
	// AllowWeakDigests checks SHA-1 signatures made after SHA1Cutoff
	// instead of refusing them.
	AllowWeakDigests bool
	// RejectHashes are hashes whose signatures prove nothing
	// (SigRejected), gpg's --weak-digest.
	RejectHashes map[packet.HashAlgo]bool
	// Time is when the verification happens, for the expiry and
	// revocation of signatures and keys; zero is clock.Now().
	Time time.Time
}

// VerifyDetached checks the detached signatures in sig (binary or
// armored) over data. It returns an error only when sig holds no
// signature or a stream fails; the outcome of each check is in the
// results.
func VerifyDetached(sig, data io.Reader, opt VerifyOptions) ([]SignatureResult, error) {
	r, text, err := openSignatures(sig)
	if err != nil {
		return nil, err
	}
	v := &verifier{keys: opt.Signers, res: &Result{}, allowWeak: opt.AllowWeakDigests, reject: opt.RejectHashes, now: opt.Time}
	defer v.wait()
	for {
		if err := v.signatures(r, "a detached signature"); err != nil {
			return nil, err
		}
		// Armored signatures written one after the other (two signers'
		// .asc files concatenated) are each checked, as gpg does.
		if text == nil || !armorFollows(text) {
			break
		}
		ar, err := armor.NewReader(text)
		if err != nil {
			return nil, err
		}
		r = iobuf.NewReader(ar, 64<<10)
	}
	if len(v.pre) == 0 && len(v.results) == 0 {
		return nil, errors.New("no signature found")
	}
	w := v.literal(io.Discard)
	// Read in large blocks: each Write into a hash has a fixed cost, and
	// io.Copy would read 32 KiB at a time or hand the work to the
	// source's WriteTo.
	buf := make([]byte, iobuf.DefaultSize)
	for {
		n, err := data.Read(buf)
		w.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the signed data: %w", err)
		}
	}
	res := v.finish()
	for i := range res {
		res[i].Form = FormDetached
	}
	if opt.Events != nil {
		for _, r := range res {
			opt.Events.Signature(r)
		}
	}
	return res, nil
}

// openSignatures opens a detached signature, binary or armored; for an
// armored one it also returns the text under the armor, positioned past
// the block's END line, where another block may follow.
func openSignatures(sig io.Reader) (iobuf.Reader, *bufio.Reader, error) {
	src, ok := sig.(iobuf.Reader)
	if !ok {
		src = iobuf.NewReader(sig, 64<<10)
	}
	head, err := src.Peek(64)
	if len(head) == 0 {
		if err == nil || errors.Is(err, io.EOF) {
			return nil, nil, errors.New("the signature file is empty")
		}
		return nil, nil, err
	}
	if !armor.IsArmored(head) && !armoredAfterText(src, head) {
		return src, nil, nil
	}
	text := bufio.NewReaderSize(src, armor.BufSize)
	ar, err := armor.NewReader(text)
	if err != nil {
		return nil, nil, err
	}
	return iobuf.NewReader(ar, 64<<10), text, nil
}

// armorFollows reports whether another armored block begins in text,
// after blank lines.
func armorFollows(text *bufio.Reader) bool {
	for {
		b, err := text.Peek(1)
		if len(b) == 0 || err != nil {
			return false
		}
		if b[0] != '\n' && b[0] != '\r' && b[0] != ' ' && b[0] != '\t' {
			break
		}
		text.ReadByte()
	}
	head, _ := text.Peek(64)
	return armor.IsArmored(head)
}

// signatures reads a block that holds only signature packets (markers and
// padding aside), what, as a detached signature or the signature block of
// a cleartext-signed text is, and prepares each signature's check.
func (v *verifier) signatures(r iobuf.Reader, what string) error {
	for {
		h, err := packet.ReadHeader(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		body := packet.NewBody(r, h)
		switch h.Tag {
		case packet.TagSignature:
			if err := v.signature(body, h); err != nil {
				return err
			}
		case packet.TagMarker, packet.TagPadding:
			if err := body.Discard(); err != nil {
				return err
			}
		default:
			return &packet.StructuralError{Packet: h.Tag.String(), Offset: h.Offset, Msg: what + " holds only signature packets"}
		}
	}
}
