package main

import (
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/agent"
	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/output"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/internal/escape"
	"github.com/pgpstream/pgpstream/internal/mailbox"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
)

// signersFor unlocks the keys named by --local-user (or the first secret
// key in the ring) for signing with --digest-algo.
func signersFor(st *state, o *options, pp *passphrases) ([]filter.Signer, error) {
	algo := o.digest
	ring, err := openRing(st, o)
	if err != nil {
		return nil, err
	}
	now := clock.Now()
	var keys []*keyring.Key
	var forced [][]byte
	specs := o.localUsers
	if len(specs) == 0 {
		k, err := defaultSigner(ring, o)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
		forced = append(forced, nil)
	}
	for _, spec := range specs {
		k, err := ring.Lookup(spec, true)
		if err != nil {
			// gpg's lines for a -u with no secret key: INV_SGNR 9 (no
			// secret key; 0 for another reason), then FAILURE sign
			// with GPG_ERR_NO_SECKEY. GPGME reports the invalid signer.
			if sw, serr := openStatus(st, o); serr == nil {
				reason := 0
				if errors.Is(err, keyring.ErrNoKey) {
					reason = 9
				}
				sw.Write(status.InvSgnr{Reason: reason, Spec: status.Text(spec)})
				statusFailureCode(sw, "sign", 17)
			}
			return nil, withHints(fmt.Errorf("--local-user %q: %w", spec, err), "list the secret keys you have with pgpstream --list-secret-keys")
		}
		keys = append(keys, k)
		id, _ := keyring.ForcedKey(spec) // KEY!: that very (sub)key
		forced = append(forced, id)
	}
	var out []filter.Signer
	for i, k := range keys {
		priv, err := k.SigningKey(now, forced[i])
		if err != nil {
			if forced[i] == nil && !errors.Is(err, keyring.ErrNoSigningSecret) {
				return nil, fmt.Errorf("skipped %s (%s): Unusable secret key: no valid signing key (expired, revoked, or not made for signing)", k.Fingerprint(), k.PrimaryUserID())
			}
			return nil, err
		}
		if priv.Encrypted {
			// internal/ask: the given passphrase, the agent's cache, or asked
			// (after gpg's USERID_HINT and NEED_PASSPHRASE).
			err := pp.UnlockKey(priv, fmt.Sprintf("Enter the passphrase to unlock the secret key %016X of %s to sign.", priv.KeyId, escape.Quoted(k.PrimaryUserID())),
				func(pass []byte) error { return keyring.Unlock(priv, pass) }, needPassphrase(st, o, k, priv))
			if errors.Is(err, errNoPassphrase) {
				return nil, withHints(fmt.Errorf("secret key %016X is protected by a passphrase and none was given", priv.KeyId), "give it with --passphrase-file FILE or --passphrase-fd N")
			}
			if err != nil {
				return nil, fmt.Errorf("secret key %016X: %w", priv.KeyId, err)
			}
		}
		h, err := hashFor(priv, algo)
		if err != nil && !o.digestSet {
			// A preference (personal-digest-preferences) the key
			// cannot sign with gives way to the key's own choice.
			h, err = hashFor(priv, 0)
		}
		if err != nil {
			return nil, err
		}
		st.infof("signing with %X (%s), %v", priv.Fingerprint, k.PrimaryUserID(), h)
		sg := filter.Signer{Key: priv, Hash: h, Notations: o.sigNotations, PolicyURI: o.sigPolicyURL}
		if ak := agent.AgentKey(priv); ak != nil {
			sg.SignError = ak.SignError // the agent signs; it says why it did not
		}
		out = append(out, sg)
		if st.signerOwners == nil {
			st.signerOwners = map[*gcpacket.PrivateKey]*keyring.Key{}
		}
		st.signerOwners[priv] = k
	}
	return out, nil
}

