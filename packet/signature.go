package packet

import (
	"crypto"
	_ "crypto/sha1" // registered for crypto.Hash.New
	_ "crypto/sha256"
	_ "crypto/sha3"
	_ "crypto/sha512"
	"encoding/binary"
	"fmt"
	"hash"
	"strings"
	"time"

	"golang.org/x/crypto/ripemd160"
)

// HashAlgo is a hash algorithm id (RFC 9580 §9.5).
type HashAlgo uint8

const (
	HashMD5       HashAlgo = 1
	HashSHA1      HashAlgo = 2
	HashRIPEMD160 HashAlgo = 3
	HashSHA256    HashAlgo = 8
	HashSHA384    HashAlgo = 9
	HashSHA512    HashAlgo = 10
	HashSHA224    HashAlgo = 11
	HashSHA3_256  HashAlgo = 12
	HashSHA3_512  HashAlgo = 14
)

var hashInfo = map[HashAlgo]struct {
	name string
	h    crypto.Hash
	salt int // v6 signature salt length (RFC 9580 §9.5); 0: not allowed in v6
}{
	HashMD5:       {"MD5", crypto.MD5, 0},
	HashSHA1:      {"SHA1", crypto.SHA1, 0},
	HashRIPEMD160: {"RIPEMD160", crypto.RIPEMD160, 0},
	HashSHA256:    {"SHA256", crypto.SHA256, 16},
	HashSHA384:    {"SHA384", crypto.SHA384, 24},
	HashSHA512:    {"SHA512", crypto.SHA512, 32},
	HashSHA224:    {"SHA224", crypto.SHA224, 16},
	HashSHA3_256:  {"SHA3-256", crypto.SHA3_256, 16},
	HashSHA3_512:  {"SHA3-512", crypto.SHA3_512, 32},
}

func (a HashAlgo) String() string {
	if i, ok := hashInfo[a]; ok {
		return i.name
	}
	return fmt.Sprintf("unknown hash %d", uint8(a))
}

// Crypto is the standard library's id for a, 0 when there is none.
func (a HashAlgo) Crypto() crypto.Hash { return hashInfo[a].h }

// SaltSize is the salt length a version 6 signature or one-pass signature
// with this hash carries, 0 for a hash RFC 9580 does not allow there.
func (a HashAlgo) SaltSize() int { return hashInfo[a].salt }

// Supported reports whether New can make a hasher for a. MD5 is known by
// name but never hashed: signatures over it are forgeable.
func (a HashAlgo) Supported() bool {
	if a == HashRIPEMD160 {
		return true
	}
	return a != HashMD5 && a.Crypto() != 0 && a.Crypto().Available()
}

// New returns a fresh hasher, or nil when a is not Supported.
func (a HashAlgo) New() hash.Hash {
	if !a.Supported() {
		return nil
	}
	if a == HashRIPEMD160 {
		return ripemd160.New()
	}
	return a.Crypto().New()
}

// HashAlgoOf maps a standard library hash to its OpenPGP id, 0 when there is none.
func HashAlgoOf(h crypto.Hash) HashAlgo {
	for id, i := range hashInfo {
		if i.h == h {
			return id
		}
	}
	return 0
}

// ParseHashAlgo accepts gpg's spellings of --digest-algo: SHA256,
// SHA-256, sha256, or the number. MD5 is refused.
func ParseHashAlgo(s string) (HashAlgo, error) {
	u := strings.ToUpper(strings.ReplaceAll(s, "-", ""))
	if u == "SHA3256" || u == "SHA3512" {
		u = "SHA3-" + u[4:]
	}
	if u == "RMD160" {
		u = "RIPEMD160"
	}
	for id, i := range hashInfo {
		if id == HashMD5 {
			continue
		}
		if i.name == u || fmt.Sprint(uint8(id)) == u {
			return id, nil
		}
	}
	return 0, fmt.Errorf("unknown digest %q (use SHA256, SHA384, SHA512, SHA224 or SHA1)", s)
}

// Signature types pgpstream reads and writes (RFC 9580 §5.2.1).
const (
	SigBinary byte = 0x00 // a binary document
	SigText   byte = 0x01 // a text document, hashed with CRLF line endings
)

