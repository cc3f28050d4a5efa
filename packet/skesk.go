package packet

import (
	"bytes"
	"crypto"
	"fmt"
	"io"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/ProtonMail/go-crypto/openpgp/s2k"

	"github.com/pgpstream/pgpstream/internal/testhook"
)

// SKESK is a Symmetric-Key Encrypted Session Key packet (RFC 9580 §5.3):
// version 4, LibrePGP's 5 or RFC 9580's 6.
//
//	v4: 4 | cipher | S2K specifier | [encrypted session key]
//	v5: 5 | cipher | AEAD mode | S2K specifier | IV | encrypted session key | tag
//	v6: 6 | count | cipher | AEAD mode | S2K length | S2K specifier | IV | encrypted session key | tag
type SKESK struct {
	Version byte
	Cipher  CipherAlgo
	AEAD    AEADAlgo // v5 and v6
	// Spec is the S2K specifier. A v6 SKESK's is read from where it
	// starts and, as pgpstream has always read it, not held to the S2K
	// length octet before it (SpecLen).
	Spec S2KSpec
	// SpecLen is a v6 SKESK's S2K length octet.
	SpecLen int
	// Wrapped is what follows the specifier: for v4 the encrypted session
	// key (empty when the S2K output is the session key), for v5 and v6
	// the IV, the encrypted key and its tag. For v4 and v5 it is nil
	// when the specifier could not be read; for v6 it starts after
	// SpecLen octets and is nil when the body ends before that.
	Wrapped []byte
	Offset  int64
	body    []byte
}

// ParseSKESK parses a SKESK body. Along with an error it returns the
// SKESK with the fields it could read (nil when not even the version
// and cipher are there): a reader that only describes the packet
// (package inspect) lists what pgpstream refuses, an unknown version,
// cipher or S2K type, or an Argon2 cost beyond the bounds.
func ParseSKESK(body []byte, offset int64) (*SKESK, error) {
	s := &SKESK{Offset: offset, body: body}
	if len(body) < 2 {
		return nil, &TruncatedError{"SKESK", offset, "version and cipher"}
	}
	s.Version = body[0]
	switch s.Version {
	case 4:
		s.Cipher = CipherAlgo(body[1])
	case 5, 6:
		if len(body) < 3 {
			return s, &TruncatedError{"SKESK", offset, "the cipher"}
		}
		s.Cipher = CipherAlgo(body[2])
		if s.Version == 5 {
			s.Cipher, s.AEAD = CipherAlgo(body[1]), AEADAlgo(body[2])
		} else if len(body) > 3 {
			s.AEAD = AEADAlgo(body[3])
		}
	default:
		return s, &UnsupportedError{"SKESK", offset, "version " + itoa3(s.Version) + " (known: 4, 5, 6)"}
	}
	spec := s.s2k()
	var err error
	s.Spec, err = ParseS2K(spec)
	if s.Version == 6 {
		if len(body) > 4 {
			s.SpecLen = int(body[4])
			if len(body) >= 5+s.SpecLen {
				s.Wrapped = body[5+s.SpecLen:]
			}
		}
	} else if err == nil {
		s.Wrapped = spec[s.Spec.Len:]
	}
	if s.Cipher.KeySize() == 0 {
		return s, &UnsupportedError{"SKESK", offset, s.Cipher.String()}
	}
	if s.Spec.Type == 4 && s.Spec.Len < 20 {
		return s, &TruncatedError{"SKESK", offset, "the Argon2 S2K parameters"}
	}
	if s.Spec.TooCostly() {
		return s, &UnsupportedError{"SKESK", offset, fmt.Sprintf("Argon2 cost: %d passes over 2^%d KiB (pgpstream allows up to %d passes over 2 GiB)", s.Spec.Passes, s.Spec.MemoryExp, MaxArgon2Passes)}
	}
	return s, nil
}

// Decrypt derives the key from passphrase and recovers the session key.
// A wrong passphrase is detected here only for v5/v6 (their AEAD tag) and
// for v4 with an encrypted session key whose cipher octet comes out wrong;
// otherwise the data packet's check catches it.
func (s *SKESK) Decrypt(passphrase []byte) ([]byte, CipherAlgo, error) {
	if s.Version == 5 {
		return s.decryptV5(passphrase)
	}
	if s.Version == 4 {
		if key, c, ok, err := s.decryptV4Iterated(passphrase); ok {
			return key, c, err
		}
		if !goCryptoCipher(s.Cipher) {
			return s.decryptV4Legacy(passphrase)
		}
	}
	pkt := AppendHeader(nil, TagSKESK, int64(len(s.body)))
	pkt = append(pkt, s.body...)
	gp, err := gcpacket.Read(bytes.NewReader(pkt))
	if err != nil {
		return nil, 0, err
	}
	ske, ok := gp.(*gcpacket.SymmetricKeyEncrypted)
	if !ok {
		return nil, 0, fmt.Errorf("SKESK: unexpected %T", gp)
	}
	key, c, err := ske.Decrypt(passphrase)
	if err != nil {
		return nil, 0, err
	}
	return key, CipherAlgo(c), nil
}

