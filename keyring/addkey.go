package keyring

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"
)

// AddKeyOptions says what subkey AddKey makes.
type AddKeyOptions struct {
	// Algo: "", "-", "default" or "future-default" for the encryption
	// algorithm that goes with the primary key (cv25519 with ed25519,
	// x448 with ed448, rsa3072 with RSA, nistp256 with nistp256); or
	// ed25519, ed448, cv25519, x448, rsa (3072), rsa1024 to rsa4096,
	// nistp256; or, on a v4 key, dsa, dsa1024, dsa2048, dsa3072 (DSA,
	// 2048 bits by default) and elg, elgN (Elgamal, N from 1024 to 4096).
	Algo string
	// Usage is gpg's USAGE (see ParseUsage); the default is encr for an
	// encryption algorithm and RSA, sign for the others.
	Usage string
	// Expires is when the subkey expires; zero: never.
	Expires time.Time
}

// subkeyConfig chooses the algorithm of a new subkey and whether it
// encrypts (else signs) by default.
func subkeyConfig(primary *packet.PublicKey, algo string) (*packet.Config, bool, error) {
	v6 := primary.Version == 6
	cfg := &packet.Config{V6Keys: v6, DefaultHash: hashFor(primary)}
	a := strings.ToLower(algo)
	if isDefaultAlgo(a) {
		switch primary.PubKeyAlgo {
		case packet.PubKeyAlgoRSA, packet.PubKeyAlgoRSASignOnly:
			a = "rsa3072"
		case packet.PubKeyAlgoEd448:
			a = "x448"
		case packet.PubKeyAlgoECDSA:
			a = "nistp256"
		default:
			a = "cv25519"
		}
	}
	switch a {
	case "cv25519", "x25519":
		if v6 {
			cfg.Algorithm = packet.PubKeyAlgoX25519
		} else {
			cfg.Algorithm, cfg.Curve = packet.PubKeyAlgoECDH, packet.Curve25519
		}
		return cfg, true, nil
	case "x448", "cv448":
		cfg.Algorithm = packet.PubKeyAlgoX448
		return cfg, true, nil
	case "ed25519":
		if v6 {
			cfg.Algorithm = packet.PubKeyAlgoEd25519
		} else {
			cfg.Algorithm, cfg.Curve = packet.PubKeyAlgoEdDSA, packet.Curve25519
		}
		return cfg, false, nil
	case "ed448":
		cfg.Algorithm = packet.PubKeyAlgoEd448
		return cfg, false, nil
	case "rsa":
		cfg.Algorithm, cfg.RSABits = packet.PubKeyAlgoRSA, 3072 // gpg's size for plain "rsa"
		return cfg, true, nil
	case "nistp256":
		// The same curve serves ECDSA (signing) and ECDH (encryption);
		// the usage decides which is made.
		cfg.Algorithm, cfg.Curve = packet.PubKeyAlgoECDH, packet.CurveNistP256
		return cfg, true, nil
	}
	if n, ok := rsaBits(a); ok { // rsa1024 to rsa4096, as gpg 2.2 makes them
		cfg.Algorithm, cfg.RSABits = packet.PubKeyAlgoRSA, n
		return cfg, true, nil
	}
	return nil, false, fmt.Errorf("keyring: %w (algorithm %q; expected default, cv25519, x448, ed25519, ed448, rsa, rsa1024 to rsa4096, nistp256, dsa or elg)", ErrUnknownAlgo, algo)
}

// AddKey adds a new subkey to the key with full fingerprint fpr and
// returns its fingerprint. Its secret part is protected with the
// primary key's passphrase, as gpg does.
func (r *Ring) AddKey(fpr string, opt AddKeyOptions, pass PassphraseFunc) (string, error) {
	var newFpr string
	err := r.edit(fpr, pass, func(ed *editor) (err error) {
		newFpr, err = ed.addSubkey(opt)
		return err
	})
	return newFpr, err
}

