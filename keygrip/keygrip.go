// Package keygrip computes GnuPG's keygrip of a public key: the name
// gpg-agent files a secret key under (private-keys-v1.d/GRIP.key) and
// asks for in HAVEKEY, SETKEY and SIGKEY, and what gpg --with-keygrip
// prints.
//
// A keygrip is libgcrypt's gcry_pk_get_keygrip: a SHA-1 over the key's
// public parameters, independent of the OpenPGP packet (creation time,
// version), so the same key material has one keygrip in every format.
//
//   - RSA: SHA-1 over the modulus n, big-endian, with one zero byte in
//     front when its top bit is set (a positive number in two's
//     complement, as gpg passes it to libgcrypt).
//   - ECC: SHA-1 over the concatenated S-expressions (1:p<len>:<p>)
//     (1:a..)(1:b..)(1:g..)(1:n..)(1:q..) of the curve's domain parameters
//     (g as the uncompressed point 04||x||y; the cofactor is left out)
//     and of the public point q as OpenPGP stores it, except that an
//     Ed25519 or Curve25519 q loses its 0x40 prefix. Ed25519's a and b are
//     hashed as the magnitudes of libgcrypt's historical negative
//     constants -1 and -d, whatever the curve table says today, so that
//     keygrips stayed stable across libgcrypt versions.
package keygrip

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strconv"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/packet"
)

// Grip is a keygrip.
type Grip [20]byte

// String is the keygrip as gpg prints it: 40 upper-case hex digits.
func (g Grip) String() string { return fmt.Sprintf("%X", g[:]) }

// Parse reads a keygrip in hex.
func Parse(s string) (Grip, error) {
	var g Grip
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(g) {
		return g, fmt.Errorf("keygrip %q: want 40 hex digits", s)
	}
	copy(g[:], b)
	return g, nil
}

// ErrUnsupported is returned for a key whose algorithm or curve has no
// keygrip here.
var ErrUnsupported = errors.New("no keygrip for this kind of key")

// OpenPGP public-key algorithms (RFC 9580 §9.1).
const (
	algoRSA        = 1
	algoRSAEncrypt = 2
	algoRSASign    = 3
	algoElGamal    = 16
	algoDSA        = 17
	algoECDH       = 18
	algoECDSA      = 19
	algoEdDSA      = 22 // the legacy EdDSA of RFC 4880bis / LibrePGP
	algoX25519     = 25
	algoEd25519    = 27
)

// Of returns the keygrip of pk, a primary key or subkey.
func Of(pk *gcpacket.PublicKey) (Grip, error) {
	var buf bytes.Buffer
	if err := pk.Serialize(&buf); err != nil {
		return Grip{}, err
	}
	_, body, _, err := packet.SplitPacket(buf.Bytes(), 0)
	if err != nil {
		return Grip{}, err
	}
	return FromPacket(body)
}

// FromPacket returns the keygrip of a public key or subkey packet's
// body (v4, v5 or v6; a secret key packet's body starts the same way).
func FromPacket(body []byte) (Grip, error) {
	if len(body) < 6 {
		return Grip{}, errors.New("keygrip: key packet too short")
	}
	algo := body[5]
	fields := body[6:]
	switch body[0] {
	case 4:
	case 5, 6:
		if len(fields) < 4 {
			return Grip{}, errors.New("keygrip: key packet too short")
		}
		fields = fields[4:] // the length of the key material
	default:
		return Grip{}, fmt.Errorf("keygrip: key version %d", body[0])
	}
	switch algo {
	case algoRSA, algoRSAEncrypt, algoRSASign:
		n, _, err := mpi(fields)
		if err != nil {
			return Grip{}, err
		}
		// libgcrypt hashes n as gpg hands it over: a positive
		// number in two's complement, so with a zero byte before a
		// top bit that is set.
		return sha1.Sum(positive(n)), nil
	case algoDSA, algoElGamal:
		// libgcrypt hashes the named parameters (DSA: p, q, g, y;
		// ElGamal: p, g, y) each as an S-expression, "(1:p3:...)".
		names := "pqgy"
		if algo == algoElGamal {
			names = "pgy"
		}
		h := sha1.New()
		rest := fields
		for i := 0; i < len(names); i++ {
			v, r, err := mpi(rest)
			if err != nil {
				return Grip{}, err
			}
			rest = r
			v = positive(v)
			fmt.Fprintf(h, "(1:%c%d:", names[i], len(v))
			h.Write(v)
			h.Write([]byte(")"))
		}
		var g Grip
		copy(g[:], h.Sum(nil))
		return g, nil
	case algoECDH, algoECDSA, algoEdDSA:
		if len(fields) < 1 || int(fields[0]) == 0 || int(fields[0]) == 0xff || len(fields) < 1+int(fields[0]) {
			return Grip{}, errors.New("keygrip: bad curve OID")
		}
		oid := fields[1 : 1+fields[0]]
		q, _, err := mpi(fields[1+fields[0]:])
		if err != nil {
			return Grip{}, err
		}
		return ecc(hex.EncodeToString(oid), q)
	case algoEd25519:
		if len(fields) < 32 {
			return Grip{}, errors.New("keygrip: short Ed25519 key")
		}
		// The same key as legacy EdDSA over Ed25519, which stores the
		// point with gpg's 0x40 prefix.
		return ecc(oidEd25519, append([]byte{0x40}, fields[:32]...))
	case algoX25519:
		if len(fields) < 32 {
			return Grip{}, errors.New("keygrip: short X25519 key")
		}
		return ecc(oidCurve25519, append([]byte{0x40}, fields[:32]...))
	}
	return Grip{}, fmt.Errorf("%w: public-key algorithm %d", ErrUnsupported, algo)
}