// Signature is what pgpstream needs to know about a Signature packet
// (RFC 9580 §5.2) before it can check it: which hash to run over which
// data, and who made it. The cryptographic check itself is done on Body
// by go-crypto.
type Signature struct {
	Version    int // 3, 4, 5 or 6
	SigType    byte
	PubKeyAlgo uint8
	Hash       HashAlgo
	Salt       []byte // version 6 only
	Created    time.Time
	// IssuerKeyID is the issuer's 64-bit key ID, from the v3 header or
	// an issuer subpacket, or derived from IssuerFingerprint; 0 if none.
	IssuerKeyID       uint64
	IssuerFingerprint []byte // from the issuer fingerprint subpacket, nil if none
	HashPrefix        [2]byte
	Body              []byte // the packet body as read

	// What a certification says of itself, from the hashed area only
	// (RFC 9580 §5.2.3.18 to §5.2.3.22): an unhashed claim could be
	// added by anyone.
	Lifetime     uint32 // signature expiration, seconds after Created; 0: none
	Local        bool   // exportable certification subpacket with 0 (§5.2.3.19)
	NonRevocable bool   // revocable subpacket with 0 (§5.2.3.20)
	TrustDepth   byte   // trust signature level (§5.2.3.21); 0: not a trust signature
	TrustAmount  byte
	TrustRegexp  []string // regular expressions (§5.2.3.22), without the NUL
	// Revokers are the revocation key subpackets (§5.2.3.23): keys the
	// signer lets revoke its key, in a direct-key self-signature.
	Revokers []Revoker
	// HashedEnd is where the hashed subpacket area ends in Body: the
	// signed part of the packet is Body[:HashedEnd] (§5.2.4). LocalAt is
	// the offset in Body of the exportable subpacket's value when Local,
	// for readers that must see the rest of the signature unchanged.
	HashedEnd, LocalAt int

	// What a signature says of its signer, from the hashed area only.
	SignerUserID   string     // signer's user ID subpacket (§5.2.3.28), as given
	Notations      []Notation // notation data subpackets (§5.2.3.24), in order
	Policy         string     // policy URI subpacket (§5.2.3.29); "" if none
	PolicyCritical bool
	Features       []byte // features subpacket (§5.2.3.32); nil if none
	// Values is the algorithm-specific part of the packet (§5.2.3):
	// what follows the hash prefix (and a v6 signature's salt), a slice
	// of Body.
	Values []byte

	// The packet as written, for a reader that lists it (package
	// inspect): a v2 or v3 signature's hashed-material length octet
	// (5), and a v4 to v6 signature's subpacket areas, slices of Body.
	MD5Len           byte
	Hashed, Unhashed []byte
}

// Revoker is one revocation key subpacket (RFC 9580 §5.2.3.23): a
// designated revoker. Class has bit 0x80 set; 0x40 marks the revoker
// sensitive (not to be exported).
type Revoker struct {
	Class       byte
	PubKeyAlgo  byte
	Fingerprint []byte // 20 octets for a v4 key, 32 for a v6 key
}

// Notation is one notation data subpacket (RFC 9580 §5.2.3.24).
type Notation struct {
	Name, Value   string
	HumanReadable bool // the first flag bit: Value is UTF-8 text
	Critical      bool
}

// Expires is when the signature expires (Created plus Lifetime), zero
// when it does not.
func (s *Signature) Expires() time.Time {
	if s.Lifetime == 0 || s.Created.IsZero() {
		return time.Time{}
	}
	return s.Created.Add(time.Duration(s.Lifetime) * time.Second)
}

// ExpiredAt reports whether the signature had expired at t.
func (s *Signature) ExpiredAt(t time.Time) bool {
	e := s.Expires()
	return !e.IsZero() && t.After(e)
}

// maxSigSubpackets bounds the subpacket areas of a data signature: real
// ones carry a few dozen bytes; certificates with embedded signatures
// are not read here.
const maxSigSubpackets = 1 << 16

