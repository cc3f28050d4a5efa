package keyring

import (
	"bytes"
	"crypto"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/ProtonMail/go-crypto/openpgp/s2k"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/internal/testhook"
)

// GenOptions says what key Generate makes.
type GenOptions struct {
	// UserID is "Name (comment) <mail>", any part optional. A v4 key
	// needs one; a v6 key may have none.
	UserID string
	// Algo: "", "default", "future-default" or "ed25519" give an Ed25519
	// primary key with an X25519 encryption subkey (the legacy EdDSA and
	// ECDH encodings on v4, RFC 9580's on v6); "ed448" or "x448" the
	// Ed448/X448 pair; "rsa3072", "rsa4096"; "nistp256".
	Algo string
	// V6 makes an RFC 9580 version 6 key.
	V6 bool
	// Passphrase protects the secret keys; nil leaves them unprotected.
	Passphrase []byte
	// Usage is gpg's USAGE argument (see ParseUsage). Empty (not given),
	// or "default" with the default algorithm, makes a primary key that
	// signs and certifies plus an encryption subkey; any other usage
	// makes a primary key alone, with that usage (certification always
	// included), as gpg's --quick-gen-key does.
	Usage string
	// Expires is when the primary key expires; zero: never.
	Expires time.Time
	// Created is the key's creation time (and its self-signatures');
	// zero: now. A caller that computes Expires from a relative expiry
	// ("2y") passes the time it computed it from, so that the lifetime
	// written is exactly what was asked, not a second short when the
	// clock ticks between the two.
	Created time.Time
	// AllowDuplicate makes a key even when one with the same user ID is
	// in the ring (gpg's --yes); otherwise that is refused.
	AllowDuplicate bool
	// Subkey is the encryption subkey made with the primary key: "" for
	// the one that goes with Algo (as above), "none" for a primary key
	// alone, or "rsaN" or "elgN" (Elgamal, N bits) as a parameter file's
	// Subkey-Type asks. Algo may then also be "rsaN" (1024 to 4096) or
	// "dsaN" (DSA of 1024, 2048 or 3072 bits), as gpg 2.2 makes them.
	Subkey string
}

// ErrKeyExists is returned (wrapped) by Generate for a user ID that a key
// in the ring already has.
var ErrKeyExists = errors.New("a key for this user ID already exists")

// ErrUnknownAlgo is returned (wrapped) by Generate for an algorithm name
// it does not know; the message is gpg's.
var ErrUnknownAlgo = errors.New("Unknown elliptic curve")

// isDefaultAlgo reports whether algo names the default key pair.
func isDefaultAlgo(algo string) bool {
	switch strings.ToLower(algo) {
	case "", "-", "default", "future-default":
		return true
	}
	return false
}

func genConfig(opt GenOptions) (*packet.Config, error) {
	cfg := &packet.Config{
		V6Keys:        opt.V6,
		DefaultHash:   crypto.SHA256,
		DefaultCipher: packet.CipherAES256,
		Time:          clock.Now,
	}
	if !opt.Created.IsZero() {
		created := opt.Created
		cfg.Time = func() time.Time { return created }
	}
	if opt.V6 {
		// A v6 key advertises SEIPD v2 with OCB preferred. A v4 key
		// advertises SEIPD v1 only (features 0x01), as GnuPG's do:
		// senders honour the features, and gpg 2.2/2.4, rnp and
		// Sequoia 1.x cannot read SEIPD v2, so a v4 key that asked for
		// it would get messages its owner's other tools cannot open.
		// --force-aead still writes AEAD to anyone.
		cfg.AEADConfig = &packet.AEADConfig{DefaultMode: packet.AEADModeOCB}
	}
	switch strings.ToLower(opt.Algo) {
	case "", "-", "default", "future-default", "ed25519":
		if opt.V6 {
			cfg.Algorithm = packet.PubKeyAlgoEd25519
		} else {
			cfg.Algorithm = packet.PubKeyAlgoEdDSA
			cfg.Curve = packet.Curve25519
		}
	case "ed448":
		// v4 gets the RFC 9580 algorithms too: the legacy Ed448 encoding
		// was never standardized.
		cfg.Algorithm = packet.PubKeyAlgoEd448
		cfg.DefaultHash = crypto.SHA512 // Ed448 needs a 512-bit hash (RFC 9580 section 5.2.3.4)
	case "rsa2048":
		cfg.Algorithm, cfg.RSABits = packet.PubKeyAlgoRSA, 2048
	case "rsa3072":
		cfg.Algorithm, cfg.RSABits = packet.PubKeyAlgoRSA, 3072
	case "rsa4096":
		cfg.Algorithm, cfg.RSABits = packet.PubKeyAlgoRSA, 4096
	case "nistp256":
		cfg.Algorithm, cfg.Curve = packet.PubKeyAlgoECDSA, packet.CurveNistP256
	case "dsa", "dsa1024", "dsa2048", "dsa3072":
		if opt.V6 {
			return nil, fmt.Errorf("keyring: Key generation failed: %w (a v6 key cannot be DSA)", ErrUnknownAlgo)
		}
		// go-crypto builds the entity around an Ed25519 key, which
		// Generate then replaces with the DSA one (swapPrimary).
		cfg.Algorithm, cfg.Curve = packet.PubKeyAlgoEdDSA, packet.Curve25519
	case "cv25519", "x25519", "cv448", "x448":
		// Encryption-only algorithms cannot be a primary key, which
		// must at least certify.
		return nil, fmt.Errorf("keyring: Key generation failed: %w (%s cannot certify; add it as a subkey with --quick-add-key)", ErrBadUsage, opt.Algo)
	default:
		if bits, ok := rsaBits(opt.Algo); ok {
			cfg.Algorithm, cfg.RSABits = packet.PubKeyAlgoRSA, bits
			break
		}
		return nil, fmt.Errorf("keyring: Key generation failed: %w (algorithm %q; expected default, future-default, ed25519, ed448, rsa3072, rsa4096 or nistp256)", ErrUnknownAlgo, opt.Algo)
	}
	return cfg, nil
}

