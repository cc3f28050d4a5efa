package packet

import (
	"bytes"
	"crypto"
	"encoding/binary"
	"fmt"
	"io"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/ProtonMail/go-crypto/openpgp/s2k"

	"github.com/pgpstream/pgpstream/internal/testhook"
)

// PKESK is a Public-Key Encrypted Session Key packet (RFC 9580 §5.1),
// version 3 or 6. pgpstream parses the fields that route it to a key;
// the public-key decryption is go-crypto's.
type PKESK struct {
	Version     byte
	KeyID       uint64 // v3; 0 is the wildcard ("hidden recipient")
	Fingerprint []byte // v6; empty is the wildcard
	Algo        byte   // public-key algorithm id
	Offset      int64
	body        []byte
}

// ParsePKESK parses a PKESK body.
func ParsePKESK(body []byte, offset int64) (*PKESK, error) {
	p := &PKESK{Offset: offset, body: body}
	if len(body) < 1 {
		return nil, &TruncatedError{"PKESK", offset, "the version octet"}
	}
	p.Version = body[0]
	switch p.Version {
	case 3:
		if len(body) < 10 {
			return nil, &TruncatedError{"PKESK", offset, "key ID and algorithm"}
		}
		p.KeyID = binary.BigEndian.Uint64(body[1:9])
		p.Algo = body[9]
	case 6:
		if len(body) < 3 {
			return nil, &TruncatedError{"PKESK", offset, "key version and algorithm"}
		}
		n := int(body[1])
		if len(body) < 2+n+1 {
			return nil, &TruncatedError{"PKESK", offset, "the recipient fingerprint"}
		}
		if n > 0 {
			p.Fingerprint = body[3 : 2+n] // body[2] is the key version
		}
		p.Algo = body[2+n]
	default:
		return nil, &UnsupportedError{"PKESK", offset, "version " + itoa3(p.Version) + " (known: 3, 6)"}
	}
	return p, nil
}

// Wildcard reports whether the recipient is hidden.
func (p *PKESK) Wildcard() bool {
	return (p.Version == 3 && p.KeyID == 0) || (p.Version == 6 && len(p.Fingerprint) == 0)
}

// Matches reports whether priv is the key this session key was encrypted to.
func (p *PKESK) Matches(priv *gcpacket.PrivateKey) bool {
	switch p.Version {
	case 3:
		return p.KeyID == priv.KeyId
	case 6:
		return bytes.Equal(p.Fingerprint, priv.Fingerprint)
	}
	return false
}

// ECDHDecrypter is a secret ECDH key held outside go-crypto (in
// gpg-agent): go-crypto's ECDH decryption takes only its own key type,
// so a PKESK for such a key is opened here instead. DecryptECDH is given
// the PKESK's ephemeral point and wrapped key and returns the unwrapped
// session key block: the cipher octet, the key and its two-octet
// checksum (RFC 6637 §8).
type ECDHDecrypter interface {
	DecryptECDH(ephemeral, wrapped []byte) ([]byte, error)
}

// ElGamalDecrypter is a secret ElGamal key held outside go-crypto, which
// decrypts ElGamal only with its own key type: DecryptElGamal is given
// the PKESK's two MPIs and returns the session key block inside the
// PKCS#1 v1.5 encoding (cipher octet, key, checksum).
type ElGamalDecrypter interface {
	DecryptElGamal(a, b []byte) ([]byte, error)
}

