package inspect

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// Report is what Inspect finds in a file, without decrypting anything. Its
// JSON form is the schema of `pgpstream inspect --json`; fields are only
// ever added to it.
type Report struct {
	// Kind is one of "encrypted message", "signed message", "detached
	// signature", "certificate", "secret key", "literal data",
	// "compressed data", "unknown".
	Kind      string `json:"kind"`
	Armored   bool   `json:"armored"`
	ArmorType string `json:"armor_type,omitempty"` // e.g. "PGP MESSAGE"
	// Recipients are the public-key session key packets: who can decrypt.
	Recipients []Recipient `json:"recipients,omitempty"`
	// Passphrases are the symmetric-key session key packets.
	Passphrases []Passphrase `json:"passphrases,omitempty"`
	// Encryption describes the encrypted data packet, when there is one.
	Encryption *Encryption `json:"encryption,omitempty"`
	// Signatures are the one-pass signatures and signatures seen outside
	// encryption (inside it they cannot be seen without decrypting).
	Signatures []Signature `json:"signatures,omitempty"`
	// Keys are the primary keys and subkeys of a certificate or key file.
	Keys []Key `json:"keys,omitempty"`
	// UserIDs of a certificate or key file, in file order.
	UserIDs []string `json:"user_ids,omitempty"`
	// Literal describes unencrypted literal data.
	Literal *Literal `json:"literal,omitempty"`
	// Compression is the algorithm of compressed data outside encryption.
	Compression string `json:"compression,omitempty"`
	// SafeToDecrypt is true when the encrypted data is integrity protected
	// (MDC or AEAD) with a cipher of 128-bit blocks and no weak S2K guards
	// its passphrase packets.
	SafeToDecrypt bool `json:"safe_to_decrypt"`
	// Warnings explain, one sentence each, what is not safe.
	Warnings []string `json:"warnings,omitempty"`
	Packets  int      `json:"packets"`
}

// Recipient is one PKESK.
type Recipient struct {
	Version     int    `json:"version"`
	KeyID       string `json:"key_id,omitempty"`      // v3; empty for a hidden recipient
	Fingerprint string `json:"fingerprint,omitempty"` // v6; empty for a hidden recipient
	Hidden      bool   `json:"hidden,omitempty"`
	Algorithm   string `json:"algorithm"`
	AlgorithmID int    `json:"algorithm_id"`
	// Known says whether the local keyring has the key; Secret whether it
	// has its secret part; UserID is the key's primary user ID.
	Known  bool   `json:"known"`
	Secret bool   `json:"secret"`
	UserID string `json:"user_id,omitempty"`
}

// Passphrase is one SKESK.
type Passphrase struct {
	Version int    `json:"version"`
	Cipher  string `json:"cipher,omitempty"` // empty for v6, where the data packet names it
	AEAD    string `json:"aead,omitempty"`
	S2K     string `json:"s2k"` // "simple", "salted", "iterated", "argon2"
	Hash    string `json:"hash,omitempty"`
	// Count is the iterated S2K's octet count.
	Count uint32 `json:"count,omitempty"`
	// Argon2's parameters.
	Passes      int   `json:"argon2_passes,omitempty"`
	Parallelism int   `json:"argon2_parallelism,omitempty"`
	MemoryKiB   int64 `json:"argon2_memory_kib,omitempty"`
}

// Encryption is the encrypted data packet.
type Encryption struct {
	Packet    string `json:"packet"` // "SEIPD v1", "SEIPD v2", "AEAD (tag 20)", "SED (tag 9)"
	Tag       int    `json:"tag"`
	Version   int    `json:"version,omitempty"`
	Cipher    string `json:"cipher,omitempty"` // in the packet for v2 and tag 20; else in the session key
	AEAD      string `json:"aead,omitempty"`
	ChunkSize int    `json:"chunk_size,omitempty"` // bytes
	Integrity string `json:"integrity"`            // "MDC", "AEAD", "none"
	Length    int64  `json:"length,omitempty"`     // 0 for partial lengths
}

