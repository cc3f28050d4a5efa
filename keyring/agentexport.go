package keyring

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/agent"
	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// agentSecretBlock is secretExportBlock for a key whose secret parts
// gpg-agent holds, as gpg 2.2 exports it (g10/export.c): the public
// certificate with each key packet replaced by a secret one built from
// its public body and what the agent hands out for its keygrip.
//
// A protected key comes back protected with the same passphrase: the
// agent asks for it and re-encrypts the secret parameters in OpenPGP's
// S2K form (iterated and salted SHA-1, AES-128, SHA-1 check), so the
// packet needs the passphrase the agent's key needs. A key with no
// passphrase comes back in the clear and is written unprotected, as gpg
// writes it. A (sub)key the agent does not hold is a GNU dummy stub (S2K
// 1001), one on a smartcard a divert-to-card stub (S2K 1002) with the
// card's serial number. With stubPrimary the primary key is written as
// a GNU dummy stub without asking the agent (--export-secret-subkeys).
func (k *Key) agentSecretBlock(stubPrimary bool) (*block, error) {
	if k.agent == nil {
		return nil, fmt.Errorf("keyring: key %s: %w", k.Fingerprint(), ErrNoSecretKey)
	}
	b := k.pub.clone()
	comps := []*component{&b.primary}
	for i := range b.subs {
		comps = append(comps, &b.subs[i])
	}
	for i, c := range comps {
		if i == 0 && stubPrimary {
			c.pkt = gnuDummyPacket(c.pkt, tagSecretKey)
			continue
		}
		pk, _, err := parseKey(c.pkt)
		if err != nil {
			return nil, err
		}
		sec, err := k.agentSecretPacket(c.pkt, pk, i > 0)
		if err != nil {
			return nil, err
		}
		c.pkt = sec
	}
	return b, nil
}

// agentSecretPacket is the secret form of the key packet pub (pk).
func (k *Key) agentSecretPacket(pub rawPacket, pk *packet.PublicKey, sub bool) (rawPacket, error) {
	a := k.agent
	tag := byte(tagSecretKey)
	if sub {
		tag = tagSecretSubkey
	}
	ki, held := a.holds(pk, true)
	if a.err != nil {
		return rawPacket{}, fmt.Errorf("keyring: key %X: %w", pk.Fingerprint, a.err)
	}
	body := append([]byte(nil), pub.body...)
	switch {
	case !held:
		return gnuDummyPacket(pub, tag), nil
	case ki.Type == "T":
		serial, _ := hex.DecodeString(ki.Serial)
		if len(serial) > 16 {
			serial = serial[:16] // gpg keeps the first 16 bytes
		}
		body = append(body, 0xff, 0, 101, 0, 'G', 'N', 'U', 2, byte(len(serial)))
		body = append(body, serial...)
	default:
		secret, err := k.agentSecretPart(pub, pk, ki, sub)
		if err != nil {
			return rawPacket{}, err
		}
		body = append(body, secret...)
	}
	return secretKeyPacket(pub, tag, body), nil
}

// secretKeyPacket frames body with the header style the public packet
// came with: gpg 2.2 writes key packets with old-format headers, and
// an export is compared with gpg's packet for packet.
func secretKeyPacket(pub rawPacket, tag byte, body []byte) rawPacket {
	p := rawPacket{tag: tag, body: body}
	if len(pub.hdr) > 0 && pub.hdr[0]&0x40 == 0 {
		p.hdr = pgppacket.AppendOldHeader(nil, pgppacket.Tag(tag), int64(len(body)))
		p.hdrLen = len(body)
	}
	return p
}

