package keyring

import (
	"bytes"
	"fmt"

	"github.com/ProtonMail/go-crypto/openpgp/packet"

	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// s2kSpecOf returns the S2K specifier of a secret key packet (RFC 9580
// section 5.5.3) and what follows it, or nil when the secret material is
// not protected by a specifier (unprotected, or the legacy form whose
// usage octet is a cipher).
func s2kSpecOf(p rawPacket) ([]byte, error) {
	pp, err := publicPacket(p)
	if err != nil {
		return nil, err
	}
	short := fmt.Errorf("%w: secret key packet ends inside its S2K fields", ErrMalformed)
	body := p.body[len(pp.body):]
	v6 := len(p.body) > 0 && p.body[0] == 6
	if len(body) < 1 {
		return nil, short
	}
	usage := body[0]
	body = body[1:]
	skip := 0
	switch usage {
	case 0:
		return nil, nil
	case 253: // AEAD: cipher, AEAD mode, [v6: S2K length], S2K
		skip = 2
	case 254: // CFB with SHA-1 check: cipher, [v6: S2K length], S2K
		skip = 1
	case 255: // CFB with checksum (v4 only): cipher, S2K
		skip = 1
		v6 = false
	default:
		return nil, nil
	}
	if v6 {
		skip += 2 // the count of optional fields, and the S2K length
	}
	if len(body) < skip {
		return nil, short
	}
	return body[skip:], nil
}

// checkS2KSpec refuses an Argon2 specifier beyond package packet's
// bounds, the same as it puts on an SKESK's, for the same reason:
// Argon2 takes its memory and runs its passes before the passphrase can
// be checked, and go-crypto allocates whatever the key says (2^31 KiB is
// a valid encoding), so a hostile key would otherwise end the process
// with an out-of-memory crash instead of an error.
func checkS2KSpec(spec []byte) error {
	sp, _ := pgppacket.ParseS2K(spec)
	if sp.Type != 4 {
		return nil
	}
	if sp.Len < 20 {
		return fmt.Errorf("%w: secret key packet ends inside its Argon2 parameters", ErrMalformed)
	}
	if sp.TooCostly() {
		return fmt.Errorf("its Argon2 S2K asks for %d passes over 2^%d KiB (pgpstream allows up to %d passes over 2 GiB)", sp.Passes, sp.MemoryExp, pgppacket.MaxArgon2Passes)
	}
	return nil
}

// checkSecretS2K checks every secret key packet of b.
func checkSecretS2K(b *block) error {
	for _, c := range b.components() {
		if c.pkt.tag != tagSecretKey && c.pkt.tag != tagSecretSubkey {
			continue
		}
		spec, err := s2kSpecOf(c.pkt)
		if err != nil {
			return err
		}
		if err := checkS2KSpec(spec); err != nil {
			return err
		}
	}
	return nil
}

// checkUnlockCost checks a parsed private key before its S2K runs: the
// key may come from a ring written by hand, not through Import.
func checkUnlockCost(priv *packet.PrivateKey) error {
	var buf bytes.Buffer
	if err := priv.Serialize(&buf); err != nil {
		return fmt.Errorf("keyring: key %X: %w", priv.Fingerprint, err)
	}
	pkts, err := splitPackets(buf.Bytes())
	if err != nil || len(pkts) != 1 {
		return fmt.Errorf("keyring: key %X did not frame as one packet (%v)", priv.Fingerprint, err)
	}
	spec, err := s2kSpecOf(pkts[0])
	if err == nil {
		err = checkS2KSpec(spec)
	}
	if err != nil {
		return fmt.Errorf("keyring: secret key %X: %w", priv.Fingerprint, err)
	}
	return nil
}