// ParseSignature parses a Signature packet body. Offset is the packet's
// offset, for errors.
//
// Along with an error it returns the fields it could read, for a reader
// that only describes the packet (package inspect): a version 2
// signature (laid out as v3, refused), a v3 hashed length other than 5,
// a subpacket area beyond the bound, a v6 salt that does not fit the
// hash, malformed subpackets, and a body that ends early. The fields
// are read in wire order and those before the error are set: Created is
// the zero Time until read; SigType, PubKeyAlgo and Hash are set once
// there (for v2 and v3, with the 17 octets before the hash prefix);
// Hashed and Unhashed are non-nil once both areas were read; Values is
// non-nil once the hash prefix was, and a v6 Salt once it was read (a
// v6 body cut inside its salt has Values set to what follows the
// prefix and Salt nil). A version it does not know gives nil.
func ParseSignature(b []byte, offset int64) (*Signature, error) {
	short := func() error {
		return &TruncatedError{"signature", offset, "the rest of the signature packet"}
	}
	if len(b) < 1 {
		return nil, short()
	}
	s := &Signature{Version: int(b[0]), Body: b}
	switch s.Version {
	case 2, 3:
		// §5.2.2: hashed length 5, type, time, key ID, algorithms, prefix.
		// Version 2 is the same layout (RFC 1991), and refused whatever
		// follows.
		if s.Version == 2 {
			short = func() error { return &UnsupportedError{"signature", offset, "signature version 2"} }
		}
		if len(b) < 17 {
			return s, short()
		}
		s.MD5Len = b[1]
		s.SigType = b[2]
		s.Created = time.Unix(int64(binary.BigEndian.Uint32(b[3:])), 0)
		s.IssuerKeyID = binary.BigEndian.Uint64(b[7:])
		s.PubKeyAlgo = b[15]
		s.Hash = HashAlgo(b[16])
		if len(b) < 19 {
			return s, short()
		}
		copy(s.HashPrefix[:], b[17:19])
		s.Values = b[19:]
		if s.Version == 2 {
			return s, short()
		}
		if s.MD5Len != 5 {
			return s, &StructuralError{"signature", offset, "v3 hashed material length is not 5"}
		}
		return s, nil
	case 4, 5, 6:
	default:
		return nil, &UnsupportedError{"signature", offset, fmt.Sprintf("signature version %d", s.Version)}
	}
	lenSize := 2
	if s.Version == 6 {
		lenSize = 4
	}
	if len(b) < 4 {
		return s, short()
	}
	s.SigType, s.PubKeyAlgo, s.Hash = b[1], b[2], HashAlgo(b[3])
	// An area beyond the bound is the error even where the body also
	// ends early, as it is found first.
	var tooLarge error
	fail := func(err error) (*Signature, error) {
		if tooLarge != nil {
			return s, tooLarge
		}
		return s, err
	}
	rest := b[4:]
	var areas [2][]byte
	for i := range areas {
		if len(rest) < lenSize {
			return fail(short())
		}
		var n uint64
		if lenSize == 4 {
			n = uint64(binary.BigEndian.Uint32(rest))
		} else {
			n = uint64(binary.BigEndian.Uint16(rest))
		}
		rest = rest[lenSize:]
		if n > maxSigSubpackets && tooLarge == nil {
			tooLarge = &StructuralError{"signature", offset, "subpacket area too large"}
		}
		if uint64(len(rest)) < n {
			return fail(short())
		}
		areas[i], rest = rest[:n], rest[n:]
		if i == 0 {
			s.HashedEnd = len(b) - len(rest)
		}
	}
	s.Hashed, s.Unhashed = areas[0], areas[1]
	if len(rest) < 2 {
		return fail(short())
	}
	copy(s.HashPrefix[:], rest)
	rest = rest[2:]
	s.Values = rest
	if s.Version == 6 {
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return fail(short())
		}
		n := int(rest[0])
		s.Salt = rest[1 : 1+n]
		s.Values = rest[1+n:]
		if n != s.Hash.SaltSize() && tooLarge == nil {
			return s, &StructuralError{"signature", offset, fmt.Sprintf("salt of %d bytes does not fit %v", n, s.Hash)}
		}
	}
	if tooLarge != nil {
		return s, tooLarge
	}
	// The hashed area is authoritative; the unhashed one may only add an
	// issuer the hashed area lacks (older signers put it there).
	for i, area := range areas {
		base := 4 + lenSize
		if i == 1 {
			base = s.HashedEnd + lenSize
		}
		if err := s.subpackets(area, i == 0, base, offset); err != nil {
			return s, err
		}
	}
	if s.IssuerKeyID == 0 && s.IssuerFingerprint != nil {
		s.IssuerKeyID = KeyIDOf(s.IssuerFingerprint)
	}
	return s, nil
}