// Decrypt recovers the session key with priv, which must be unlocked. For
// v3 the cipher comes with the key; for v6 it is in the SEIPD v2 header and
// Decrypt returns 0.
func (p *PKESK) Decrypt(priv *gcpacket.PrivateKey) ([]byte, CipherAlgo, error) {
	if d, ok := priv.PrivateKey.(ECDHDecrypter); ok && p.Algo == byte(gcpacket.PubKeyAlgoECDH) {
		return p.decryptECDH(d)
	}
	if d, ok := priv.PrivateKey.(ElGamalDecrypter); ok && p.Algo == byte(gcpacket.PubKeyAlgoElGamal) {
		return p.decryptElGamal(d)
	}
	pkt := AppendHeader(nil, TagPKESK, int64(len(p.body)))
	pkt = append(pkt, p.body...)
	gp, err := gcpacket.Read(bytes.NewReader(pkt))
	if err != nil {
		return nil, 0, err
	}
	ek, ok := gp.(*gcpacket.EncryptedKey)
	if !ok {
		return nil, 0, fmt.Errorf("PKESK: unexpected %T", gp)
	}
	if err := ek.Decrypt(priv, nil); err != nil {
		if isUnsupportedCipher(err) {
			return p.decryptLegacy(priv)
		}
		return nil, 0, err
	}
	return ek.Key, CipherAlgo(ek.CipherFunc), nil
}

// decryptECDH opens a v3 ECDH PKESK through d: after the version, key
// ID and algorithm come the ephemeral point as an MPI and the wrapped
// key with a one-octet length.
func (p *PKESK) decryptECDH(d ECDHDecrypter) ([]byte, CipherAlgo, error) {
	if p.Version != 3 {
		return nil, 0, &UnsupportedError{"PKESK", p.Offset, "an ECDH PKESK of version " + itoa3(p.Version) + " for a key outside go-crypto"}
	}
	f := p.body[10:]
	if len(f) < 2 {
		return nil, 0, &TruncatedError{"PKESK", p.Offset, "the ECDH ephemeral point"}
	}
	n := (int(f[0])<<8 | int(f[1]) + 7) / 8
	if len(f) < 2+n+1 || len(f) != 2+n+1+int(f[2+n]) {
		return nil, 0, &TruncatedError{"PKESK", p.Offset, "the ECDH wrapped key"}
	}
	m, err := d.DecryptECDH(f[2:2+n], f[2+n+1:])
	if err != nil {
		return nil, 0, err
	}
	return sessionKeyBlock(m)
}

// decryptElGamal opens a v3 ElGamal PKESK through d: two MPIs follow the
// version, key ID and algorithm.
func (p *PKESK) decryptElGamal(d ElGamalDecrypter) ([]byte, CipherAlgo, error) {
	if p.Version != 3 {
		return nil, 0, &UnsupportedError{"PKESK", p.Offset, "an ElGamal PKESK of version " + itoa3(p.Version)}
	}
	f := p.body[10:]
	var mpis [2][]byte
	for i := range mpis {
		if len(f) < 2 {
			return nil, 0, &TruncatedError{"PKESK", p.Offset, "the ElGamal MPIs"}
		}
		n := (int(f[0])<<8 | int(f[1]) + 7) / 8
		if len(f) < 2+n {
			return nil, 0, &TruncatedError{"PKESK", p.Offset, "the ElGamal MPIs"}
		}
		mpis[i], f = f[2:2+n], f[2+n:]
	}
	m, err := d.DecryptElGamal(mpis[0], mpis[1])
	if err != nil {
		return nil, 0, err
	}
	return sessionKeyBlock(m)
}

// sessionKeyBlock checks and splits a v3 PKESK's session key block: the
// cipher octet, the key, and the key's two-octet checksum.
func sessionKeyBlock(m []byte) ([]byte, CipherAlgo, error) {
	if len(m) < 1+2 {
		return nil, 0, fmt.Errorf("PKESK: a session key block of %d octets", len(m))
	}
	c, key, sum := CipherAlgo(m[0]), m[1:len(m)-2], m[len(m)-2:]
	var want uint16
	for _, b := range key {
		want += uint16(b)
	}
	if binary.BigEndian.Uint16(sum) != want || len(key) != c.KeySize() {
		return nil, 0, fmt.Errorf("PKESK: the session key's checksum or size is wrong")
	}
	return key, c, nil
}