// hashFor is filter's choice of the signature hash (filter.HashFor), a
// hash the key cannot sign with being a usage error naming --digest-algo.
func hashFor(priv *gcpacket.PrivateKey, asked packet.HashAlgo) (packet.HashAlgo, error) {
	h, err := filter.HashFor(&priv.PublicKey, asked)
	if he := (*filter.HashError)(nil); errors.As(err, &he) {
		return 0, usagef("--digest-algo %v: %s", he.Hash, he.Reason)
	}
	return h, err
}

// sigCreated reports the signers as gpg does: KEY_CONSIDERED for each
// signer's certificate and BEGIN_SIGNING with the hashes before the
// data, and SIG_CREATED for each signature once it is made.
func sigCreated(st *state, signers []filter.Signer, sw *statusWriter, kind string) {
	if sw == nil {
		return
	}
	now := clock.Now()
	hashes := ""
	for i := range signers {
		// 2: gpg's flag for a certificate looked up to sign with,
		// whose other (encryption) subkeys did not qualify.
		keyConsidered(sw, st.signerOwners[signers[i].Key], now, 2)
		if hashes != "" {
			hashes += " "
		}
		h := signers[i].Hash
		if k := signers[i].Key; k != nil {
			if used, err := filter.HashFor(&k.PublicKey, h); err == nil {
				h = used // what filter signs with: for 0, the key's minimum
			}
		}
		hashes += fmt.Sprintf("H%d", int(h))
	}
	if len(signers) > 0 {
		sw.Write(status.BeginSigning{Hashes: status.Text(hashes)})
	}
	for i := range signers {
		signers[i].Made = func(sig *gcpacket.Signature) {
			sw.Write(status.SigCreated{Kind: kind, PubAlgo: int(sig.PubKeyAlgo), Hash: int(packet.HashAlgoOf(sig.Hash)), Class: fmt.Sprintf("%02X", uint8(sig.SigType)), Time: sig.CreationTime.Unix(), Fpr: fmt.Sprintf("%X", sig.IssuerFingerprint)})
		}
	}
}

// cmdSign makes a signed message (--sign) or a detached signature
// (--detach-sign), not encrypted.
func cmdSign(st *state, o *options, detached bool) error {
	// -z means what it means for --encrypt (options.check).
	opt := filter.SignOptions{Armor: o.armor}
	if !detached {
		opt.Compress = o.compress
		if o.level > 0 {
			opt.Level = o.level
		}
	}
	signers, err := signersFor(st, o, newPassphrases(st, o))
	if err != nil {
		return err
	}
	sw, err := openStatus(st, o)
	if err != nil {
		return err
	}
	kind := "S"
	if detached {
		kind = "D"
	}
	sigCreated(st, signers, sw, kind)
	opt.Signers = signers
	open := openInput
	if detached && len(o.args) > 1 {
		open = openConcatenated
	}
	in, inName, closeIn, err := open(st, o)
	if err != nil {
		return err
	}
	defer closeIn()
	outPath := o.output
	if outPath.none() && inName != "" {
		// gpg's default: FILE.sig for a detached signature, FILE.gpg
		// for a signed message, FILE.asc for either armored.
		switch {
		case opt.Armor:
			outPath = pathArg(inName + ".asc")
		case detached:
			outPath = pathArg(inName + ".sig")
		default:
			outPath = pathArg(inName + ".gpg")
		}
	}
	opt.Literal = literalFor(inName, o)
	if o.textmode {
		// gpg's --textmode: a text signature (0x01) over the canonical
		// text, which a signed message carries in a 't' literal packet.
		in = filter.NewTextReader(in)
		opt.Literal.Format = 't'
		opt.Text = true
	}
	out, err := openMessageOutput(st, o, inName, outPath, opt.Armor, "OpenPGP data")
	if err != nil {
		return err
	}
	if detached {
		_, err = filter.DetachSign(in, out.W, opt)
	} else {
		_, err = filter.Sign(in, out.W, opt)
	}
	if err != nil {
		out.Abort()
		statusFailure(sw, "sign", err)
		return err
	}
	return out.Commit()
}