// rsaBits reads "rsaN" for N from 1024 to 4096, the sizes gpg 2.2 makes.
func rsaBits(algo string) (int, bool) {
	a, ok := strings.CutPrefix(strings.ToLower(algo), "rsa")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(a)
	if err != nil || n < 1024 || n > 4096 {
		return 0, false
	}
	return n, true
}

var uidRE = regexp.MustCompile(`^\s*([^()<>]*?)\s*(?:\(([^()<>]*)\))?\s*(?:<([^()<>]*)>)?\s*$`)

// splitUserID splits "Name (comment) <mail>" for go-crypto, which builds
// the user ID from the three parts. A bare address becomes "<mail>".
func splitUserID(uid string) (name, comment, email string, err error) {
	m := uidRE.FindStringSubmatch(uid)
	if m == nil {
		return "", "", "", fmt.Errorf("keyring: user ID %q: expected \"Name (comment) <mail>\" with no other parentheses or angle brackets", uid)
	}
	name, comment, email = m[1], m[2], m[3]
	if email == "" && comment == "" && strings.Contains(name, "@") && !strings.Contains(name, " ") {
		name, email = "", name
	}
	return name, comment, email, nil
}

// Generate makes a new key, stores it in both rings and returns it,
// with a revocation certificate for it in the home's openpgp-revocs.d
// (see writeRevocationFile).
func (r *Ring) Generate(opt GenOptions) (*Key, error) {
	cfg, err := genConfig(opt)
	if err != nil {
		return nil, err
	}
	usage, defUsage, err := ParseUsage(opt.Usage)
	if err != nil {
		return nil, fmt.Errorf("keyring: Key generation failed: %w", err)
	}
	// gpg makes a lone primary key once ALGO is given; pgpstream keeps
	// the pair until USAGE is given too, since a key that cannot be
	// encrypted to is rarely what "--quick-gen-key UID rsa3072" means.
	withSubkey := strings.TrimSpace(opt.Usage) == "" || isDefaultAlgo(opt.Algo) && defUsage
	if defUsage {
		usage = Usage{Sign: true}
	}
	usage.Certify = true
	if usage.Encrypt && !cfg.Algorithm.CanEncrypt() || (usage.Sign || usage.Auth) && !cfg.Algorithm.CanSign() {
		return nil, fmt.Errorf("keyring: Key generation failed: %w (%s cannot do that)", ErrBadUsage, opt.Algo)
	}
	uid := strings.TrimSpace(opt.UserID)
	if err := r.checkDuplicate(uid, opt.AllowDuplicate); err != nil {
		return nil, err
	}
	if err := r.checkRewrite(); err != nil {
		return nil, err // before the work of making the key, which update would refuse
	}
	var e *v2.Entity
	if uid == "" {
		if !opt.V6 {
			return nil, fmt.Errorf("keyring: a v4 key needs a user ID")
		}
		e, err = v2.NewEntityWithoutId(cfg)
	} else {
		name, comment, email, serr := splitUserID(uid)
		if serr != nil {
			// go-crypto takes only "Name (comment) <mail>" with no
			// other brackets; gpg's parameter files make any user ID
			// ("A test user (insecure!)" as a comment). It is put in
			// place below, before the self-signature is made.
			name, comment, email = "x", "", ""
		}
		e, err = v2.NewEntity(name, comment, email, cfg)
		if err == nil && serr != nil {
			setOnlyUserID(e, uid)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("keyring: generating %s key: %w", opt.Algo, err)
	}
	if !withSubkey || opt.Subkey == "none" {
		e.Subkeys = nil
	}
	if err := replaceLegacy(e, opt, cfg); err != nil {
		return nil, err
	}
	if err := setPrimaryProperties(e, usage, opt.Expires, cfg); err != nil {
		return nil, err
	}
	// The revocation certificate is made while the key is unlocked.
	rev, err := (&editor{priv: e.PrivateKey, now: cfg.Now().Truncate(time.Second)}).revocation(packet.NoReason, "")
	if err != nil {
		return nil, err
	}
	if opt.Passphrase != nil {
		if err := e.EncryptPrivateKeys(opt.Passphrase, lockConfig(opt.V6)); err != nil {
			return nil, fmt.Errorf("keyring: protecting new key: %w", err)
		}
	}
	var buf bytes.Buffer
	// The self-signatures were made above; re-signing would need the
	// now locked key and add nothing.
	if err := e.SerializePrivateWithoutSigning(&buf, nil); err != nil {
		return nil, fmt.Errorf("keyring: serializing new key: %w", err)
	}
	pkts, err := splitPackets(buf.Bytes())
	if err != nil {
		return nil, err
	}
	blocks, err := splitBlocks(pkts)
	if err != nil || len(blocks) != 1 {
		return nil, fmt.Errorf("keyring: new key did not serialize as one key block (%v)", err)
	}
	// The key is made outside the lock (RSA can take seconds); only the
	// merge into the ring as it is now runs under it.
	err = r.update(secretFirst, func() (bool, error) {
		if err := r.checkDuplicate(uid, opt.AllowDuplicate); err != nil {
			return false, err
		}
		var st ImportStats
		return r.importBlock(blocks[0], &st, ImportOptions{})
	})
	if err != nil {
		return nil, err
	}
	// A key made here is the user's own: trusted ultimately, as gpg does.
	fpr := fmt.Sprintf("%X", e.PrimaryKey.Fingerprint)
	if err := r.SetOwnerTrust(map[string]OwnerTrust{fpr: TrustUltimate}); err != nil {
		return nil, err
	}
	k := r.byFingerprint(fpr)
	if err := writeRevocationFile(r.home, k, rev); err != nil {
		return k, err
	}
	return k, nil
}

// checkDuplicate refuses a user ID that a key in the ring already has,
// as gpg does unless --yes is given.
func (r *Ring) checkDuplicate(uid string, allow bool) error {
	if allow || uid == "" {
		return nil
	}
	for _, k := range r.keys {
		for _, u := range k.uids {
			if u == uid {
				return fmt.Errorf("keyring: A key for \"%s\" already exists (%s): %w", uid, k.Fingerprint(), ErrKeyExists)
			}
		}
	}
	return nil
}

// setPrimaryProperties gives the new key's self-signature the usage and
// expiry asked for and signs it again. A v4 key carries them in its user
// ID self-signatures, a v6 key in its direct-key signature.
func setPrimaryProperties(e *v2.Entity, u Usage, expires time.Time, cfg *packet.Config) error {
	life, err := lifetime(e.PrimaryKey.CreationTime, expires)
	if err != nil {
		return err
	}
	set := func(s *packet.Signature) {
		s.FlagsValid = true
		s.FlagCertify = true
		s.FlagSign = u.Sign
		s.FlagEncryptCommunications, s.FlagEncryptStorage = u.Encrypt, u.Encrypt
		s.FlagAuthenticate = u.Auth
		s.KeyLifetimeSecs = life
	}
	if e.PrimaryKey.Version == 6 {
		for _, ds := range e.DirectSignatures {
			set(ds.Packet)
			if err := ds.Packet.SignDirectKeyBinding(e.PrimaryKey, e.PrivateKey, cfg); err != nil {
				return fmt.Errorf("keyring: signing new key: %w", err)
			}
		}
		return nil
	}
	for _, id := range e.Identities {
		for _, sc := range id.SelfCertifications {
			set(sc.Packet)
			if err := sc.Packet.SignUserId(id.Name, e.PrimaryKey, e.PrivateKey, cfg); err != nil {
				return fmt.Errorf("keyring: signing new key: %w", err)
			}
		}
	}
	return nil
}

// lockConfig chooses how a passphrase protects secret keys. v4 keys use
// iterated+salted S2K with CFB and a SHA-1 check (usage 254), which every
// OpenPGP implementation reads, GnuPG 2.2 included. v6 keys use Argon2
// with AEAD (usage 253), the RFC 9580 recommendation; a v6 reader has it.
func lockConfig(v6 bool) *packet.Config {
	if !v6 {
		return &packet.Config{
			DefaultCipher: packet.CipherAES256,
			S2KConfig:     &s2k.Config{S2KMode: s2k.IteratedSaltedS2K, Hash: crypto.SHA256, S2KCount: testhook.S2KCount},
		}
	}
	return &packet.Config{
		DefaultCipher: packet.CipherAES256,
		AEADConfig:    &packet.AEADConfig{DefaultMode: packet.AEADModeOCB},
		S2KConfig:     &s2k.Config{S2KMode: s2k.Argon2S2K, Argon2Config: testhook.Argon2},
	}
}