// WritePKESK encrypts sessionKey to pub: a v3 PKESK for SEIPD v1 and the
// LibrePGP AEAD packet, a v6 PKESK (v6 true) for SEIPD v2.
func WritePKESK(w io.Writer, pub *gcpacket.PublicKey, c CipherAlgo, sessionKey []byte, v6, hidden bool) error {
	return gcpacket.SerializeEncryptedKeyAEADwithHiddenOption(w, pub, gcpacket.CipherFunction(c), v6, sessionKey, hidden, nil)
}

// SKESK is a Symmetric-Key Encrypted Session Key packet (RFC 9580 §5.3):
// version 4, LibrePGP's 5 or RFC 9580's 6.
type SKESK struct {
	Version byte
	Cipher  CipherAlgo
	Offset  int64
	body    []byte
}

// ParseSKESK parses a SKESK body.
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
			return nil, &TruncatedError{"SKESK", offset, "the cipher"}
		}
		s.Cipher = CipherAlgo(body[2])
		if s.Version == 5 {
			s.Cipher = CipherAlgo(body[1])
		}
	default:
		return nil, &UnsupportedError{"SKESK", offset, "version " + itoa3(s.Version) + " (known: 4, 5, 6)"}
	}
	if s.Cipher.KeySize() == 0 {
		return nil, &UnsupportedError{"SKESK", offset, s.Cipher.String()}
	}
	if err := checkS2KCost(s.s2k(), offset); err != nil {
		return nil, err
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
	spec := s.s2k()
	if len(spec) > 0 {
		mode = spec[0]
	}
	if len(spec) > 1 && mode != 4 { // Argon2 names no hash
		hash = spec[1]
	}
	return mode, hash
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

// Bounds on what a message may ask the S2K to spend. Argon2's memory is
// allocated and its passes run before anything can be checked, so a
// hostile SKESK could otherwise demand terabytes or hours. 2 GiB with one
// pass is RFC 9580's first recommendation (§4.3.1); more is refused.
const (
	maxArgon2MemExp = 21 // 2^21 KiB = 2 GiB
	maxArgon2Passes = 16
)

// checkS2KCost refuses an Argon2 S2K (type 4: salt, passes, parallelism,
// memory exponent) beyond the bounds. Iterated S2K needs no check: its
// encoding cannot ask for more than ~65 MB of hashing.
func checkS2KCost(spec []byte, offset int64) error {
	if len(spec) < 1 || spec[0] != 4 {
		return nil
	}
	if len(spec) < 1+16+3 {
		return &TruncatedError{"SKESK", offset, "the Argon2 S2K parameters"}
	}
	t, m := spec[17], spec[19]
	if m > maxArgon2MemExp || t > maxArgon2Passes {
		return &UnsupportedError{"SKESK", offset, fmt.Sprintf("Argon2 cost: %d passes over 2^%d KiB (pgpstream allows up to %d passes over 2 GiB)", t, m, maxArgon2Passes)}
	}
	return nil
}

// S2KWork is what deriving s's key from a passphrase costs: for Argon2,
// the memory in KiB times the passes; for iterated and salted S2K, the
// octets hashed. Simple and salted S2K cost nothing worth counting. A
// caller bounds the sum over a message's SKESKs (ParseSKESK bounds one).
func (s *SKESK) S2KWork() (argon2KiBPasses, iteratedOctets uint64) {
	spec := s.s2k()
	if len(spec) < 2 {
		return 0, 0
	}
	switch spec[0] {
	case 3: // type, hash, 8 octets of salt, coded count (RFC 9580 §3.7.1.3)
		if len(spec) < 11 {
			return 0, 0
		}
		c := uint64(spec[10])
		return 0, (16 + c&15) << (c>>4 + 6)
	case 4: // type, 16 octets of salt, passes, parallelism, memory exponent
		if len(spec) < 20 {
			return 0, 0
		}
		return uint64(spec[17]) << spec[19], 0
	}
	return 0, 0
}