// cmdStore is gpg's --store: the input in a literal data packet,
// compressed with -z as a signed message is, and nothing else. gpg
// writes FILE.gpg (FILE.asc armored) for a file, as for -s.
func cmdStore(st *state, o *options) error {
	opt := filter.SignOptions{Armor: o.armor, Compress: o.compress, Level: o.level}
	in, inName, closeIn, err := openInput(st, o)
	if err != nil {
		return err
	}
	defer closeIn()
	outPath := messageOutPath(o, inName, opt.Armor)
	opt.Literal = literalFor(inName, o)
	if o.textmode {
		in = filter.NewTextReader(in)
		opt.Literal.Format = 't'
	}
	out, err := openMessageOutput(st, o, inName, outPath, opt.Armor, "OpenPGP data")
	if err != nil {
		return err
	}
	if _, err := filter.Store(in, out.W, opt); err != nil {
		out.Abort()
		return err
	}
	return out.Commit()
}

// openConcatenated is the input of a detached signature over several
// files, as gpg makes one: the files one after another, read in order.
// The output is named after the first. (gpg --verify SIG - checks it with
// the files concatenated on standard input.)
func openConcatenated(st *state, o *options) (io.Reader, string, func(), error) {
	var dones []func()
	closeAll := func() {
		for _, done := range dones {
			done()
		}
	}
	var rs []io.Reader
	first := ""
	for i, name := range o.args {
		if name == "-" {
			closeAll()
			return nil, "", nil, usagef("a detached signature over several files reads no standard input")
		}
		r, path, done, err := openArg(st, o, name)
		if err != nil {
			closeAll()
			return nil, "", nil, err
		}
		if i == 0 {
			first = path
		}
		dones = append(dones, done)
		rs = append(rs, r)
	}
	return io.MultiReader(rs...), first, closeAll, nil
}

// gpgAlgoName is gpg's name for a public-key algorithm in its messages
// ("using RSA key", "encrypted with ECDH key"), "algorithm N" for one it
// does not name.
func gpgAlgoName[T ~uint8](a T) string {
	if n := packet.PubKeyAlgo(a).GPGName(); n != "" {
		return n
	}
	return fmt.Sprintf("algorithm %d", uint8(a))
}

// sigReporter writes the human lines and status lines for each signature
// and keeps the worst outcome for the exit code.
type sigReporter struct {
	st     *state
	status *statusWriter
	ring   *keyring.Ring // the signers' keys (filter.SignerKeys) and their validity
	// trustModel is the model the signer's validity is reported under.
	trustModel string
	good       int
	bad        int
	errs       int
	skipped    int
}