// V4Body returns the body of a v3 signature rewritten as a v4 one with
// the same type, algorithms, hash prefix and values, its creation time
// in a hashed subpacket and its issuer in an unhashed one, so that a
// reader of v4 signatures only (go-crypto) can do the public-key
// arithmetic; with the hashed trailer set to V3Trailer, what it checks
// is the v3 signature. Other versions come back as they are. gpg 2.2
// verifies v3 signatures over data and v3 subkey bindings (PGP 5 made
// them); pgpstream never makes one.
func (s *Signature) V4Body() []byte {
	if s.Version != 3 {
		return s.Body
	}
	b := s.Body // ParseSignature checked its 19-octet header
	out := make([]byte, 0, 4+2+6+2+10+len(b)-17)
	out = append(out, 4, b[2], b[15], b[16])
	out = append(out, 0, 6, 5, subCreationTime) // hashed: the creation time
	out = append(out, b[3:7]...)
	out = append(out, 0, 10, 9, subIssuerKeyID) // unhashed: the issuer
	out = append(out, b[7:15]...)
	return append(out, b[17:]...) // the hash prefix and the values
}

// V3Trailer is what a v3 signature hashes after the signed data: its
// type and creation time, and nothing else (RFC 4880 §5.2.4); nil for
// other versions.
func (s *Signature) V3Trailer() []byte {
	if s.Version != 3 {
		return nil
	}
	return s.Body[2:7:7]
}

// Subpacket types read here (RFC 9580 §5.2.3.7).
const (
	subCreationTime      = 2
	subExpiration        = 3
	subExportable        = 4
	subTrust             = 5
	subRegexp            = 6
	subRevocable         = 7
	subRevocationKey     = 12
	subIssuerKeyID       = 16
	subNotation          = 20
	subPolicyURI         = 26
	subSignerUserID      = 28
	subFeatures          = 30
	subIssuerFingerprint = 33
)

// subpackets reads one subpacket area; base is the area's offset in
// Body.
func (s *Signature) subpackets(area []byte, hashed bool, base int, offset int64) error {
	sps, ok := Subpackets(area)
	if !ok {
		return &StructuralError{"signature", offset, "malformed subpacket length"}
	}
	for _, sp := range sps {
		if hashed {
			s.certSubpacket(sp.Type, sp.Data, base+sp.At)
			s.signerSubpacket(sp)
		}
		switch sp.Type {
		case subCreationTime:
			if hashed && len(sp.Data) == 4 {
				s.Created = time.Unix(int64(binary.BigEndian.Uint32(sp.Data)), 0)
			}
		case subIssuerKeyID:
			if len(sp.Data) == 8 && (hashed || s.IssuerKeyID == 0) {
				s.IssuerKeyID = binary.BigEndian.Uint64(sp.Data)
			}
		case subIssuerFingerprint:
			if len(sp.Data) > 1 && (hashed || s.IssuerFingerprint == nil) {
				s.IssuerFingerprint = sp.Data[1:]
			}
		}
	}
	return nil
}

// Subpacket is one signature subpacket (RFC 9580 §5.2.3.7): its type
// without the critical bit, that bit, its data, and where the data start
// in the area.
type Subpacket struct {
	Type     byte
	Critical bool
	Data     []byte
	At       int
}