// addSubkey adds a new subkey as opt says and returns its fingerprint.
func (ed *editor) addSubkey(opt AddKeyOptions) (string, error) {
	// DSA and Elgamal subkeys (gpg's "dsa", "elg", "dsa2048", ...) are
	// made in place of an Ed25519 or X25519 one go-crypto makes.
	algo := opt.Algo
	legacy, legacyBits, isLegacy := legacyAlgo(algo)
	if isLegacy {
		if ed.priv.Version == 6 {
			return "", fmt.Errorf("keyring: %w (a v6 key cannot have %s subkeys)", ErrUnknownAlgo, opt.Algo)
		}
		algo = "ed25519"
		if legacy == packet.PubKeyAlgoElGamal {
			algo = "cv25519"
		}
	}
	cfg, encDefault, err := subkeyConfig(&ed.priv.PublicKey, algo)
	if err != nil {
		return "", err
	}
	u, isDef, err := ParseUsage(opt.Usage)
	if err != nil {
		return "", err
	}
	if isDef {
		u = Usage{Encrypt: encDefault, Sign: !encDefault}
	}
	if u.Certify {
		return "", fmt.Errorf("keyring: %w (a subkey cannot certify)", ErrBadUsage)
	}
	if cfg.Algorithm == packet.PubKeyAlgoECDH && cfg.Curve == packet.CurveNistP256 && (u.Sign || u.Auth) {
		if u.Encrypt {
			return "", fmt.Errorf("keyring: %w (a nistp256 key either encrypts or signs)", ErrBadUsage)
		}
		cfg.Algorithm = packet.PubKeyAlgoECDSA
	}
	if u.Encrypt && !cfg.Algorithm.CanEncrypt() || (u.Sign || u.Auth) && !cfg.Algorithm.CanSign() || !u.Encrypt && !u.Sign && !u.Auth {
		return "", fmt.Errorf("keyring: %w (%s cannot do that)", ErrBadUsage, opt.Algo)
	}
	life, err := lifetime(ed.now, opt.Expires)
	if err != nil {
		return "", err
	}
	now := ed.now
	cfg.Time = func() time.Time { return now }
	cfg.KeyLifetimeSecs = *life
	// go-crypto makes the subkey and its binding on an entity that
	// holds only the primary key; the binding's flags are then set
	// to the usage asked for and it is signed again.
	tmp := &v2.Entity{PrimaryKey: &ed.priv.PublicKey, PrivateKey: ed.priv}
	if cfg.Algorithm.CanSign() {
		err = tmp.AddSigningSubkey(cfg)
	} else {
		err = tmp.AddEncryptionSubkey(cfg)
	}
	if err != nil {
		return "", fmt.Errorf("keyring: generating the subkey: %w", err)
	}
	sub := tmp.Subkeys[0]
	if isLegacy {
		priv, err := newLegacyKey(legacy, legacyBits, now)
		if err != nil {
			return "", err
		}
		if err := swapSubkey(&sub, ed.priv, priv, cfg); err != nil {
			return "", err
		}
	}
	bind := sub.Bindings[0].Packet
	bind.FlagsValid = true
	bind.FlagSign, bind.FlagAuthenticate = u.Sign, u.Auth
	bind.FlagEncryptCommunications, bind.FlagEncryptStorage = u.Encrypt, u.Encrypt
	if !u.Sign {
		// The primary key binding signature is for signing
		// subkeys only (RFC 9580 section 5.2.3.34).
		bind.EmbeddedSignature = nil
	}
	if err := bind.SignKey(sub.PublicKey, ed.priv, cfg); err != nil {
		return "", fmt.Errorf("keyring: signing the subkey: %w", err)
	}
	if ed.pass != nil {
		if err := sub.PrivateKey.EncryptWithConfig(ed.pass, lockConfig(ed.priv.Version == 6)); err != nil {
			return "", fmt.Errorf("keyring: protecting the subkey: %w", err)
		}
	}
	secPkt, err := keyPacket(func(b *bytes.Buffer) error { return sub.PrivateKey.Serialize(b) })
	if err != nil {
		return "", err
	}
	pubPkt, err := publicPacket(secPkt)
	if err != nil {
		return "", err
	}
	sp, err := sigPacket(bind)
	if err != nil {
		return "", err
	}
	ed.addSubSig(pubPkt, secPkt, sp)
	return fmt.Sprintf("%X", sub.PublicKey.Fingerprint), nil
}