// positive is an MPI's value as libgcrypt hands it to the hash: a
// positive number in two's complement, so with a zero byte before a top
// bit that is set.
func positive(v []byte) []byte {
	v = bytes.TrimLeft(v, "\x00")
	if len(v) > 0 && v[0]&0x80 != 0 {
		v = append([]byte{0}, v...)
	}
	return v
}

// mpi splits an OpenPGP MPI (RFC 9580 §3.2) off the front of b.
func mpi(b []byte) (v, rest []byte, err error) {
	if len(b) < 2 {
		return nil, nil, errors.New("keygrip: truncated MPI")
	}
	n := (int(b[0])<<8 | int(b[1]) + 7) / 8
	if len(b) < 2+n {
		return nil, nil, errors.New("keygrip: truncated MPI")
	}
	return b[2 : 2+n], b[2+n:], nil
}

func ecc(oid string, q []byte) (Grip, error) {
	c, ok := curves[oid]
	if !ok {
		return Grip{}, fmt.Errorf("%w: curve OID %s", ErrUnsupported, oid)
	}
	if c.compact {
		// libgcrypt hashes an Ed25519 or Curve25519 point as its 32
		// bytes, without the prefix OpenPGP stores.
		if len(q) == 33 && q[0] == 0x40 {
			q = q[1:]
		}
	} else {
		q = bytes.TrimLeft(q, "\x00")
	}
	h := sha1.New()
	for _, e := range []struct {
		name string
		v    []byte
	}{{"p", c.p}, {"a", c.a}, {"b", c.b}, {"g", c.g}, {"n", c.n}, {"q", q}} {
		h.Write([]byte("(1:" + e.name + strconv.Itoa(len(e.v)) + ":"))
		h.Write(e.v)
		h.Write([]byte(")"))
	}
	var g Grip
	h.Sum(g[:0])
	return g, nil
}

// curve is libgcrypt's domain parameters of a curve, as the bytes it
// hashes: magnitudes without leading zeros (its Ed25519 entry gives a and
// b as negative numbers, whose magnitudes are hashed), g as 04||x||y with
// x and y at the field's width.
type curve struct {
	p, a, b, g, n []byte
	compact       bool // q is hashed without its 0x40 prefix
}

const (
	oidEd25519    = "2b06010401da470f01"
	oidCurve25519 = "2b060104019755010501"
)