// S2KCount is the iteration count pgpstream writes, GnuPG's default: the
// largest the format can express, ~65 MB of hashing per passphrase.
const S2KCount = 65011712

// s2kCount is S2KCount, or the tests' lower cost (see internal/testhook).
func s2kCount() int {
	if testhook.S2KCount != 0 {
		return testhook.S2KCount
	}
	return S2KCount
}

// WriteSKESK encrypts sessionKey under passphrase: v4 with iterated and
// salted S2K (SHA-256) of count bytes (0: S2KCount), or v6 with Argon2 when v6 is true.
func WriteSKESK(w io.Writer, c CipherAlgo, sessionKey, passphrase []byte, v6 bool, count int) error {
	if count == 0 {
		count = s2kCount()
	}
	if !v6 {
		return writeSKESKv4(w, c, sessionKey, passphrase, count)
	}
	cfg := &gcpacket.Config{
		DefaultCipher: gcpacket.CipherFunction(c),
		S2KConfig:     &s2k.Config{S2KMode: s2k.IteratedSaltedS2K, Hash: crypto.SHA256, S2KCount: count},
	}
	if v6 {
		cfg.S2KConfig = &s2k.Config{S2KMode: s2k.Argon2S2K, Argon2Config: testhook.Argon2}
		cfg.DefaultCipher = gcpacket.CipherFunction(c)
	}
	return gcpacket.SerializeSymmetricKeyEncryptedAEADReuseKey(w, sessionKey, passphrase, v6, cfg)
}

// S2KType returns the S2K specifier's type and hash octets (RFC 9580
// §3.7.1), for gpg's NEED_PASSPHRASE_SYM; 0 for a hash it does not have.
func (s *SKESK) S2KType() (mode, hash byte) {
	return s.Spec.Type, byte(s.Spec.Hash)
}

// S2K is S2KType with the specifier's salt (RFC 9580 §3.7: 8 octets, 16
// for Argon2; none for simple S2K).
// gpg names a message's passphrase in gpg-agent's cache by this salt and
// reports type and hash in NEED_PASSPHRASE_SYM.
func (s *SKESK) S2K() (mode, hash byte, salt []byte) {
	mode, hash = s.S2KType()
	switch {
	case (mode == 1 || mode == 3) && len(s.Spec.Salt) == 8, mode == 4 && len(s.Spec.Salt) == 16:
		salt = s.Spec.Salt
	}
	return mode, hash, salt
}

// SessionKeyMode says how the SKESK holds the session key, as gpg names
// it: "CFB" for a v4 SKESK with an encrypted session key, the AEAD mode
// ("OCB", "EAX", "GCM") for v5 and v6, and "" for a v4 SKESK whose S2K
// output is the session key itself.
func (s *SKESK) SessionKeyMode() string {
	switch s.Version {
	case 5:
		return s.AEAD.String()
	case 6:
		if len(s.body) > 3 {
			return s.AEAD.String()
		}
	case 4:
		switch s.Spec.Type {
		case 0, 1, 3, 4:
			if len(s.Wrapped) > 0 {
				return "CFB"
			}
		}
	}
	return ""
}

// s2k returns the S2K specifier at its place in each version's layout
// (it may run on past the specifier), or nil when the body is too short.
func (s *SKESK) s2k() []byte {
	var at int
	switch s.Version {
	case 4:
		at = 2 // version, cipher
	case 5:
		at = 3 // version, cipher, AEAD mode
	case 6:
		at = 5 // version, field count, cipher, AEAD mode, S2K length
	}
	if len(s.body) <= at {
		return nil
	}
	return s.body[at:]
}

// S2KWork is what deriving s's key from a passphrase costs: for Argon2,
// the memory in KiB times the passes; for iterated and salted S2K, the
// octets hashed. Simple and salted S2K cost nothing worth counting. A
// caller bounds the sum over a message's SKESKs (ParseSKESK bounds one).
func (s *SKESK) S2KWork() (argon2KiBPasses, iteratedOctets uint64) {
	switch {
	case s.Spec.Type == 3:
		return 0, uint64(s.Spec.Octets())
	case s.Spec.Type == 4 && s.Spec.Len == 20:
		return uint64(s.Spec.Passes) << s.Spec.MemoryExp, 0
	}
	return 0, 0
}