// report writes what gpg writes for one signature: "Signature made" and
// "Good signature from" on standard error, NEWSIG, GOODSIG/BADSIG/ERRSIG,
// VALIDSIG, NO_PUBKEY on the status descriptor (GnuPG's doc/DETAILS).
func (s *sigReporter) report(r filter.SignatureResult) {
	st := s.st
	sig := r.Sig
	if r.Status == filter.SigUnchecked {
		s.skipped++
		st.warnf("a signature follows the literal data with no one-pass packet before it (old GnuPG's form); it was not checked")
		st.hintf("--legacy-literal-hash checks it, at the cost of hashing every literal packet with SHA1 and RIPEMD160")
		return
	}
	signerUID := ""
	if sig != nil {
		signerUID = sig.SignerUserID
	}
	if signerUID != "" {
		s.status.Write(status.NewSig{SignerUID: gpgSignerUID(signerUID)})
	} else {
		s.status.Write(status.NewSig{})
	}
	if sig == nil {
		s.errs++
		st.say("Can't check signature: %s", oneLine(r.Err.Error()))
		s.status.Write(status.ErrSig{KeyID: "0000000000000000", PubAlgo: 0, Hash: 0, Class: "00", Time: 0, RC: 4, Fpr: "-"})
		return
	}
	keyID := fmt.Sprintf("%016X", sig.IssuerKeyID)
	// The "using" line names the issuer as the signature does (its
	// issuer fingerprint, else its key ID), as gpg's does; VALIDSIG the
	// key that checked it.
	issuer := keyID
	if sig.IssuerFingerprint != nil {
		issuer = fmt.Sprintf("%X", sig.IssuerFingerprint)
	}
	named := issuer
	if r.Key != nil {
		issuer = fmt.Sprintf("%X", r.Key.Fingerprint)
	}
	made := "at an unknown time"
	if !sig.Created.IsZero() {
		made = sig.Created.Local().Format("Mon Jan _2 15:04:05 2006 MST")
	}
	{
		// gpg 2.2's three lines, written with -q too (as is the
		// verdict below): scripts run gpg -q and grep them.
		st.say("Signature made %s", made)
		st.say("               using %s key %s", gpgAlgoName(sig.PubKeyAlgo), named)
		if signerUID != "" {
			st.say("               issuer \"%s\"", signerUID)
		}
	}
	uid := ""
	var primary string
	var owner *keyring.Key
	if r.Key != nil && s.ring != nil {
		owner = s.ring.Owner(r.Key.Fingerprint)
	}
	// The verdict is filter's, from the key's state the ring gave it
	// (keyring.Ring.SignerKeys); here it is only rendered.
	revoked, keyExpired := r.KeyRevoked, r.KeyExpired
	if owner != nil {
		uid, primary = owner.PrimaryUserID(), owner.Fingerprint()
		keyConsidered(s.status, owner, clock.Now(), 0)
	}
	switch r.Status {
	case filter.SigRejected:
		// --weak-digest: as gpg, the signature counts as not checkable.
		s.errs++
		st.say("Note: signatures using the %v algorithm are rejected", sig.Hash)
		st.say("Can't check signature: Invalid digest algorithm")
		s.errSig(sig, keyID, 5)
	case filter.SigGood, filter.SigExpired, filter.SigKeyExpired, filter.SigKeyRevoked:
		var sigExpiry int64
		if e := sig.Expires(); !e.IsZero() {
			sigExpiry = e.Unix()
		}
		var verdictLine status.Line = status.GoodSig{KeyID: keyID, UserID: status.Text(uid)}
		verdict := "Good"
		switch r.Status {
		case filter.SigExpired:
			verdictLine, verdict = status.ExpSig{KeyID: keyID, UserID: status.Text(uid)}, "Expired"
			s.bad++
		case filter.SigKeyExpired:
			verdictLine = status.ExpKeySig{KeyID: keyID, UserID: status.Text(uid)}
			s.good++
		case filter.SigKeyRevoked:
			// gpg writes REVKEYSIG and exits 0; pgpstream does not
			// call a revoked key's signature good and exits 1.
			verdictLine = status.RevKeySig{KeyID: keyID, UserID: status.Text(uid)}
			s.bad++
		default:
			s.good++
		}
		s.status.Write(status.SigID{ID: sigID(sig), Date: sig.Created.UTC().Format("2006-01-02"), Time: sig.Created.Unix()})
		s.status.Write(verdictLine)
		s.notations(sig)
		s.status.Write(status.ValidSig{Fpr: issuer, Date: sig.Created.UTC().Format("2006-01-02"), Time: sig.Created.Unix(), Expire: sigExpiry, Version: sig.Version, Reserved: 0, PubAlgo: int(sig.PubKeyAlgo), Hash: int(sig.Hash), Class: fmt.Sprintf("%02X", sig.SigType), PrimaryFpr: primary})
		// gpg's trust check writes KEYREVOKED and the TRUST_ line;
		// under --trust-model always it is skipped, and the user ID
		// is shown as of unknown validity.
		always := s.trustModel == keyring.ModelAlways
		if revoked && !always {
			s.status.Write(status.KeyRevoked{})
		}
		var validity string
		var afterVerdict func() // what gpg reports after the verdict line
		switch {
		case !keyExpired.IsZero():
			// gpg writes no TRUST_ line for an expired key.
			validity = " [expired]"
		case always:
			validity = " [unknown]"
		default:
			validity, afterVerdict = s.trust(owner, r, uid)
		}
		st.say("%s signature from \"%s\"%s", verdict, uid, validity)
		s.akaLines(owner, !keyExpired.IsZero(), always)
		if afterVerdict != nil {
			afterVerdict()
		}
		if always && !st.quiet {
			// gpg's trust check under --trust-model always.
			st.say("WARNING: Using untrusted key!")
		}
		switch r.Status {
		case filter.SigExpired:
			st.say("Signature expired %s",
				time.Unix(sigExpiry, 0).Local().Format("Mon Jan _2 15:04:05 2006 MST"))
		case filter.SigKeyExpired:
			st.say("Note: This key has expired!")
		case filter.SigKeyRevoked:
			st.say("WARNING: This key has been revoked by its owner!")
		}
	case filter.SigBad:
		s.bad++
		st.say("BAD signature from \"%s\"%s", uid, s.validityWord(owner))
		st.infof("%v", r.Err)
		s.status.Write(status.BadSig{KeyID: keyID, UserID: status.Text(uid)})
	case filter.SigNoKey:
		s.errs++
		st.say("Can't check signature: no public key %s", keyID)
		st.hintf("import the signer's certificate with --import")
		s.errSig(sig, keyID, 9)
		s.status.Write(status.NoPubkey{KeyID: keyID})
	default:
		s.errs++
		st.say("Can't check signature: %s", oneLine(r.Err.Error()))
		if errors.Is(r.Err, filter.ErrWeakDigest) {
			st.hintf("--allow-weak-digest-algos checks it anyway")
		}
		s.errSig(sig, keyID, 4)
	}
}