var curves = map[string]*curve{
	oidEd25519: compact(mk(32,
		"7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFED",
		"01",
		"2DFC9311D490018C7338BF8688861767FF8FF5B2BEBE27548A14B235ECA6874A",
		"1000000000000000000000000000000014DEF9DEA2F79CD65812631A5CF5D3ED",
		"216936D3CD6E53FEC0A4E231FDD6DC5C692CC7609525A7B2C9562D608F25D51A",
		"6666666666666666666666666666666666666666666666666666666666666658")),
	oidCurve25519: compact(mk(32,
		"7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFED",
		"01DB41",
		"01",
		"1000000000000000000000000000000014DEF9DEA2F79CD65812631A5CF5D3ED",
		"09",
		"20AE19A1B8A086B4E01EDD2C7748D14C923D4D7E6D7C61B229E9C5A27ECED3D9")),
	"2a8648ce3d030107": mk(32, // NIST P-256
		"ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
		"ffffffff00000001000000000000000000000000fffffffffffffffffffffffc",
		"5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
		"ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
		"6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
		"4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"),
	"2b81040022": mk(48, // NIST P-384
		"fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff",
		"fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000fffffffc",
		"b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef",
		"ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973",
		"aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7",
		"3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f"),
	"2b81040023": mk(66, // NIST P-521
		"01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
		"01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc",
		"0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00",
		"01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409",
		"00c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66",
		"011839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e662c97ee72995ef42640c550b9013fad0761353c7086a272c24088be94769fd16650"),
	"2b2403030208010107": mk(32, // brainpoolP256r1
		"a9fb57dba1eea9bc3e660a909d838d726e3bf623d52620282013481d1f6e5377",
		"7d5a0975fc2c3057eef67530417affe7fb8055c126dc5c6ce94a4b44f330b5d9",
		"26dc5c6ce94a4b44f330b5d9bbd77cbf958416295cf7e1ce6bccdc18ff8c07b6",
		"a9fb57dba1eea9bc3e660a909d838d718c397aa3b561a6f7901e0e82974856a7",
		"8bd2aeb9cb7e57cb2c4b482ffc81b7afb9de27e1e3bd23c23a4453bd9ace3262",
		"547ef835c3dac4fd97f8461a14611dc9c27745132ded8e545c1d54c72f046997"),
	"2b240303020801010b": mk(48, // brainpoolP384r1
		"8cb91e82a3386d280f5d6f7e50e641df152f7109ed5456b412b1da197fb71123acd3a729901d1a71874700133107ec53",
		"7bc382c63d8c150c3c72080ace05afa0c2bea28e4fb22787139165efba91f90f8aa5814a503ad4eb04a8c7dd22ce2826",
		"04a8c7dd22ce28268b39b55416f0447c2fb77de107dcd2a62e880ea53eeb62d57cb4390295dbc9943ab78696fa504c11",
		"8cb91e82a3386d280f5d6f7e50e641df152f7109ed5456b31f166e6cac0425a7cf3ab6af6b7fc3103b883202e9046565",
		"1d1c64f068cf45ffa2a63a81b7c13f6b8847a3e77ef14fe3db7fcafe0cbd10e8e826e03436d646aaef87b2e247d4af1e",
		"8abe1d7520f9c2a45cb1eb8e95cfd55262b70b29feec5864e19c054ff99129280e4646217791811142820341263c5315"),
	"2b240303020801010d": mk(64, // brainpoolP512r1
		"aadd9db8dbe9c48b3fd4e6ae33c9fc07cb308db3b3c9d20ed6639cca703308717d4d9b009bc66842aecda12ae6a380e62881ff2f2d82c68528aa6056583a48f3",
		"7830a3318b603b89e2327145ac234cc594cbdd8d3df91610a83441caea9863bc2ded5d5aa8253aa10a2ef1c98b9ac8b57f1117a72bf2c7b9e7c1ac4d77fc94ca",
		"3df91610a83441caea9863bc2ded5d5aa8253aa10a2ef1c98b9ac8b57f1117a72bf2c7b9e7c1ac4d77fc94cadc083e67984050b75ebae5dd2809bd638016f723",
		"aadd9db8dbe9c48b3fd4e6ae33c9fc07cb308db3b3c9d20ed6639cca70330870553e5c414ca92619418661197fac10471db1d381085ddaddb58796829ca90069",
		"81aee4bdd82ed9645a21322e9c4c6a9385ed9f70b5d916c1b43b62eef4d0098eff3b1f78e2d0d48d50d1687b93b97d5f7c6d5047406a5e688b352209bcb9f822",
		"7dde385d566332ecc0eabfa9cf7822fdf209f70024a57b1aa000c55b881f8111b2dcde494a5f485e5bca4bd88a2763aed1ca2b2fa8f0540678cd1e0f3ad80892"),
}

func mk(width int, p, a, b, n, gx, gy string) *curve {
	num := func(s string) []byte {
		v, ok := new(big.Int).SetString(s, 16)
		if !ok {
			panic("keygrip: bad curve constant " + s)
		}
		return v.Bytes()
	}
	g := []byte{4}
	g = append(g, num(gx)...)
	g = append(g[:1], new(big.Int).SetBytes(g[1:]).FillBytes(make([]byte, width))...)
	g = append(g, new(big.Int).SetBytes(num(gy)).FillBytes(make([]byte, width))...)
	return &curve{p: num(p), a: num(a), b: num(b), g: g, n: num(n)}
}

func compact(c *curve) *curve { c.compact = true; return c }