// agentSecretPart asks the agent for pk's secret parameters and returns
// them as a secret-key packet's tail (RFC 4880 section 5.5.3): the S2K
// usage octet and what follows it.
func (k *Key) agentSecretPart(pub rawPacket, pk *packet.PublicKey, ki agent.KeyInfo, sub bool) ([]byte, error) {
	a := k.agent
	params, err := openPGPParams(pub.body)
	if err != nil {
		return nil, fmt.Errorf("keyring: key %X: %w", pk.Fingerprint, err)
	}
	g, _ := a.grip(pk)
	s, err := a.conn.ExportKey(g, k.exportPrompt(pk, sub), !ki.Clear)
	if err != nil {
		if errors.Is(err, agent.ErrBadPassphrase) {
			return nil, fmt.Errorf("keyring: key %X: error receiving key from agent: %w (%v)", pk.Fingerprint, ErrBadPassphrase, err)
		}
		return nil, fmt.Errorf("keyring: key %X: error receiving key from agent: %w", pk.Fingerprint, err)
	}
	tk, err := agent.ParseTransferKey(s)
	if err != nil {
		return nil, fmt.Errorf("keyring: key %X: %w", pk.Fingerprint, err)
	}
	if err := params.match(tk); err != nil {
		return nil, fmt.Errorf("keyring: key %X: the agent's secret key does not match it: %w", pk.Fingerprint, err)
	}
	if tk.Secret != nil {
		// Unprotected: the MPIs and their two-octet sum.
		out := []byte{0}
		sum := 0
		for _, v := range tk.Secret {
			n := len(out)
			out = appendMPI(out, v)
			for _, c := range out[n:] {
				sum += int(c)
			}
		}
		return append(out, byte(sum>>8), byte(sum)), nil
	}
	cipher, ok := cipherIDs[tk.Cipher]
	if !ok || len(tk.IV) != cipher.block {
		return nil, fmt.Errorf("keyring: key %X: the agent protected it with cipher %q and a %d-byte IV, which OpenPGP cannot say", pk.Fingerprint, tk.Cipher, len(tk.IV))
	}
	hash, ok := hashIDs[tk.S2KHash]
	if !ok || tk.S2KMode != 3 {
		return nil, fmt.Errorf("keyring: key %X: the agent protected it with S2K mode %d hash %q, which is not OpenPGP's iterated and salted S2K", pk.Fingerprint, tk.S2KMode, tk.S2KHash)
	}
	// Usage 254: SHA-1 check; then the cipher and the S2K specifier
	// (mode 3: hash, salt, coded count), the IV and the encrypted MPIs.
	out := []byte{254, cipher.id, 3, hash}
	out = append(out, tk.Salt...)
	out = append(out, byte(tk.S2KCount))
	out = append(out, tk.IV...)
	return append(out, tk.Protected...), nil
}

// exportPrompt is gpg's prompt for the passphrase of an export
// (gpg_format_keydesc, FORMAT_KEYDESC_EXPORT).
func (k *Key) exportPrompt(pk *packet.PublicKey, sub bool) string {
	what, main := "key", ""
	if sub {
		what = "subkey"
		main = fmt.Sprintf(" (main key ID %016X)", k.whole.PrimaryKey.KeyId)
	}
	_, nbits := algoName(pk)
	return fmt.Sprintf("Please enter the passphrase to export the OpenPGP secret %s:\n\"%s\"\n%d-bit %s key, ID %016X,\ncreated %s%s.\n",
		what, k.PrimaryUserID(), nbits, pgppacket.PubKeyAlgo(pk.PubKeyAlgo).GPGName(), pk.KeyId,
		pk.CreationTime.UTC().Format(time.DateOnly), main)
}

type cipherID struct {
	id    byte
	block int
}

// cipherIDs are libgcrypt's cipher names (gcry_cipher_map_name) with
// OpenPGP's numbers for them.
var cipherIDs = map[string]cipherID{
	"aes": {7, 16}, "aes128": {7, 16}, "aes192": {8, 16}, "aes256": {9, 16},
	"3des": {2, 8}, "cast5": {3, 8}, "blowfish": {4, 8}, "twofish": {10, 16},
	"camellia128": {11, 16}, "camellia192": {12, 16}, "camellia256": {13, 16},
}

// hashIDs are libgcrypt's hash names with OpenPGP's numbers.
var hashIDs = map[string]byte{"sha1": 2, "ripemd160": 3, "rmd160": 3, "sha256": 8, "sha384": 9, "sha512": 10, "sha224": 11}

// curveOIDs are the curve names gpg-agent's keys carry (libgcrypt's and
// GnuPG's spellings) with the OIDs OpenPGP names them by, hex.
var curveOIDs = map[string]string{
	"ed25519": "2b06010401da470f01", "curve25519": "2b060104019755010501", "cv25519": "2b060104019755010501",
	"nist p-256": "2a8648ce3d030107", "nistp256": "2a8648ce3d030107", "prime256v1": "2a8648ce3d030107", "secp256r1": "2a8648ce3d030107",
	"nist p-384": "2b81040022", "nistp384": "2b81040022", "secp384r1": "2b81040022",
	"nist p-521": "2b81040023", "nistp521": "2b81040023", "secp521r1": "2b81040023",
	"brainpoolp256r1": "2b2403030208010107", "brainpoolp384r1": "2b240303020801010b", "brainpoolp512r1": "2b240303020801010d",
	"secp256k1":              "2b8104000a",
	"1.3.6.1.4.1.11591.15.1": "2b06010401da470f01", "1.3.6.1.4.1.3029.1.5.1": "2b060104019755010501",
	"1.2.840.10045.3.1.7": "2a8648ce3d030107", "1.3.132.0.34": "2b81040022", "1.3.132.0.35": "2b81040023",
	"1.3.36.3.3.2.8.1.1.7": "2b2403030208010107", "1.3.36.3.3.2.8.1.1.11": "2b240303020801010b",
	"1.3.36.3.3.2.8.1.1.13": "2b240303020801010d", "1.3.132.0.10": "2b8104000a",
}

