package packet

import "fmt"

// S2KSpec is a string-to-key specifier (RFC 9580 §3.7.1) as written, the
// one decoder of its octets: SKESKs, secret keys (package keyring) and
// the listing (package inspect) all read specifiers with ParseS2K.
type S2KSpec struct {
	// Type is 0 (simple), 1 (salted), 3 (iterated and salted), 4
	// (Argon2), or 101 (GnuPG's extensions, see GNU); any other octet
	// is kept as read.
	Type byte
	// Hash is the octet after the type, for every type but Argon2 (which
	// names no hash). For a type ParseS2K does not know it is that octet
	// too, as gpg reads it.
	Hash HashAlgo
	// Salt is 8 octets for types 1 and 3, 16 for Argon2.
	Salt []byte
	// Count is the iterated S2K's coded count (Octets decodes it).
	Count byte
	// Argon2's passes, parallelism and memory exponent (2^MemoryExp KiB).
	Passes, Parallelism, MemoryExp byte
	// GNU is GnuPG's extension number less 1000, for type 101 with the
	// "GNU" marker: 1 (no secret: gnu-dummy), 2 (the secret is on a card).
	GNU byte
	// Len is how many octets the specifier takes. When ParseS2K returns
	// an error it is how many it read, and the fields those octets hold
	// are set: a salt cut short is the octets present.
	Len int
}

// ParseS2K decodes the specifier at the start of b; what follows it is
// b[spec.Len:]. The error is a *TruncatedError when b ends inside the
// specifier and an *UnsupportedError for a type it does not know; in
// both cases spec holds what was read (see Len). It checks no cost:
// TooCostly does.
func ParseS2K(b []byte) (spec S2KSpec, err error) {
	short := func(n int, want string) (S2KSpec, error) {
		spec.Len = n
		return spec, &TruncatedError{"S2K specifier", -1, want}
	}
	if len(b) < 1 {
		return short(0, "the S2K type")
	}
	spec.Type = b[0]
	if spec.Type == 4 {
		// type, 16 octets of salt, passes, parallelism, memory exponent
		n := min(len(b), 17)
		spec.Salt = b[1:n:n]
		if len(b) < 20 {
			return short(len(b), "the Argon2 parameters")
		}
		spec.Passes, spec.Parallelism, spec.MemoryExp = b[17], b[18], b[19]
		spec.Len = 20
		return spec, nil
	}
	if len(b) < 2 {
		return short(1, "the S2K hash")
	}
	spec.Hash = HashAlgo(b[1])
	switch spec.Type {
	case 0:
		spec.Len = 2
		return spec, nil
	case 1, 3:
		n := min(len(b), 10)
		spec.Salt = b[2:n:n]
		if len(b) < 10 {
			return short(len(b), "the S2K salt")
		}
		if spec.Type == 1 {
			spec.Len = 10
			return spec, nil
		}
		if len(b) < 11 {
			return short(10, "the S2K count")
		}
		spec.Count, spec.Len = b[10], 11
		return spec, nil
	case 101:
		// "GNU" and the extension number (GnuPG's doc/DETAILS).
		if len(b) >= 6 && string(b[2:5]) == "GNU" {
			spec.GNU, spec.Len = b[5], 6
			return spec, nil
		}
	}
	spec.Len = 2
	return spec, &UnsupportedError{"S2K specifier", -1, fmt.Sprintf("S2K type %d", spec.Type)}
}

// Octets is how many octets an iterated and salted S2K hashes (RFC 9580
// §3.7.1.3), 0 for the other types.
func (s S2KSpec) Octets() int {
	if s.Type != 3 || s.Len < 11 {
		return 0
	}
	return decodeS2KCount(s.Count)
}

// Bounds on what a specifier may ask the S2K to spend, for SKESKs
// (ParseSKESK) and secret keys (package keyring). Argon2's memory is
// allocated and its passes run before anything can be checked, so a
// hostile SKESK or secret key could otherwise demand terabytes or hours.
// 2 GiB with one pass is RFC 9580's first recommendation (§4.3.1); more
// is refused.
const (
	MaxArgon2MemExp = 21 // 2^21 KiB = 2 GiB
	MaxArgon2Passes = 16
)

// TooCostly reports whether an Argon2 specifier asks for more than 16
// passes or more than 2 GiB. Iterated S2K needs no bound: its encoding
// cannot ask for more than ~65 MB of hashing.
func (s S2KSpec) TooCostly() bool {
	return s.Type == 4 && s.Len >= 20 && (s.MemoryExp > MaxArgon2MemExp || s.Passes > MaxArgon2Passes)
}