// gpgSignerUID is the signer's user ID subpacket as gpg shows it in
// NEWSIG: the address alone when the user ID holds one (gpg's
// mailbox_from_userid), else the whole of it, control bytes C-escaped.
func gpgSignerUID(raw string) string {
	uid := escape.Printable(raw)
	if addr, ok := mailbox.FromUserID(uid); ok {
		return addr
	}
	return uid
}

// notations reports a good signature's policy URL and notations as gpg
// 2.2 does by default (verify-options show-policy-urls,
// show-std-notations): each on the status stream, and on standard error
// the policy and the notations whose names have no '@' (the IETF's own).
func (s *sigReporter) notations(sig *packet.Signature) {
	if sig.Policy != "" {
		if sig.PolicyCritical {
			s.st.say("Critical signature policy: %s", sig.Policy)
		} else {
			s.st.say("Signature policy: %s", sig.Policy)
		}
		s.status.Write(status.PolicyURL{URL: sig.Policy})
	}
	// gpg lists them last subpacket first (sig_to_notation prepends).
	for i := len(sig.Notations) - 1; i >= 0; i-- {
		n := sig.Notations[i]
		value := n.Value
		if !n.HumanReadable {
			value = fmt.Sprintf("not human readable (%d bytes: %s)", len(n.Value), hex.EncodeToString([]byte(n.Value[:min(len(n.Value), 32)])))
		}
		if !strings.Contains(n.Name, "@") {
			what := "Signature notation"
			if n.Critical {
				what = "Critical signature notation"
			}
			s.st.say("%s: %s=%s", what, n.Name, value)
		}
		s.status.Write(status.NotationName{Name: n.Name})
		if n.Critical || n.HumanReadable {
			s.status.Write(status.NotationFlags{Critical: b2i(n.Critical), Human: b2i(n.HumanReadable)})
		}
		data, wrap := n.Value, 50
		if !n.HumanReadable {
			wrap = 250
		}
		for len(data) > 0 || len(n.Value) == 0 {
			k := min(len(data), wrap)
			s.status.Write(status.NotationData{Data: data[:k]})
			data = data[k:]
			if len(n.Value) == 0 {
				break
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// validityWord is " [ultimate]" and the like, as gpg shows it after a
// signer's user ID, without the TRUST_ line.
func (s *sigReporter) validityWord(k *keyring.Key) string {
	if s.trustModel == keyring.ModelAlways {
		return " [unknown]"
	}
	if k == nil || s.ring == nil {
		return ""
	}
	return " [" + s.ring.Validity(k.Fingerprint(), s.trustModel).Word() + "]"
}

// errSig writes ERRSIG <keyid> <pkalgo> <hashalgo> <class> <time> <rc> <fpr>.
func (s *sigReporter) errSig(sig *packet.Signature, keyID string, rc int) {
	fpr := "-"
	if sig.IssuerFingerprint != nil {
		fpr = fmt.Sprintf("%X", sig.IssuerFingerprint)
	}
	var t int64
	if !sig.Created.IsZero() {
		t = sig.Created.Unix()
	}
	s.status.Write(status.ErrSig{KeyID: keyID, PubAlgo: int(sig.PubKeyAlgo), Hash: int(sig.Hash), Class: fmt.Sprintf("%02X", sig.SigType), Time: t, RC: rc, Fpr: fpr})
}

// exit is gpg's exit code for what was reported: 2 when a signature could
// not be checked (no key, unsupported), else 1 when one was bad. GnuPG
// 2.2 exits 2 for a signer it has no key for even when the decryption
// itself succeeded; pgpstream does the same, and then writes no -o file
// (finishOutputs) unless --allow-unprotected.
func (s *sigReporter) exit() int {
	switch {
	case s.errs > 0:
		return exitError
	case s.bad > 0:
		return exitBad
	}
	return exitOK
}

// Signature implements filter.Events for decryption.
func (e *decryptEvents) Signature(r filter.SignatureResult) { e.sigs.report(r) }

// refuseKeys stands in for the keyring under --verify, which does not
// decrypt.
type refuseKeys struct{}

var errVerifyEncrypted = errors.New("the message is encrypted; --verify reads only signed messages")

func (refuseKeys) DecryptionKeys(*packet.PKESK) []*gcpacket.PrivateKey { return nil }
func (refuseKeys) Unlock(*gcpacket.PrivateKey) error                   { return errVerifyEncrypted }
func (refuseKeys) Passphrase() ([]byte, error)                         { return nil, errVerifyEncrypted }

// verifyEvents reports a --verify: signatures, but not the "not
// encrypted" warning a signed message would otherwise earn.
type verifyEvents struct {
	st   *state
	sigs *sigReporter
}

func (verifyEvents) PKESK(*packet.PKESK)                  {}
func (verifyEvents) SKESK(*packet.SKESK)                  {}
func (verifyEvents) SessionKey(filter.SessionKeyInfo)     {}
func (verifyEvents) Literal(packet.Literal)               {}
func (verifyEvents) Verified()                            {}
func (e verifyEvents) Signature(r filter.SignatureResult) { e.sigs.report(r) }
func (e verifyEvents) Warning(w filter.Warning) {
	if w.Kind != filter.WarnNotEncrypted {
		e.st.warnf("%s", w.Msg)
	}
}

// cmdVerify checks a signed message (--verify [FILE]) or a detached
// signature (--verify SIG [FILE]; with one argument, FILE is SIG without
// its .sig or .asc).
func cmdVerify(st *state, o *options) (err error) {
	args := o.args
	if len(args) > 2 {
		return usagef("--verify takes a signed message, or a detached signature and the signed file (got %d arguments)", len(args))
	}
	sw, err := openStatus(st, o)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			statusFailure(sw, "verify", err)
		}
	}()
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	rep := &sigReporter{st: st, status: sw, ring: ring, trustModel: o.trustModelName()}
	open := func(name string) (io.Reader, func(), error) {
		r, _, done, err := openArg(st, o, name)
		return r, done, err
	}
	var results []filter.SignatureResult
	detached := len(args) == 2
	// A descriptor is read once: as a signed message, with no file
	// beside it to guess.
	if len(args) == 1 && args[0] != "-" && !o.fileArg(args[0]).isFD && isDetachedFile(args[0]) {
		data := strings.TrimSuffix(strings.TrimSuffix(args[0], ".sig"), ".asc")
		if _, err := os.Stat(data); data == args[0] || err != nil {
			return withHints(fmt.Errorf("%s is a detached signature and no signed file was given", args[0]), "give the signed file too: pgpstream --verify SIG FILE")
		}
		args = append(args, data)
		detached = true
	}
	if detached {
		sig, closeSig, err := open(args[0])
		if err != nil {
			return err
		}
		defer closeSig()
		data, closeData, err := open(args[1])
		if err != nil {
			return err
		}
		defer closeData()
		results, err = filter.VerifyDetached(sig, data, filter.VerifyOptions{Signers: ring, Events: verifyEvents{st: st, sigs: rep},
			AllowWeakDigests: o.allowWeakDigests, RejectHashes: o.weakDigests, Time: clock.Now()})
		if err != nil {
			return err
		}
	} else {
		in, inName, closeIn, err := openInput(st, o)
		if err != nil {
			return err
		}
		defer closeIn()
		var w io.Writer = io.Discard
		var out *output.Output
		if p := o.output; !p.none() {
			if sameFile(inName, p) {
				return fmt.Errorf("input and output are the same file")
			}
			if out, err = openOutput(st, o, p, true); err != nil {
				return err
			}
			w = out.W
		}
		opts := filter.DecryptOptions{
			Keys:              refuseKeys{},
			MaxDecompressed:   o.maxOutput,
			Signers:           ring,
			LegacyLiteralHash: o.legacyLiteralHash,
			AllowWeakDigests:  o.allowWeakDigests,
			RejectHashes:      o.weakDigests,
			Time:              clock.Now(),
			Events:            verifyEvents{st: st, sigs: rep},
		}
		var authentic error    // of the first message whose data nothing vouches for
		read, unsigned := 0, 0 // messages, and the first one with no signature
		err = readMessages(o, in, w, func() filter.DecryptOptions { return opts }, func(res *filter.Result) {
			read++
			if authentic == nil {
				authentic = filter.UnencryptedAuthentic(res.Signatures)
			}
			if len(res.Signatures) == 0 && unsigned == 0 {
				unsigned = read
			}
			results = append(results, res.Signatures...)
		})
		if err != nil {
			trailingStatus(sw, err)
			if out != nil {
				out.Abort()
			}
			if errors.Is(err, errVerifyEncrypted) || errors.Is(err, filter.ErrNoSecretKey) {
				return withHints(errVerifyEncrypted, "decrypt it with --decrypt, which checks its signatures too")
			}
			return err
		}
		if out != nil {
			if authentic != nil {
				// As -d says it (signatureOutcome): why the data
				// nothing vouches for was not written.
				out.Abort()
				st.errorf("%v: the output was not written", authentic)
			} else if err := out.Commit(); err != nil {
				return err
			}
		}
		if unsigned > 0 && read > 1 {
			return fmt.Errorf("no signature was checked in message %d of %d: it is not signed", unsigned, read)
		}
	}
	if len(results) == 0 || rep.good+rep.bad+rep.errs == 0 {
		return errors.New("no signature was checked: the input is not signed")
	}
	st.exit = max(st.exit, rep.exit())
	statusExitFailure(sw, st.exit)
	return nil
}

// isDetachedFile reports whether name holds only signature packets: a
// detached signature rather than a signed message.
func isDetachedFile(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, b)
	full := n == len(b)
	b = b[:n]
	if filter.IsClearSigned(b) {
		return false // the signed text is in the file
	}
	if armor.IsArmored(b) {
		return bytes.Contains(b, []byte("-----BEGIN PGP SIGNATURE-----"))
	}
	if full {
		return false // too large for a signature file
	}
	sigs := 0
	for off := 0; off < len(b); {
		h, more, err := packet.ParseHeader(b[off:], int64(off))
		if err != nil || more > 0 || h.Tag != packet.TagSignature || h.Kind != packet.Definite {
			return false
		}
		off += h.Size + int(h.Length)
		sigs++
	}
	return sigs > 0
}

// signatureOutcome sets the exit code after a decryption from its
// signatures. It reports whether the output must be withheld: the data of
// an unencrypted message is released only as filter.UnencryptedAuthentic
// allows, since its signatures are all that protects it. With
// allowUnprotected, one whose signatures merely prove nothing (none, an
// unknown signer) is released with a warning; one with evidence of
// tampering never is.
func signatureOutcome(st *state, res *filter.Result, rep *sigReporter, allowUnprotected bool) (withhold bool) {
	st.exit = max(st.exit, rep.exit())
	if res.Encrypted {
		return false
	}
	err := filter.UnencryptedAuthentic(res.Signatures)
	if err == nil {
		return false
	}
	var na *filter.NotAuthenticError
	tampered := !errors.As(err, &na) || na.Tampered
	if !tampered && allowUnprotected {
		st.warnf("%v; --allow-unprotected writes it anyway", err)
		return false
	}
	st.errorf("%v: the output was not written", err)
	if !tampered {
		st.hintf("if you trust where it came from, --allow-unprotected writes it anyway")
	}
	if rep.bad == 0 {
		st.exit = max(st.exit, exitError)
	}
	return true
}

// sigID is the SIG_ID status line's identifier of a good signature, as
// gpg 2.2 makes it, so clients that keep it (python-gnupg's
// signature_id) to spot a replayed signature get gpg's string: SHA-1 over
// the public-key and hash algorithm octets, the four-octet creation time
// and the signature's MPIs (bit count and value), in unpadded base64.
func sigID(sig *packet.Signature) string {
	h := sha1.New()
	t := uint32(sig.Created.Unix())
	h.Write([]byte{sig.PubKeyAlgo, byte(sig.Hash), byte(t >> 24), byte(t >> 16), byte(t >> 8), byte(t)})
	if sig.Version == 3 || sig.Version == 4 {
		// gpg 2.2's SIG_ID covers v3 and v4 (it reads no v6).
		h.Write(gpgMPIs(sig.Values))
	}
	return base64.RawStdEncoding.EncodeToString(h.Sum(nil))
}

// gpgMPIs reads a signature's values as MPIs and writes each as gpg
// hashes it for SIG_ID: its bit count and its value, both recounted
// without leading zeros. A value cut short ends it.
func gpgMPIs(rest []byte) []byte {
	var out []byte
	for len(rest) >= 2 {
		bits := int(rest[0])<<8 | int(rest[1])
		n := (bits + 7) / 8
		if len(rest) < 2+n {
			break
		}
		v := rest[2 : 2+n]
		for len(v) > 0 && v[0] == 0 {
			v = v[1:]
		}
		bits = len(v) * 8
		if len(v) > 0 {
			for c := v[0]; c&0x80 == 0; c <<= 1 {
				bits--
			}
		}
		out = append(out, byte(bits>>8), byte(bits))
		out = append(out, v...)
		rest = rest[2+n:]
	}
	return out
}