// Signature is a one-pass signature or a signature packet.
type Signature struct {
	OnePass     bool   `json:"one_pass"`
	Version     int    `json:"version"`
	Type        string `json:"type"`
	Hash        string `json:"hash"`
	Algorithm   string `json:"algorithm"`
	KeyID       string `json:"key_id,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Known       bool   `json:"known"`
	UserID      string `json:"user_id,omitempty"`
}

// Key is a primary key or a subkey in a key file.
type Key struct {
	Primary     bool   `json:"primary"`
	Secret      bool   `json:"secret"`
	Version     int    `json:"version"`
	Algorithm   string `json:"algorithm"`
	Fingerprint string `json:"fingerprint"`
	KeyID       string `json:"key_id"`
	Created     int64  `json:"created"`
}

// Literal is unencrypted literal data.
type Literal struct {
	Format   string `json:"format"` // "b", "t", "u", "m"
	FileName string `json:"file_name"`
	Created  int64  `json:"created"`
}

// KeyLookup tells Inspect what the local keyring knows of a key, named by
// key ID or fingerprint (either may be empty).
type KeyLookup func(keyID uint64, fingerprint []byte) (userID string, secret, known bool)

// Inspect reads in (binary or armored) and says what it is. It decrypts
// nothing and only decompresses data outside encryption.
func Inspect(in io.Reader, lookup KeyLookup) (*Report, error) {
	rep := &Report{Kind: "unknown"}
	src := iobuf.NewReader(in, 64<<10)
	head, err := src.Peek(64)
	if len(head) == 0 {
		if err == nil || errors.Is(err, io.EOF) {
			return nil, errors.New("no OpenPGP data in the input (it is empty)")
		}
		return nil, err
	}
	var r iobuf.Reader = src
	if armor.IsArmored(head) {
		ar, err := armor.NewReader(src)
		if err != nil {
			return nil, err
		}
		rep.Armored, rep.ArmorType = true, ar.Type()
		r = iobuf.NewReader(ar, 64<<10)
	}
	if lookup == nil {
		lookup = func(uint64, []byte) (string, bool, bool) { return "", false, false }
	}
	ins := &inspector{rep: rep, lookup: lookup}
	l := &lister{observe: ins.observe}
	if err := l.stream(&counted{r: r}, 0, 0); err != nil {
		if rep.Packets == 0 {
			return nil, err
		}
		rep.Warnings = append(rep.Warnings, "the data is malformed after packet "+fmt.Sprint(rep.Packets)+": "+err.Error())
	}
	ins.finish()
	return rep, nil
}

type inspector struct {
	rep      *Report
	lookup   KeyLookup
	literal  bool
	sigs     int // signature packets at top level
	keys     bool
	secret   bool
	weakS2K  bool
	weakBody bool
}

func algoName(id byte) string { return packet.PubKeyAlgo(id).String() }

func hashName(id byte) string {
	n := map[byte]string{1: "MD5", 2: "SHA1", 3: "RIPEMD160", 8: "SHA256", 9: "SHA384", 10: "SHA512", 11: "SHA224", 12: "SHA3-256", 14: "SHA3-512"}[id]
	if n == "" {
		return fmt.Sprintf("hash %d", id)
	}
	return n
}

func cipherName(id byte) string {
	n := packet.CipherAlgo(id).String()
	if n == "" {
		return fmt.Sprintf("cipher %d", id)
	}
	return n
}

func sigTypeName(t byte) string {
	n := map[byte]string{0x00: "binary", 0x01: "text", 0x02: "standalone", 0x10: "generic certification", 0x11: "persona certification",
		0x12: "casual certification", 0x13: "positive certification", 0x18: "subkey binding", 0x19: "primary key binding",
		0x1f: "direct key", 0x20: "key revocation", 0x28: "subkey revocation", 0x30: "certification revocation", 0x40: "timestamp", 0x50: "third-party confirmation"}[t]
	if n == "" {
		return fmt.Sprintf("0x%02x", t)
	}
	return n
}

// weakCipher says whether a cipher has 64-bit blocks (SWEET32; and CFB's
// resynchronisation weakness) or is otherwise outdated.
func weakCipher(id byte) bool {
	switch packet.CipherAlgo(id) {
	case packet.CipherIDEA, packet.Cipher3DES, packet.CipherCAST5, packet.CipherBlowfish:
		return true
	}
	return id == 0
}

func (ins *inspector) observe(h packet.Header, depth int, b []byte) {
	rep := ins.rep
	rep.Packets++
	switch h.Tag {
	case packet.TagPKESK:
		ins.pkesk(b)
	case packet.TagSKESK:
		ins.skesk(b)
	case packet.TagSEIPD, packet.TagAEAD, packet.TagSED:
		if depth == 0 {
			ins.encrypted(h, b)
		}
	case packet.TagOnePassSignature:
		ins.onePass(b)
	case packet.TagSignature:
		if depth == 0 || rep.Encryption == nil {
			ins.signature(b)
		}
	case packet.TagLiteral:
		ins.literal = true
		if len(b) >= 2 && len(b) >= 2+int(b[1])+4 {
			n := int(b[1])
			rep.Literal = &Literal{Format: string(rune(b[0])), FileName: string(b[2 : 2+n]), Created: int64(binary.BigEndian.Uint32(b[2+n:]))}
		}
	case packet.TagCompressed:
		if len(b) > 0 && rep.Compression == "" {
			rep.Compression = packet.CompressionAlgo(b[0]).String()
		}
	case packet.TagPublicKey, packet.TagSecretKey, packet.TagPublicSubkey, packet.TagSecretSubkey:
		ins.key(h.Tag, b)
	case packet.TagUserID:
		rep.UserIDs = append(rep.UserIDs, string(b))
	}
}

func (ins *inspector) pkesk(b []byte) {
	p, err := packet.ParsePKESK(b, -1)
	if err != nil {
		ins.rep.Warnings = append(ins.rep.Warnings, "a public-key session key packet could not be read")
		return
	}
	r := Recipient{Version: int(p.Version), AlgorithmID: int(p.Algo), Algorithm: algoName(p.Algo)}
	var id uint64
	fp := p.Fingerprint
	switch {
	case p.Version == 3 && p.KeyID == 0, p.Version == 6 && fp == nil:
		r.Hidden = true
	case p.Version == 3:
		id = p.KeyID
		r.KeyID = fmt.Sprintf("%016X", id)
	default:
		r.Fingerprint = hexUpper(fp)
		if len(fp) == 32 {
			id = packet.KeyIDOf(fp)
		}
	}
	if !r.Hidden {
		r.UserID, r.Secret, r.Known = ins.lookup(id, fp)
	}
	ins.rep.Recipients = append(ins.rep.Recipients, r)
}

func (ins *inspector) skesk(b []byte) {
	s, _ := packet.ParseSKESK(b, -1)
	p := Passphrase{}
	// has says whether the S2K field holds n octets: a v6 SKESK's as its
	// length octet bounds it, a v4 or v5 one's as far as it was read.
	has := func(n int) bool { return s.Spec.Len >= n }
	switch {
	case s != nil && s.Version == 4 && s.Spec.Len >= 2:
		p.Version, p.Cipher = 4, cipherName(byte(s.Cipher))
		if weakCipher(byte(s.Cipher)) {
			ins.weakBody = true
			ins.rep.Warnings = append(ins.rep.Warnings, "a passphrase packet uses "+p.Cipher+", a cipher with 64-bit blocks")
		}
	case s != nil && s.Version == 5 && s.Spec.Len >= 2:
		p.Version, p.Cipher, p.AEAD = 5, cipherName(byte(s.Cipher)), s.AEAD.String()
	case s != nil && s.Version == 6 && s.Wrapped != nil:
		p.Version, p.Cipher, p.AEAD = 6, cipherName(byte(s.Cipher)), s.AEAD.String()
		has = func(n int) bool { return s.SpecLen >= n }
	default:
		ins.rep.Warnings = append(ins.rep.Warnings, "a passphrase packet could not be read")
		return
	}
	if !has(1) {
		return
	}
	sp := s.Spec
	switch sp.Type {
	case 0:
		p.S2K = "simple"
		ins.weakS2K = true
		ins.rep.Warnings = append(ins.rep.Warnings, "a passphrase packet uses the simple S2K (no salt, one hash): the passphrase is cheap to guess")
	case 1:
		p.S2K = "salted"
		ins.weakS2K = true
		ins.rep.Warnings = append(ins.rep.Warnings, "a passphrase packet uses the salted S2K (one hash): the passphrase is cheap to guess")
	case 3:
		p.S2K = "iterated"
		if has(11) {
			p.Count = uint32(sp.Octets())
		}
	case 4:
		p.S2K = "argon2"
		if has(20) {
			p.Passes, p.Parallelism, p.MemoryKiB = int(sp.Passes), int(sp.Parallelism), int64(1)<<sp.MemoryExp
		}
	default:
		p.S2K = fmt.Sprintf("S2K %d", sp.Type)
	}
	if sp.Type < 4 && has(2) {
		p.Hash = hashName(byte(sp.Hash))
	}
	ins.rep.Passphrases = append(ins.rep.Passphrases, p)
}

func (ins *inspector) encrypted(h packet.Header, b []byte) {
	e := &Encryption{Tag: int(h.Tag)}
	if h.Kind == packet.Definite {
		e.Length = h.Length
	}
	switch h.Tag {
	case packet.TagSED:
		e.Packet, e.Integrity = "SED (tag 9)", "none"
		ins.weakBody = true
		ins.rep.Warnings = append(ins.rep.Warnings, "the data is Symmetrically Encrypted Data (tag 9), which has no integrity protection: anyone can have modified it")
	case packet.TagSEIPD:
		if len(b) >= 1 {
			e.Version = int(b[0])
		}
		switch {
		case e.Version == 1:
			e.Packet, e.Integrity = "SEIPD v1", "MDC"
		case e.Version == 2 && len(b) >= 4:
			e.Packet, e.Integrity = "SEIPD v2", "AEAD"
			e.Cipher, e.AEAD, e.ChunkSize = cipherName(b[1]), packet.AEADAlgo(b[2]).String(), packet.ChunkSize(b[3])
		default:
			e.Packet, e.Integrity = fmt.Sprintf("SEIPD v%d", e.Version), "unknown"
			ins.weakBody = true
			ins.rep.Warnings = append(ins.rep.Warnings, "the encrypted data packet has an unknown version")
		}
	case packet.TagAEAD:
		e.Packet, e.Integrity = "AEAD (tag 20)", "AEAD"
		if len(b) >= 4 {
			e.Version = int(b[0])
			e.Cipher, e.AEAD, e.ChunkSize = cipherName(b[1]), packet.AEADAlgo(b[2]).String(), packet.ChunkSize(b[3])
		}
	}
	if e.Cipher != "" && len(b) >= 2 && weakCipher(b[1]) {
		ins.weakBody = true
		ins.rep.Warnings = append(ins.rep.Warnings, "the data is encrypted with "+e.Cipher+", a cipher with 64-bit blocks")
	}
	ins.rep.Encryption = e
}

func (ins *inspector) onePass(b []byte) {
	o, _ := packet.ParseOnePassSignature(b, -1)
	if o == nil {
		return
	}
	s := Signature{OnePass: true, Version: o.Version, Type: sigTypeName(o.SigType), Hash: hashName(byte(o.Hash)), Algorithm: algoName(o.PubKeyAlgo)}
	if o.Version == 3 {
		s.KeyID = fmt.Sprintf("%016X", o.KeyID)
	} else {
		s.Fingerprint = hexUpper(o.Fingerprint)
	}
	s.UserID, _, s.Known = ins.lookup(o.KeyID, o.Fingerprint)
	ins.rep.Signatures = append(ins.rep.Signatures, s)
}

func (ins *inspector) signature(b []byte) {
	if len(b) < 4 {
		return
	}
	ins.sigs++
	sig, _ := packet.ParseSignature(b, -1)
	if sig == nil {
		return
	}
	s := Signature{Version: sig.Version}
	var id uint64
	var fp []byte
	switch sig.Version {
	case 3:
		if sig.Created.IsZero() { // the 17 octets before the hash prefix are not all there
			return
		}
		id = sig.IssuerKeyID
	case 4, 6:
		id, fp = sigIssuer(sig)
		if len(fp) > 0 {
			s.Fingerprint = hexUpper(fp)
		}
	default:
		return
	}
	s.Type, s.Algorithm, s.Hash = sigTypeName(sig.SigType), algoName(sig.PubKeyAlgo), hashName(byte(sig.Hash))
	if id != 0 {
		s.KeyID = fmt.Sprintf("%016X", id)
	}
	// Key files carry many signatures; only a message's are listed.
	if !ins.keys {
		s.UserID, _, s.Known = ins.lookup(id, fp)
		ins.rep.Signatures = append(ins.rep.Signatures, s)
	}
}

func (ins *inspector) key(tag packet.Tag, b []byte) {
	ins.keys = true
	k := Key{Primary: tag == packet.TagPublicKey || tag == packet.TagSecretKey, Secret: tag == packet.TagSecretKey || tag == packet.TagSecretSubkey}
	if k.Secret {
		ins.secret = true
	}
	if len(b) >= 6 {
		k.Version, k.Created, k.Algorithm = int(b[0]), int64(binary.BigEndian.Uint32(b[1:5])), algoName(b[5])
	}
	if pk, err := parsePublic(b); err == nil {
		k.Fingerprint, k.KeyID = hexUpper(pk.Fingerprint), fmt.Sprintf("%016X", pk.KeyId)
	}
	ins.rep.Keys = append(ins.rep.Keys, k)
}

func (ins *inspector) finish() {
	rep := ins.rep
	switch {
	case rep.Encryption != nil:
		rep.Kind = "encrypted message"
		rep.SafeToDecrypt = rep.Encryption.Integrity == "MDC" || rep.Encryption.Integrity == "AEAD"
		rep.SafeToDecrypt = rep.SafeToDecrypt && !ins.weakBody && !ins.weakS2K
		if len(rep.Recipients)+len(rep.Passphrases) == 0 {
			rep.Warnings = append(rep.Warnings, "no session key packet precedes the encrypted data: nobody can decrypt it")
			rep.SafeToDecrypt = false
		}
	case ins.keys && ins.secret:
		rep.Kind = "secret key"
	case ins.keys:
		rep.Kind = "certificate"
	case ins.literal && len(rep.Signatures) > 0:
		rep.Kind = "signed message"
	case ins.literal:
		rep.Kind = "literal data"
	case ins.sigs > 0:
		rep.Kind = "detached signature"
	case rep.Compression != "":
		rep.Kind = "compressed data"
	}
}