// keyParams are the public parameters of a v4 key packet, as the
// agent's algorithm names them.
type keyParams struct {
	algo   string   // libgcrypt's: rsa, dsa, elg, ecc
	oid    []byte   // an ECC key's curve
	values [][]byte // the MPIs, leading zeros stripped
}

// openPGPParams reads the public parameters of a v4 key packet body
// (RFC 4880 section 5.5.2): version, time, algorithm, then per algorithm
// MPIs, with an ECC key's curve OID first.
func openPGPParams(body []byte) (*keyParams, error) {
	if len(body) < 6 || body[0] != 4 {
		v := -1
		if len(body) > 0 {
			v = int(body[0])
		}
		return nil, fmt.Errorf("exporting a version %d key's secret part from gpg-agent is not supported (gpg 2.2 exports v4 keys)", v)
	}
	algo := pgppacket.PubKeyAlgo(body[5])
	p := &keyParams{}
	n := 0
	ecc := false
	switch body[5] {
	case 1, 2, 3:
		p.algo, n = "rsa", 2
	case 16, 20:
		p.algo, n = "elg", 3
	case 17:
		p.algo, n = "dsa", 4
	case 18, 19, 22:
		p.algo, n, ecc = "ecc", 1, true
	default:
		return nil, fmt.Errorf("exporting the secret part of a %s key (algorithm %d) from gpg-agent is not supported", algo.GPGName(), body[5])
	}
	rest := body[6:]
	if ecc {
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return nil, fmt.Errorf("%w: truncated curve OID", ErrMalformed)
		}
		p.oid, rest = rest[1:1+int(rest[0])], rest[1+int(rest[0]):]
	}
	for range n {
		if len(rest) < 2 {
			return nil, fmt.Errorf("%w: truncated key MPI", ErrMalformed)
		}
		l := (int(rest[0])<<8 | int(rest[1]) + 7) / 8
		if len(rest) < 2+l {
			return nil, fmt.Errorf("%w: truncated key MPI", ErrMalformed)
		}
		p.values = append(p.values, bytes.TrimLeft(rest[2:2+l], "\x00"))
		rest = rest[2+l:]
	}
	return p, nil
}

// match checks that the agent's key is this key: gpg compares the
// public parameters before it writes the secret ones beside them.
func (p *keyParams) match(tk *agent.TransferKey) error {
	if tk.Algo != p.algo {
		return fmt.Errorf("it is an %s key, the packet an %s key", tk.Algo, p.algo)
	}
	if p.oid != nil {
		oid, ok := curveOIDs[strings.ToLower(tk.Curve)]
		if !ok {
			return fmt.Errorf("no OID known for curve %q", tk.Curve)
		}
		if oid != hex.EncodeToString(p.oid) {
			return fmt.Errorf("its curve %s is not the packet's (OID %x)", tk.Curve, p.oid)
		}
	}
	if len(tk.Public) != len(p.values) {
		return fmt.Errorf("%d public parameters, the packet has %d", len(tk.Public), len(p.values))
	}
	for i, v := range tk.Public {
		if !bytes.Equal(bytes.TrimLeft(v, "\x00"), p.values[i]) {
			return fmt.Errorf("public parameter %d differs", i+1)
		}
	}
	return nil
}

// appendMPI appends v, a big-endian magnitude, as an OpenPGP MPI
// (RFC 4880 section 3.2): its bit count, then its bytes without leading
// zeros.
func appendMPI(dst, v []byte) []byte {
	v = bytes.TrimLeft(v, "\x00")
	n := 0
	if len(v) > 0 {
		n = 8*(len(v)-1) + bits.Len8(v[0])
	}
	dst = append(dst, byte(n>>8), byte(n))
	return append(dst, v...)
}