// Subpackets splits a subpacket area, the one decoder of subpacket
// lengths (new-format length octets without the partial form). ok is
// false at a malformed length; the subpackets before it are returned.
// The data are slices of area.
func Subpackets(area []byte) (sps []Subpacket, ok bool) {
	for at := 0; at < len(area); {
		n, size, lok := subpacketLength(area[at:])
		if !lok || n == 0 || uint64(len(area)-at-size) < n {
			return sps, false
		}
		body := area[at+size : at+size+int(n)]
		sps = append(sps, Subpacket{Type: body[0] & 0x7f, Critical: body[0]&0x80 != 0, Data: body[1:], At: at + size + 1})
		at += size + int(n)
	}
	return sps, true
}

// certSubpacket reads the hashed subpackets a certification's meaning
// depends on; one of the wrong length is left unread.
func (s *Signature) certSubpacket(typ byte, data []byte, valueAt int) {
	switch {
	case typ == subExpiration && len(data) == 4:
		s.Lifetime = binary.BigEndian.Uint32(data)
	case typ == subExportable && len(data) == 1:
		s.Local, s.LocalAt = data[0] == 0, valueAt
	case typ == subRevocable && len(data) == 1:
		s.NonRevocable = data[0] == 0
	case typ == subTrust && len(data) == 2:
		s.TrustDepth, s.TrustAmount = data[0], data[1]
	case typ == subRevocationKey && (len(data) == 22 || len(data) == 34):
		s.Revokers = append(s.Revokers, Revoker{Class: data[0], PubKeyAlgo: data[1], Fingerprint: data[2:]})
	case typ == subRegexp && len(data) > 0:
		s.TrustRegexp = append(s.TrustRegexp, strings.TrimSuffix(string(data), "\x00"))
	}
}

// signerSubpacket reads the hashed subpackets that describe the signer
// and its message: its user ID, notations, policy and features.
func (s *Signature) signerSubpacket(sp Subpacket) {
	switch sp.Type {
	case subSignerUserID:
		s.SignerUserID = string(sp.Data)
	case subFeatures:
		s.Features = sp.Data
	case subPolicyURI:
		s.Policy, s.PolicyCritical = string(sp.Data), sp.Critical
	case subNotation:
		// Four flag octets, name and value lengths, name, value.
		d := sp.Data
		if len(d) < 8 {
			return
		}
		nl, vl := int(binary.BigEndian.Uint16(d[4:])), int(binary.BigEndian.Uint16(d[6:]))
		if len(d) != 8+nl+vl {
			return
		}
		s.Notations = append(s.Notations, Notation{Name: string(d[8 : 8+nl]), Value: string(d[8+nl:]),
			HumanReadable: d[0]&0x80 != 0, Critical: sp.Critical})
	}
}

// AppendSubpacket appends one subpacket (RFC 9580 §5.2.3.7): its length,
// its type (with the critical bit when critical) and data.
func AppendSubpacket(dst []byte, typ byte, critical bool, data []byte) []byte {
	dst = AppendLength(dst, int64(len(data)+1)) // the new format's length octets
	if critical {
		typ |= 0x80
	}
	return append(append(dst, typ), data...)
}

// subpacketLength decodes a subpacket length (RFC 9580 §5.2.3.7), which
// uses the new-format packet length octets without the partial form.
func subpacketLength(b []byte) (n uint64, size int, ok bool) {
	switch {
	case len(b) < 1:
		return 0, 0, false
	case b[0] < 192:
		return uint64(b[0]), 1, true
	case b[0] < 255:
		if len(b) < 2 {
			return 0, 0, false
		}
		return (uint64(b[0])-192)<<8 + uint64(b[1]) + 192, 2, true
	default:
		if len(b) < 5 {
			return 0, 0, false
		}
		return uint64(binary.BigEndian.Uint32(b[1:])), 5, true
	}
}

// KeyIDOf derives a key ID from a fingerprint: the low 64 bits of a v4
// fingerprint, the high 64 bits of a v5 or v6 one (RFC 9580 §5.5.4).
func KeyIDOf(fpr []byte) uint64 {
	switch {
	case len(fpr) == 20:
		return binary.BigEndian.Uint64(fpr[12:])
	case len(fpr) >= 8:
		return binary.BigEndian.Uint64(fpr)
	}
	return 0
}
