package keyring

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// Keygrip computes libgcrypt's keygrip of a public key: the identifier
// gpg-agent files secret keys under (private-keys-v1.d/GRIP.key), and
// what gpg --with-keygrip prints. It is the SHA-1 of the key's public
// parameters as libgcrypt's canonical S-expression holds them
// (cipher/rsa.c and cipher/ecc.c, compute_keygrip), so it does not depend
// on the OpenPGP key version or creation time:
//
//   - RSA: the modulus n, as gpg hands it to libgcrypt: big-endian with a
//     leading zero octet when its top bit is set;
//   - ECC: "(1:p<len>:<p>)" and the same for a, b, g, n (the curve's
//     parameters, unsigned big-endian) and q, the public point. Ed25519
//     and Curve25519 points are hashed in their compact form, without
//     the 0x40 prefix OpenPGP stores; Weierstrass points as stored (0x04,
//     x, y).
func Keygrip(pk *packet.PublicKey) ([]byte, error) {
	body, err := publicBody(pk)
	if err != nil {
		return nil, err
	}
	h := sha1.New()
	if err := keygripData(h.Write, body); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// KeygripHex is Keygrip in upper-case hex, as gpg prints it.
func KeygripHex(pk *packet.PublicKey) string {
	g, err := Keygrip(pk)
	if err != nil {
		return ""
	}
	return strings.ToUpper(hex.EncodeToString(g))
}

// publicBody serializes pk and returns the key packet's body.
func publicBody(pk *packet.PublicKey) ([]byte, error) {
	var buf bytes.Buffer
	if err := pk.Serialize(&buf); err != nil {
		return nil, err
	}
	pkts, err := splitPackets(buf.Bytes())
	if err != nil || len(pkts) != 1 {
		return nil, errors.New("keyring: cannot frame the serialized public key")
	}
	return pkts[0].body, nil
}

var errGripAlgo = errors.New("keyring: no keygrip for this public-key algorithm")

func keygripData(write func([]byte) (int, error), body []byte) error {
	if len(body) < 6 {
		return ErrMalformed
	}
	v, algo := body[0], body[5]
	rest := body[6:]
	if v == 6 {
		if len(rest) < 4 {
			return ErrMalformed
		}
		rest = rest[4:]
	}
	mpi := func() ([]byte, error) {
		if len(rest) < 2 {
			return nil, ErrMalformed
		}
		n := (int(binary.BigEndian.Uint16(rest)) + 7) / 8
		if len(rest) < 2+n {
			return nil, ErrMalformed
		}
		m := rest[2 : 2+n]
		rest = rest[2+n:]
		return bytes.TrimLeft(m, "\x00"), nil
	}
	oid := func() (string, error) {
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return "", ErrMalformed
		}
		o := hex.EncodeToString(rest[1 : 1+int(rest[0])])
		rest = rest[1+int(rest[0]):]
		return o, nil
	}
	switch packet.PublicKeyAlgorithm(algo) {
	case packet.PubKeyAlgoRSA, packet.PubKeyAlgoRSAEncryptOnly, packet.PubKeyAlgoRSASignOnly:
		n, err := mpi()
		if err != nil {
			return err
		}
		if len(n) > 0 && n[0]&0x80 != 0 {
			write([]byte{0})
		}
		write(n)
		return nil
	case packet.PubKeyAlgoECDSA, packet.PubKeyAlgoEdDSA, packet.PubKeyAlgoECDH:
		o, err := oid()
		if err != nil {
			return err
		}
		q, err := mpi()
		if err != nil {
			return err
		}
		c, ok := gripCurves[o]
		if !ok {
			return fmt.Errorf("%w: curve OID %s", errGripAlgo, o)
		}
		if c.compact && len(q) == 33 && q[0] == 0x40 {
			q = q[1:]
		}
		for i, name := range []byte("pabgn") {
			writeSexpPart(write, name, c.params[i])
		}
		writeSexpPart(write, 'q', q)
		return nil
	}
	return errGripAlgo
}

func writeSexpPart(write func([]byte) (int, error), name byte, v []byte) {
	write(fmt.Appendf(nil, "(1:%c%d:", name, len(v)))
	write(v)
	write([]byte(")"))
}

type gripCurve struct {
	params  [5][]byte // p, a, b, g, n
	compact bool      // q is hashed in its compact form, without the 0x40 prefix
}

func unhex(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return bytes.TrimLeft(b, "\x00")
}

// gripCurves holds libgcrypt's parameters (cipher/ecc-curves.c) for the
// curves OpenPGP keys use, keyed by the hex of the curve's OID.
var gripCurves = func() map[string]gripCurve {
	p25519 := unhex("7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFED")
	n25519 := unhex("1000000000000000000000000000000014DEF9DEA2F79CD65812631A5CF5D3ED")
	ed := gripCurve{params: [5][]byte{
		p25519,
		// libgcrypt writes a = -1 and b = -d, and hashes their
		// magnitudes.
		unhex("01"),
		unhex("2DFC9311D490018C7338BF8688861767FF8FF5B2BEBE27548A14B235ECA6874A"),
		unhex("04 216936D3CD6E53FEC0A4E231FDD6DC5C692CC7609525A7B2C9562D608F25D51A" +
			"6666666666666666666666666666666666666666666666666666666666666658"),
		n25519,
	}, compact: true}
	cv := gripCurve{params: [5][]byte{
		p25519,
		unhex("01DB41"),
		unhex("01"),
		unhex("04 0000000000000000000000000000000000000000000000000000000000000009" +
			"20AE19A1B8A086B4E01EDD2C7748D14C923D4D7E6D7C61B229E9C5A27ECED3D9"),
		n25519,
	}, compact: true}
	p256 := gripCurve{params: [5][]byte{
		unhex("FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF"),
		unhex("FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFC"),
		unhex("5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B"),
		unhex("04 6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296" +
			"4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5"),
		unhex("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551"),
	}}
	p384 := gripCurve{params: [5][]byte{
		unhex("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFFFF0000000000000000FFFFFFFF"),
		unhex("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFFFF0000000000000000FFFFFFFC"),
		unhex("B3312FA7E23EE7E4988E056BE3F82D19181D9C6EFE8141120314088F5013875AC656398D8A2ED19D2A85C8EDD3EC2AEF"),
		unhex("04 AA87CA22BE8B05378EB1C71EF320AD746E1D3B628BA79B9859F741E082542A385502F25DBF55296C3A545E3872760AB7" +
			"3617DE4A96262C6F5D9E98BF9292DC29F8F41DBD289A147CE9DA3113B5F0B8C00A60B1CE1D7E819D7A431D7C90EA0E5F"),
		unhex("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF581A0DB248B0A77AECEC196ACCC52973"),
	}}
	return map[string]gripCurve{
		"2b06010401da470f01":   ed,   // 1.3.6.1.4.1.11591.15.1 Ed25519
		"2b060104019755010501": cv,   // 1.3.6.1.4.1.3029.1.5.1 Curve25519
		"2a8648ce3d030107":     p256, // 1.2.840.10045.3.1.7 NIST P-256
		"2b81040022":           p384, // 1.3.132.0.34 NIST P-384
	}
}()
