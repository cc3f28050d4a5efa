package keyring

import (
	"bytes"
	"crypto"
	"fmt"
	"regexp"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/ProtonMail/go-crypto/openpgp/s2k"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"

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
}

func genConfig(opt GenOptions) (*packet.Config, error) {
	cfg := &packet.Config{
		V6Keys:        opt.V6,
		DefaultHash:   crypto.SHA256,
		DefaultCipher: packet.CipherAES256,
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
	case "", "default", "future-default", "ed25519", "cv25519":
		if opt.V6 {
			cfg.Algorithm = packet.PubKeyAlgoEd25519
		} else {
			cfg.Algorithm = packet.PubKeyAlgoEdDSA
			cfg.Curve = packet.Curve25519
		}
	case "ed448", "x448", "cv448":
		// v4 gets the RFC 9580 algorithms too: the legacy Ed448 encoding
		// was never standardized.
		cfg.Algorithm = packet.PubKeyAlgoEd448
		cfg.DefaultHash = crypto.SHA512 // Ed448 needs a 512-bit hash (RFC 9580 section 5.2.3.4)
	case "rsa3072":
		cfg.Algorithm, cfg.RSABits = packet.PubKeyAlgoRSA, 3072
	case "rsa4096":
		cfg.Algorithm, cfg.RSABits = packet.PubKeyAlgoRSA, 4096
	case "nistp256":
		cfg.Algorithm, cfg.Curve = packet.PubKeyAlgoECDSA, packet.CurveNistP256
	default:
		return nil, fmt.Errorf("keyring: unknown key algorithm %q; expected default, ed25519, ed448, rsa3072, rsa4096 or nistp256", opt.Algo)
	}
	return cfg, nil
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

// Generate makes a new key, stores it in both rings and returns it.
func (r *Ring) Generate(opt GenOptions) (*Key, error) {
	cfg, err := genConfig(opt)
	if err != nil {
		return nil, err
	}
	var e *v2.Entity
	if strings.TrimSpace(opt.UserID) == "" {
		if !opt.V6 {
			return nil, fmt.Errorf("keyring: a v4 key needs a user ID")
		}
		e, err = v2.NewEntityWithoutId(cfg)
	} else {
		name, comment, email, serr := splitUserID(opt.UserID)
		if serr != nil {
			return nil, serr
		}
		e, err = v2.NewEntity(name, comment, email, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("keyring: generating %s key: %w", opt.Algo, err)
	}
	if opt.Passphrase != nil {
		if err := e.EncryptPrivateKeys(opt.Passphrase, lockConfig(opt.V6)); err != nil {
			return nil, fmt.Errorf("keyring: protecting new key: %w", err)
		}
	}
	var buf bytes.Buffer
	// The self-signatures were made by NewEntity; re-signing would need
	// the now locked key and add nothing.
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
		var st ImportStats
		return r.importBlock(blocks[0], &st)
	})
	if err != nil {
		return nil, err
	}
	return r.byFingerprint(fmt.Sprintf("%X", e.PrimaryKey.Fingerprint)), nil
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
