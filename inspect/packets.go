// Package inspect describes OpenPGP data without acting on it: the
// packet listing gpg prints for --list-packets, and a summary of what a
// file is, who can open it and whether it is safe to (Inspect).
//
// The framing is package packet's; this package only reads the fields of
// each body and says them the way GnuPG 2.2's g10/parse-packet.c does, so
// that a listing pasted into a bug report reads the same whichever tool
// made it.
package inspect

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/internal/escape"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// Packet is one listed packet. The JSON form is the schema of
// `--list-packets --json`: the header fields as gpg's "# off=" line names
// them, and the description lines that follow it, without their tabs.
type Packet struct {
	Offset        int64    `json:"off"`
	CTB           uint8    `json:"ctb"`
	Tag           int      `json:"tag"`
	Name          string   `json:"name"`
	HeaderLen     int      `json:"hlen"`
	BodyLen       int64    `json:"plen"` // 0 for partial and indeterminate lengths, as gpg says
	Partial       bool     `json:"partial,omitempty"`
	Indeterminate bool     `json:"indeterminate,omitempty"`
	NewFormat     bool     `json:"new_ctb,omitempty"`
	Depth         int      `json:"depth"` // 0 at top level, 1 inside encrypted or compressed data, ...
	Lines         []string `json:"lines"`
}

// Text is the packet as gpg --list-packets prints it.
func (p *Packet) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# off=%d ctb=%02x tag=%d hlen=%d plen=%d", p.Offset, p.CTB, p.Tag, p.HeaderLen, p.BodyLen)
	switch {
	case p.Partial:
		b.WriteString(" partial")
	case p.Indeterminate:
		b.WriteString(" indeterminate")
	}
	if p.NewFormat {
		b.WriteString(" new-ctb")
	}
	b.WriteByte('\n')
	for i, l := range p.Lines {
		if i > 0 {
			b.WriteByte('\t')
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// ListOptions configure ListPackets.
type ListOptions struct {
	// Keys, when set, opens encrypted data so that the packets inside are
	// listed too, as gpg does when it holds the key.
	Keys filter.Keys
	// SessionKey, when set, is told the session key once it is known
	// (gpg's --show-session-key).
	SessionKey func(c packet.CipherAlgo, aead packet.AEADAlgo, key []byte)
	// Packet is called for each packet as it is listed.
	Packet func(*Packet)
	// MaxDecompressed bounds what compressed packets may inflate to (0: none).
	MaxDecompressed int64
}

// ErrNotDecrypted says that encrypted data was listed from outside only:
// no key or passphrase opened it.
var ErrNotDecrypted = errors.New("the encrypted data was not decrypted")

// maxBody bounds the bodies read whole for listing (keys, signatures,
// session key packets); larger ones are described from their first bytes.
const maxBody = 1 << 20

// ListPackets lists the packets of in (binary, or ASCII armored). It lists
// as far as it can: a malformed packet ends the listing with an error.
// With opt.Keys, encrypted data whose session key can be recovered is
// decrypted and its contents listed; when it cannot be, the listing
// continues and ErrNotDecrypted (wrapping why) is returned at the end.
func ListPackets(in io.Reader, opt ListOptions) error {
	src, err := OpenStream(in)
	if err != nil {
		return err
	}
	l := &lister{opt: opt}
	if err := l.stream(&counted{r: src}, 0, 0); err != nil {
		return err
	}
	return l.notDecrypted
}

// OpenStream buffers in and strips ASCII armor when it starts with it.
func OpenStream(in io.Reader) (iobuf.Reader, error) {
	src := iobuf.NewReader(in, 64<<10)
	head, err := src.Peek(64)
	if len(head) == 0 {
		if err == nil || errors.Is(err, io.EOF) {
			return nil, errors.New("no OpenPGP data in the input")
		}
		return nil, err
	}
	if !armor.IsArmored(head) {
		return src, nil
	}
	ar, err := armor.NewReader(src)
	if err != nil {
		return nil, err
	}
	return iobuf.NewReader(ar, 64<<10), nil
}

// counted is an iobuf.Reader that counts what was consumed, so offsets
// inside decrypted or decompressed data can be given as gpg gives them:
// where the containing body started, plus the bytes read from it.
type counted struct {
	r iobuf.Reader
	n int64
}

func (c *counted) Peek(n int) ([]byte, error) { return c.r.Peek(n) }
func (c *counted) Consume(n int)              { c.r.Consume(n); c.n += int64(n) }
func (c *counted) Read(p []byte) (int, error) { return iobuf.ReadVia(c, p) }

type lister struct {
	opt ListOptions
	// observe, when set, sees each packet's body (for key, signature and
	// session key packets) or its first octets (for data packets).
	observe      func(h packet.Header, depth int, b []byte)
	pkesks       []*packet.PKESK
	skesks       []*packet.SKESK
	notDecrypted error
}

// stream lists every packet of r; base is the offset gpg gives r's first byte.
func (l *lister) stream(r *counted, base int64, depth int) error {
	for {
		off := base + r.n
		h, err := packet.ReadHeader(r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		h.Offset = off
		p := headerPacket(h, depth)
		body := packet.NewBody(r, h)
		if err := l.packet(p, h, body, base+r.n, depth); err != nil {
			return err
		}
		if err := body.Discard(); err != nil {
			return err
		}
	}
}

func headerPacket(h packet.Header, depth int) *Packet {
	p := &Packet{Offset: h.Offset, Tag: int(h.Tag), Name: h.Tag.String(), HeaderLen: h.Size, NewFormat: h.NewFormat, Depth: depth}
	if h.NewFormat {
		p.CTB = 0xc0 | byte(h.Tag)
	} else {
		lt := byte(3)
		switch h.Size {
		case 2:
			lt = 0
		case 3:
			lt = 1
		case 5:
			lt = 2
		}
		if h.Kind == packet.Indeterminate {
			lt = 3
		}
		p.CTB = 0x80 | byte(h.Tag)<<2 | lt
	}
	switch h.Kind {
	case packet.Definite:
		p.BodyLen = h.Length
	case packet.Partial:
		p.Partial = true
	case packet.Indeterminate:
		p.Indeterminate = true
	}
	return p
}

func (l *lister) see(h packet.Header, depth int, b []byte) {
	if l.observe != nil {
		l.observe(h, depth, b)
	}
}

func (l *lister) emit(p *Packet) {
	if l.opt.Packet != nil {
		l.opt.Packet(p)
	}
}

// packet describes one packet; bodyOff is the offset of its body's first
// byte, the base for what is nested inside it.
func (l *lister) packet(p *Packet, h packet.Header, body *packet.Body, bodyOff int64, depth int) error {
	switch h.Tag {
	case packet.TagLiteral:
		return l.literal(p, h, body, depth)
	case packet.TagCompressed:
		return l.compressed(p, h, body, bodyOff, depth)
	case packet.TagSEIPD, packet.TagSED, packet.TagAEAD:
		return l.encrypted(p, h, body, bodyOff, depth)
	}
	b, err := body.ReadAll(maxBody)
	if err != nil {
		return err
	}
	l.see(h, depth, b)
	switch h.Tag {
	case packet.TagPKESK:
		p.Lines = describePKESK(b)
		if k, err := packet.ParsePKESK(b, h.Offset); err == nil {
			l.pkesks = append(l.pkesks, k)
		}
	case packet.TagSKESK:
		p.Lines = describeSKESK(b)
		if k, err := packet.ParseSKESK(b, h.Offset); err == nil {
			l.skesks = append(l.skesks, k)
		}
	case packet.TagSignature:
		p.Lines = describeSignature(b)
	case packet.TagOnePassSignature:
		p.Lines = describeOnePass(b)
	case packet.TagPublicKey, packet.TagPublicSubkey, packet.TagSecretKey, packet.TagSecretSubkey:
		p.Lines = describeKey(h.Tag, b)
	case packet.TagUserID:
		p.Lines = []string{":user ID packet: \"" + escape.PacketListing(string(b)) + "\""}
	case packet.TagUserAttribute:
		p.Lines = []string{":attribute packet: " + describeAttribute(b)}
	case packet.TagMarker:
		if string(b) == "PGP" {
			p.Lines = []string{":marker packet: PGP"}
		} else {
			p.Lines = []string{":marker packet: [invalid]"}
		}
	case packet.TagTrust:
		p.Lines = describeTrust(b)
	case packet.TagMDC:
		p.Lines = []string{fmt.Sprintf(":mdc packet: length=%d", len(b))}
	default:
		p.Lines = unknownPacket(int(h.Tag), b)
	}
	l.emit(p)
	return nil
}

func unknownPacket(tag int, b []byte) []string {
	var s strings.Builder
	fmt.Fprintf(&s, "dump:")
	for i, c := range b {
		if i > 0 && i%8 == 0 {
			if i%24 == 0 {
				fmt.Fprintf(&s, "\n%4d:", i)
			} else {
				s.WriteByte(' ')
			}
		}
		fmt.Fprintf(&s, " %02x", c)
	}
	// gpg continues the dump on lines of its own, without a tab.
	return []string{fmt.Sprintf(":unknown packet: type %2d, length %d", tag, len(b)) + "\n" + s.String()}
}

func (l *lister) literal(p *Packet, h packet.Header, body *packet.Body, depth int) error {
	head, err := body.Peek(2)
	if len(head) < 2 {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		p.Lines = []string{":literal data packet: [too short]"}
		l.emit(p)
		return nil
	}
	mode, nlen := head[0], int(head[1])
	head, _ = body.Peek(2 + nlen + 4)
	if len(head) < 2+nlen+4 {
		p.Lines = []string{":literal data packet: [too short]"}
		l.emit(p)
		return nil
	}
	l.see(h, depth, head)
	name := head[2 : 2+nlen]
	created := binary.BigEndian.Uint32(head[2+nlen:])
	m := mode
	if m < ' ' || m >= 'z' {
		m = '?'
	}
	line := fmt.Sprintf("mode %c (%X), created %d, name=\"%s\",", m, mode, created, escape.PacketListing(string(name)))
	raw := "raw data: unknown length"
	if h.Kind == packet.Definite {
		raw = fmt.Sprintf("raw data: %d bytes", h.Length-int64(6+nlen))
	}
	p.Lines = []string{":literal data packet:", line, raw}
	l.emit(p)
	body.Consume(2 + nlen + 4)
	return nil
}

func (l *lister) compressed(p *Packet, h packet.Header, body *packet.Body, bodyOff int64, depth int) error {
	head, _ := body.Peek(1)
	if len(head) < 1 {
		p.Lines = []string{":compressed packet: [too short]"}
		l.emit(p)
		return nil
	}
	algo := packet.CompressionAlgo(head[0])
	l.see(h, depth, head[:1])
	body.Consume(1)
	p.Lines = []string{fmt.Sprintf(":compressed packet: algo=%d", algo)}
	l.emit(p)
	if depth+1 > filter.MaxNesting {
		return fmt.Errorf("packets nested more than %d deep", filter.MaxNesting)
	}
	dec, err := filter.NewDecompressor(body, algo, l.opt.MaxDecompressed)
	if err != nil {
		return err
	}
	defer dec.Close()
	return l.stream(&counted{r: iobuf.NewReader(dec, 64<<10)}, bodyOff+1, depth+1)
}

func (l *lister) encrypted(p *Packet, h packet.Header, body *packet.Body, bodyOff int64, depth int) error {
	length := "length: unknown"
	if h.Kind == packet.Definite {
		length = fmt.Sprintf("length: %d", h.Length)
	}
	if head, _ := body.Peek(4); len(head) > 0 {
		l.see(h, depth, head)
	} else {
		l.see(h, depth, nil)
	}
	switch h.Tag {
	case packet.TagSED:
		p.Lines = []string{":encrypted data packet:", length}
		l.emit(p)
		l.notDecrypted = fmt.Errorf("%w: symmetrically encrypted data (tag 9) has no integrity protection and is not opened for listing", ErrNotDecrypted)
		return nil
	case packet.TagAEAD:
		head, _ := body.Peek(4)
		if len(head) < 4 {
			p.Lines = []string{":aead encrypted packet: [too short]"}
		} else if head[0] != 1 {
			p.Lines = []string{":aead encrypted packet: [unknown version]"}
		} else {
			p.Lines = []string{fmt.Sprintf(":aead encrypted packet: cipher=%d aead=%d cb=%d", head[1], head[2], head[3]), length}
		}
		l.emit(p)
		if l.opt.Keys == nil || len(p.Lines) < 2 {
			return nil
		}
		key, _, err := l.sessionKey()
		if err != nil {
			l.notDecrypted = fmt.Errorf("%w: %v", ErrNotDecrypted, err)
			return nil
		}
		a, err := packet.ReadAEADData(body, h.Offset)
		if err != nil {
			return err
		}
		if l.opt.SessionKey != nil {
			l.opt.SessionKey(a.Cipher, a.AEAD, key)
		}
		r, err := filter.OpenAEADData(body, a, key, 0)
		if err != nil {
			return err
		}
		defer r.Close()
		// gpg counts the four fixed octets and the IV into its offsets.
		return l.inside(r, bodyOff+4+int64(len(a.IV)), depth)
	}
	head, _ := body.Peek(4)
	if len(head) < 1 {
		p.Lines = []string{":encrypted data packet: [too short]"}
		l.emit(p)
		return nil
	}
	switch head[0] {
	case 1:
		p.Lines = []string{":encrypted data packet:", length, "mdc_method: 2"}
	case 2:
		// GnuPG 2.2 knows no SEIPD v2 and says "[unknown version]";
		// the fields are given the way the tag 20 line gives them.
		if len(head) < 4 {
			p.Lines = []string{":encrypted data packet: [too short]"}
		} else {
			p.Lines = []string{":encrypted data packet:", length, fmt.Sprintf("version 2, cipher=%d aead=%d cb=%d", head[1], head[2], head[3])}
		}
		l.emit(p)
		if l.opt.Keys == nil || len(p.Lines) < 3 {
			return nil
		}
		key, _, err := l.sessionKey()
		if err != nil {
			l.notDecrypted = fmt.Errorf("%w: %v", ErrNotDecrypted, err)
			return nil
		}
		sp, err := packet.ReadSEIPD(body, h.Offset)
		if err != nil {
			return err
		}
		if l.opt.SessionKey != nil {
			l.opt.SessionKey(sp.Cipher, sp.AEAD, key)
		}
		r, err := filter.OpenSEIPDv2(body, sp, key, 0)
		if err != nil {
			return err
		}
		defer r.Close()
		return l.inside(r, bodyOff+4+32, depth)
	default:
		p.Lines = []string{":encrypted data packet: [unknown version]"}
		l.emit(p)
		return nil
	}
	l.emit(p)
	if l.opt.Keys == nil {
		return nil
	}
	key, c, err := l.sessionKey()
	if err != nil {
		l.notDecrypted = fmt.Errorf("%w: %v", ErrNotDecrypted, err)
		return nil
	}
	if l.opt.SessionKey != nil {
		l.opt.SessionKey(c, 0, key)
	}
	body.Consume(1)
	m, err := filter.NewMDCReader(body, c, key)
	if err != nil {
		return err
	}
	// gpg counts the version octet and the CFB prefix into its offsets.
	return l.inside(m, bodyOff+1+int64(c.BlockSize())+2, depth)
}

// inside lists the decrypted packets of plain, reporting a parse error
// only once the integrity check passed, and then as one generic error.
func (l *lister) inside(plain iobuf.Reader, base int64, depth int) error {
	if depth+1 > filter.MaxNesting {
		return fmt.Errorf("packets nested more than %d deep", filter.MaxNesting)
	}
	inner := &counted{r: plain}
	if err := l.stream(inner, base, depth+1); err != nil {
		if errors.Is(err, filter.ErrAuthentication) {
			return err
		}
		if derr := iobuf.Discard(inner); derr != nil {
			return derr
		}
		return filter.ErrMalformed
	}
	return iobuf.Discard(inner)
}

// sessionKey tries the PKESKs, then the SKESKs, read before the data.
func (l *lister) sessionKey() ([]byte, packet.CipherAlgo, error) {
	var last error
	for _, p := range l.pkesks {
		for _, priv := range l.opt.Keys.DecryptionKeys(p) {
			if err := l.opt.Keys.Unlock(priv); err != nil {
				last = err
				continue
			}
			key, c, err := p.Decrypt(priv)
			if err == nil {
				return key, c, nil
			}
			last = err
		}
	}
	if len(l.skesks) > 0 {
		pass, err := l.opt.Keys.Passphrase()
		if err != nil {
			return nil, 0, err
		}
		for _, s := range l.skesks {
			if key, c, err := s.Decrypt(pass); err == nil {
				return key, c, nil
			}
		}
		return nil, 0, filter.ErrBadPassphrase
	}
	if last != nil {
		return nil, 0, last
	}
	return nil, 0, filter.ErrNoSecretKey
}

func hexUpper(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) }

// mpiBits reads an MPI (RFC 9580 §3.2) and gives its bit count as
// libgcrypt computes it: leading zero bits do not count.
func mpiBits(b []byte) (bits int, rest []byte, ok bool) {
	if len(b) < 2 {
		return 0, b, false
	}
	n := int(binary.BigEndian.Uint16(b))
	nb := (n + 7) / 8
	if len(b) < 2+nb {
		return 0, b, false
	}
	v := b[2 : 2+nb]
	for len(v) > 0 && v[0] == 0 {
		v = v[1:]
	}
	if len(v) > 0 {
		bits = (len(v)-1)*8 + bitLen8(v[0])
	}
	return bits, b[2+nb:], true
}

func bitLen8(c byte) int {
	n := 0
	for c != 0 {
		n++
		c >>= 1
	}
	return n
}

// sizedBody reads a one-octet length and that many octets (an OID, ECDH's
// KDF parameters or wrapped key); gpg shows it as an opaque value of
// 8*(1+n) bits.
func sizedBody(b []byte) (body []byte, rest []byte, ok bool) {
	if len(b) < 1 || len(b) < 1+int(b[0]) {
		return nil, b, false
	}
	return b[1 : 1+int(b[0])], b[1+int(b[0]):], true
}

// oidString renders a DER OID body in dotted form.
func oidString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	var parts []string
	first := true
	var v uint64
	for _, c := range b {
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 != 0 {
			continue
		}
		if first {
			x := v / 40
			if x > 2 {
				x = 2
			}
			parts = append(parts, strconv.FormatUint(x, 10), strconv.FormatUint(v-40*x, 10))
			first = false
		} else {
			parts = append(parts, strconv.FormatUint(v, 10))
		}
		v = 0
	}
	return strings.Join(parts, ".")
}

// curveNames are GnuPG's short names for the curves' OIDs.
var curveNames = map[string]string{
	"1.3.6.1.4.1.3029.1.5.1": "cv25519",
	"1.3.6.1.4.1.11591.15.1": "ed25519",
	"1.3.101.110":            "cv25519",
	"1.3.101.112":            "ed25519",
	"1.3.101.111":            "cv448",
	"1.3.101.113":            "ed448",
	"1.2.840.10045.3.1.7":    "nistp256",
	"1.3.132.0.34":           "nistp384",
	"1.3.132.0.35":           "nistp521",
	"1.3.36.3.3.2.8.1.1.7":   "brainpoolP256r1",
	"1.3.36.3.3.2.8.1.1.11":  "brainpoolP384r1",
	"1.3.36.3.3.2.8.1.1.13":  "brainpoolP512r1",
	"1.3.132.0.10":           "secp256k1",
}

// Algorithm ids (RFC 9580 §9.1), as bytes to compare with a packet's.
const (
	algoRSA        = byte(packet.PubKeyRSA)
	algoRSAEncrypt = byte(packet.PubKeyRSAEncryptOnly)
	algoRSASign    = byte(packet.PubKeyRSASignOnly)
	algoElgamal    = byte(packet.PubKeyElGamal)
	algoDSA        = byte(packet.PubKeyDSA)
	algoECDH       = byte(packet.PubKeyECDH)
	algoECDSA      = byte(packet.PubKeyECDSA)
	algoElgamalOld = byte(packet.PubKeyElGamalOld)
	algoEdDSA      = byte(packet.PubKeyEdDSA)
	algoX25519     = byte(packet.PubKeyX25519)
	algoX448       = byte(packet.PubKeyX448)
	algoEd25519    = byte(packet.PubKeyEd25519)
	algoEd448      = byte(packet.PubKeyEd448)
)

func describePKESK(b []byte) []string {
	p, err := packet.ParsePKESK(b, -1)
	switch {
	case errors.Is(err, packet.ErrTruncated):
		return []string{":pubkey enc packet: [too short]"}
	case err != nil:
		return []string{":pubkey enc packet: [unknown version]"}
	case p.Version == 3:
		return append([]string{fmt.Sprintf(":pubkey enc packet: version 3, algo %d, keyid %016X", p.Algo, p.KeyID)}, encData(p.Algo, p.Fields)...)
	}
	// GnuPG 2.2 knows no v6 PKESK; said in the same shape.
	line := fmt.Sprintf(":pubkey enc packet: version 6, algo %d, fpr %s", p.Algo, hexUpper(p.Fingerprint))
	return append([]string{line}, encData(p.Algo, p.Fields)...)
}

func encData(algo byte, b []byte) []string {
	var out []string
	switch algo {
	case algoRSA, algoRSAEncrypt:
		if bits, _, ok := mpiBits(b); ok {
			out = append(out, fmt.Sprintf("data: [%d bits]", bits))
		}
	case algoElgamal, algoElgamalOld:
		for i := 0; i < 2; i++ {
			bits, rest, ok := mpiBits(b)
			if !ok {
				break
			}
			out = append(out, fmt.Sprintf("data: [%d bits]", bits))
			b = rest
		}
	case algoECDH:
		bits, rest, ok := mpiBits(b)
		if !ok {
			break
		}
		out = append(out, fmt.Sprintf("data: [%d bits]", bits))
		if w, _, ok := sizedBody(rest); ok {
			out = append(out, fmt.Sprintf("data: [%d bits]", 8*(1+len(w))))
		}
	default:
		out = append(out, fmt.Sprintf("unsupported algorithm %d", algo))
	}
	return out
}

// s2kCount decodes the iteration count octet (RFC 9580 §3.7.1.3).
func s2kCount(c byte) uint32 { return (16 + uint32(c&15)) << ((c >> 4) + 6) }

func describeSKESK(b []byte) []string {
	if len(b) < 4 { // gpg's shortest SKESK
		return []string{":symkey enc packet: [too short]"}
	}
	s, _ := packet.ParseSKESK(b, -1)
	sp := s.Spec
	switch s.Version {
	case 4, 5:
		return describeS2KESK(s)
	case 6:
		if s.Wrapped == nil || s.SpecLen < 1 {
			return []string{":symkey enc packet: [too short]"}
		}
		// The listing holds the specifier to its length octet.
		line := fmt.Sprintf(":symkey enc packet: version 6, cipher %d, aead %d,s2k %d", s.Cipher, s.AEAD, sp.Type)
		out := []string{line}
		if sp.Type == 4 && s.SpecLen == 20 {
			out = append(out, fmt.Sprintf("salt %s, passes %d, parallelism %d, memory 2^%d KiB", hexUpper(sp.Salt), sp.Passes, sp.Parallelism, sp.MemoryExp))
		} else if s.SpecLen >= 2 {
			// The octet after the type: for Argon2, the salt's first.
			hash := byte(sp.Hash)
			if sp.Type == 4 {
				hash = sp.Salt[0]
			}
			out[0] += fmt.Sprintf(", hash %d", hash)
			if (sp.Type == 1 || sp.Type == 3) && s.SpecLen >= 10 {
				l := "salt " + hexUpper(sp.Salt)
				if sp.Type == 3 && s.SpecLen >= 11 {
					l += fmt.Sprintf(", count %d (%d)", sp.Octets(), sp.Count)
				}
				out = append(out, l)
			}
		}
		return out
	}
	return []string{":symkey enc packet: [unknown version]"}
}

// describeS2KESK lists a v4 or v5 SKESK.
func describeS2KESK(s *packet.SKESK) []string {
	sp := s.Spec
	if sp.Len < 2 {
		return []string{":symkey enc packet: [too short]"}
	}
	switch sp.Type {
	case 0, 1, 3:
	default:
		return []string{":symkey enc packet: [unknown S2K mode]"}
	}
	if s.Wrapped == nil {
		return []string{":symkey enc packet: [too short]"}
	}
	line := fmt.Sprintf(":symkey enc packet: version %d, cipher %d, aead %d,s2k %d, hash %d", s.Version, s.Cipher, s.AEAD, sp.Type, sp.Hash)
	if sk := len(s.Wrapped); sk > 0 {
		if s.AEAD != 0 {
			line += fmt.Sprintf(", encrypted seskey %d bytes", sk)
		} else {
			line += fmt.Sprintf(", seskey %d bits", (sk-1)*8)
		}
	}
	out := []string{line}
	if sp.Type == 1 || sp.Type == 3 {
		l := "salt " + hexUpper(sp.Salt)
		if sp.Type == 3 {
			l += fmt.Sprintf(", count %d (%d)", sp.Octets(), sp.Count)
		}
		out = append(out, l)
	}
	return out
}

func describeOnePass(b []byte) []string {
	o, err := packet.ParseOnePassSignature(b, -1)
	var unsupported *packet.UnsupportedError
	switch {
	case o != nil && o.Version == 3:
		return []string{
			fmt.Sprintf(":onepass_sig packet: keyid %016X", o.KeyID),
			fmt.Sprintf("version 3, sigclass 0x%02x, digest %d, pubkey %d, last=%d", o.SigType, o.Hash, o.PubKeyAlgo, o.Nested),
		}
	case o != nil:
		return []string{
			fmt.Sprintf(":onepass_sig packet: fpr %s", hexUpper(o.Fingerprint)),
			fmt.Sprintf("version 6, sigclass 0x%02x, digest %d, pubkey %d, last=%d", o.SigType, o.Hash, o.PubKeyAlgo, o.Nested),
		}
	case errors.As(err, &unsupported):
		return []string{":onepass_sig packet: [unknown version]"}
	}
	return []string{":onepass_sig packet: [too short]"}
}

func sigDataCount(algo byte) int {
	switch algo {
	case algoRSA, algoRSASign, algoRSAEncrypt:
		return 1
	case algoDSA, algoECDSA, algoEdDSA, algoElgamal, algoElgamalOld:
		return 2
	}
	return 0
}

// subpacket is one signature subpacket.
type subpacket = packet.Subpacket

// splitSubpackets splits a subpacket area (RFC 9580 §5.2.3.7).
func splitSubpackets(b []byte) ([]subpacket, bool) { return packet.Subpackets(b) }

func gpgDate(sec uint32) string { return time.Unix(int64(sec), 0).UTC().Format("2006-01-02") }

// timeValue is gpg's strtimevalue: "1y2d3h4m" with leading zero units left off.
func timeValue(v uint32) string {
	v /= 60
	minutes := v % 60
	v /= 60
	hours := v % 24
	v /= 24
	days := v % 365
	years := v / 365
	switch {
	case years > 0:
		return fmt.Sprintf("%dy%dd%dh%dm", years, days, hours, minutes)
	case days > 0:
		return fmt.Sprintf("%dd%dh%dm", days, hours, minutes)
	}
	return fmt.Sprintf("%dh%dm", hours, minutes)
}

func list(prefix string, b []byte, format string) string {
	var s strings.Builder
	s.WriteString(prefix)
	for _, c := range b {
		fmt.Fprintf(&s, format, c)
	}
	return s.String()
}

func describeSubpacket(sp subpacket, hashed bool) string {
	d := sp.Data
	var s strings.Builder
	if sp.Critical {
		s.WriteString("critical ")
	}
	if hashed {
		s.WriteString("hashed ")
	}
	fmt.Fprintf(&s, "subpkt %d len %d (", sp.Type, len(d))
	switch sp.Type {
	case 2:
		if len(d) >= 4 {
			s.WriteString("sig created " + gpgDate(binary.BigEndian.Uint32(d)))
		}
	case 3:
		if len(d) >= 4 {
			if v := binary.BigEndian.Uint32(d); v != 0 {
				s.WriteString("sig expires after " + timeValue(v))
			} else {
				s.WriteString("sig does not expire")
			}
		}
	case 4:
		if len(d) > 0 {
			if d[0] == 0 {
				s.WriteString("not ")
			}
			s.WriteString("exportable")
		}
	case 5:
		if len(d) != 2 {
			s.WriteString("[invalid trust subpacket]")
		} else {
			fmt.Fprintf(&s, "trust signature of depth %d, value %d", d[0], d[1])
		}
	case 6:
		if len(d) == 0 {
			s.WriteString("[invalid regexp subpacket]")
		} else {
			s.WriteString("regular expression: \"" + escape.Delimited(string(d), '"') + "\"")
		}
	case 7:
		if len(d) > 0 {
			if d[0] == 0 {
				s.WriteString("not ")
			}
			s.WriteString("revocable")
		}
	case 9:
		if len(d) >= 4 {
			if v := binary.BigEndian.Uint32(d); v != 0 {
				s.WriteString("key expires after " + timeValue(v))
			} else {
				s.WriteString("key does not expire")
			}
		}
	case 11:
		s.WriteString(list("pref-sym-algos:", d, " %d"))
	case 12:
		s.WriteString("revocation key: ")
		if len(d) < 22 {
			s.WriteString("[too short]")
		} else {
			fmt.Fprintf(&s, "c=%02x a=%d f=%s", d[0], d[1], hexUpper(d[2:]))
		}
	case 16:
		if len(d) >= 8 {
			fmt.Fprintf(&s, "issuer key ID %016X", binary.BigEndian.Uint64(d))
		}
	case 20:
		s.WriteString("notation: ")
		if len(d) < 8 {
			s.WriteString("[too short]")
			break
		}
		n1, n2 := int(binary.BigEndian.Uint16(d[4:])), int(binary.BigEndian.Uint16(d[6:]))
		if 8+n1+n2 != len(d) {
			s.WriteString("[error]")
			break
		}
		s.WriteString(escape.Delimited(string(d[8:8+n1]), ')') + "=")
		if d[0]&0x80 != 0 {
			s.WriteString(escape.Delimited(string(d[8+n1:]), ')'))
		} else {
			s.WriteString("[not human readable]")
		}
	case 21:
		s.WriteString(list("pref-hash-algos:", d, " %d"))
	case 22:
		s.WriteString(list("pref-zip-algos:", d, " %d"))
	case 23:
		s.WriteString(list("keyserver preferences:", d, " %02X"))
	case 24:
		s.WriteString("preferred keyserver: " + escape.Delimited(string(d), ')'))
	case 25:
		s.WriteString("primary user ID")
	case 26:
		s.WriteString("policy: " + escape.Delimited(string(d), ')'))
	case 27:
		s.WriteString(list("key flags:", d, " %02X"))
	case 28:
		s.WriteString("signer's user ID")
	case 29:
		if len(d) > 0 {
			fmt.Fprintf(&s, "revocation reason 0x%02x (%s)", d[0], escape.Delimited(string(d[1:]), ')'))
		}
	case 30:
		s.WriteString(list("features:", d, " %02x"))
	case 32:
		s.WriteString("signature: ")
		if len(d) < 17 {
			s.WriteString("[too short]")
		} else if d[0] == 3 {
			fmt.Fprintf(&s, "v%d, class 0x%02X, algo %d, digest algo %d", d[0], d[2], d[15], d[16])
		} else {
			fmt.Fprintf(&s, "v%d, class 0x%02X, algo %d, digest algo %d", d[0], d[1], d[2], d[3])
		}
	case 33:
		if len(d) >= 21 {
			fmt.Fprintf(&s, "issuer fpr v%d %s", d[0], hexUpper(d[1:]))
		}
	case 34:
		s.WriteString(list("pref-aead-algos:", d, " %d"))
	default:
		if sp.Type >= 100 && sp.Type <= 110 {
			s.WriteString("experimental / private subpacket")
		} else {
			s.WriteString("?")
		}
	}
	s.WriteString(")")
	return s.String()
}

func describeSignature(b []byte) []string {
	if len(b) < 16 { // gpg's shortest signature
		return []string{":signature packet: [too short]"}
	}
	s, _ := packet.ParseSignature(b, -1)
	if s == nil || s.Version == 5 {
		return []string{":signature packet: [unknown version]"}
	}
	if s.Values == nil {
		return []string{":signature packet: [too short]"}
	}
	algo := s.PubKeyAlgo
	if s.Version <= 3 {
		out := []string{
			fmt.Sprintf(":signature packet: algo %d, keyid %016X", algo, s.IssuerKeyID),
			fmt.Sprintf("version %d, created %d, md5len %d, sigclass 0x%02x", s.Version, s.Created.Unix(), s.MD5Len, s.SigType),
			fmt.Sprintf("digest algo %d, begin of digest %02x %02x", s.Hash, s.HashPrefix[0], s.HashPrefix[1]),
		}
		return append(out, sigData(algo, s.Values)...)
	}
	hashed, _ := splitSubpackets(s.Hashed)
	unhashed, _ := splitSubpackets(s.Unhashed)
	// gpg's creation time: the first non-zero one in the hashed area.
	var created uint32
	for _, sp := range hashed {
		if sp.Type == 2 && len(sp.Data) >= 4 && created == 0 {
			created = binary.BigEndian.Uint32(sp.Data)
		}
	}
	keyid, _ := issuerOf(hashed, unhashed)
	out := []string{
		fmt.Sprintf(":signature packet: algo %d, keyid %016X", algo, keyid),
		fmt.Sprintf("version %d, created %d, md5len 0, sigclass 0x%02x", s.Version, created, s.SigType),
		fmt.Sprintf("digest algo %d, begin of digest %02x %02x", s.Hash, s.HashPrefix[0], s.HashPrefix[1]),
	}
	for _, sp := range hashed {
		out = append(out, describeSubpacket(sp, true))
	}
	for _, sp := range unhashed {
		out = append(out, describeSubpacket(sp, false))
	}
	if s.Version == 6 {
		if s.Salt == nil {
			return append(out, "[too short]")
		}
		out = append(out, "salt "+hexUpper(s.Salt))
	}
	return append(out, sigData(algo, s.Values)...)
}

// issuerOf finds the signer as gpg does: an issuer fingerprint in the
// hashed area, else an issuer key ID in either area.
func issuerOf(hashed, unhashed []subpacket) (keyid uint64, fpr []byte) {
	for _, sp := range hashed {
		if sp.Type == 33 && len(sp.Data) == 21 && sp.Data[0] == 4 {
			keyid, fpr = binary.BigEndian.Uint64(sp.Data[13:]), sp.Data[1:]
		} else if sp.Type == 33 && len(sp.Data) == 33 && (sp.Data[0] == 5 || sp.Data[0] == 6) {
			keyid, fpr = binary.BigEndian.Uint64(sp.Data[1:]), sp.Data[1:]
		}
	}
	if keyid == 0 {
		for _, sp := range append(append([]subpacket{}, hashed...), unhashed...) {
			if sp.Type == 16 && len(sp.Data) >= 8 {
				return binary.BigEndian.Uint64(sp.Data), nil
			}
		}
	}
	return keyid, fpr
}

// sigIssuer is issuerOf for a signature's subpacket areas, 0 and nil
// when they could not be read.
func sigIssuer(s *packet.Signature) (uint64, []byte) {
	if s.Unhashed == nil {
		return 0, nil
	}
	hashed, _ := splitSubpackets(s.Hashed)
	unhashed, _ := splitSubpackets(s.Unhashed)
	return issuerOf(hashed, unhashed)
}

func sigData(algo byte, b []byte) []string {
	switch algo {
	case algoEd25519:
		return []string{fmt.Sprintf("data: [%d bits]", 8*len(b))}
	case algoEd448:
		return []string{fmt.Sprintf("data: [%d bits]", 8*len(b))}
	}
	n := sigDataCount(algo)
	if n == 0 {
		return []string{fmt.Sprintf("unknown algorithm %d", algo)}
	}
	var out []string
	for i := 0; i < n; i++ {
		bits, rest, ok := mpiBits(b)
		if !ok {
			break
		}
		out = append(out, fmt.Sprintf("data: [%d bits]", bits))
		b = rest
	}
	return out
}

func describeKey(tag packet.Tag, b []byte) []string {
	kind := map[packet.Tag]string{packet.TagPublicKey: "public", packet.TagSecretKey: "secret", packet.TagPublicSubkey: "public sub", packet.TagSecretSubkey: "secret sub"}[tag]
	if len(b) < 1 {
		return []string{":key packet: [too short]"}
	}
	v := b[0]
	switch v {
	case 4, 6:
	case 2, 3:
		return []string{fmt.Sprintf(":key packet: [obsolete version %d]", v)}
	default:
		return []string{":key packet: [unknown version]"}
	}
	hl := 6
	if v == 6 {
		hl = 10 // and a four-octet length of the key material
	}
	if len(b) < hl {
		return []string{":key packet: [too short]"}
	}
	created := binary.BigEndian.Uint32(b[1:5])
	algo := b[5]
	out := []string{
		fmt.Sprintf(":%s key packet:", kind),
		fmt.Sprintf("version %d, algo %d, created %d, expires 0", v, algo, created),
	}
	pub := b[hl:]
	var pubLen int
	if v == 6 {
		pubLen = int(binary.BigEndian.Uint32(b[6:10]))
		if pubLen > len(pub) {
			return append(out, "[too short]")
		}
	}
	rest := pub
	i := 0
	param := func(l string) { out = append(out, fmt.Sprintf("pkey[%d]: %s", i, l)); i++ }
	mpi := func() bool {
		bits, r, ok := mpiBits(rest)
		if !ok {
			return false
		}
		param(fmt.Sprintf("[%d bits]", bits))
		rest = r
		return true
	}
	oid := func() bool {
		o, r, ok := sizedBody(rest)
		if !ok {
			return false
		}
		s := oidString(o)
		param(fmt.Sprintf("[%d bits] %s (%s)", 8*(1+len(o)), curveNames[s], s))
		rest = r
		return true
	}
	opaque := func(n int) bool {
		if len(rest) < n {
			return false
		}
		param(fmt.Sprintf("[%d bits]", 8*n))
		rest = rest[n:]
		return true
	}
	ok := true
	nsk := 0
	switch algo {
	case algoRSA, algoRSAEncrypt, algoRSASign:
		ok = mpi() && mpi()
		nsk = 4
	case algoDSA:
		ok = mpi() && mpi() && mpi() && mpi()
		nsk = 1
	case algoElgamal, algoElgamalOld:
		ok = mpi() && mpi() && mpi()
		nsk = 1
	case algoECDH:
		ok = oid() && mpi()
		if ok {
			k, r, good := sizedBody(rest)
			if ok = good; ok {
				param(fmt.Sprintf("[%d bits]", 8*(1+len(k))))
				rest = r
			}
		}
		nsk = 1
	case algoECDSA, algoEdDSA:
		ok = oid() && mpi()
		nsk = 1
	case algoX25519:
		ok = opaque(32)
	case algoX448:
		ok = opaque(56)
	case algoEd25519:
		ok = opaque(32)
	case algoEd448:
		ok = opaque(57)
	default:
		out = append(out, fmt.Sprintf("unknown algorithm %d", algo))
		return out
	}
	if !ok {
		return append(out, "[too short]")
	}
	if tag == packet.TagSecretKey || tag == packet.TagSecretSubkey {
		out = append(out, describeSecret(v, algo, i, nsk, rest)...)
	}
	if id, ok := keyID(b, v); ok {
		out = append(out, fmt.Sprintf("keyid: %016X", id))
	}
	return out
}

// keyID computes the key ID from the public part of a key packet body.
func keyID(b []byte, v byte) (uint64, bool) {
	pk, err := parsePublic(b)
	if err != nil {
		return 0, false
	}
	_ = v
	return pk.KeyId, true
}

// parsePublic parses the public part of a (public or secret) key body
// with go-crypto, which computes fingerprints for every key version.
func parsePublic(b []byte) (*gcpacket.PublicKey, error) {
	var buf []byte
	buf = packet.AppendHeader(buf, packet.TagPublicKey, int64(len(b)))
	buf = append(buf, b...)
	// A secret key body starts with its public part; go-crypto reads a
	// public key packet only as far as its public fields go, so a secret
	// body parses too.
	p, err := gcpacket.Read(strings.NewReader(string(buf)))
	if err != nil {
		return nil, err
	}
	pk, ok := p.(*gcpacket.PublicKey)
	if !ok {
		return nil, errors.New("not a public key")
	}
	return pk, nil
}

func describeSecret(v, algo byte, npkey, nskey int, b []byte) []string {
	if len(b) < 1 {
		return []string{"[too short]"}
	}
	usage := b[0]
	b = b[1:]
	if v == 6 && usage != 0 {
		// v6: a count of the parameters that follow.
		if len(b) < 1 {
			return []string{"[too short]"}
		}
		b = b[1:]
	}
	if usage == 0 {
		var out []string
		switch algo {
		case algoX25519, algoX448, algoEd25519, algoEd448:
			out = append(out, fmt.Sprintf("skey[%d]: [%d bits]", npkey, 8*len(b)))
			return out
		}
		for i := 0; i < nskey; i++ {
			bits, r, ok := mpiBits(b)
			if !ok {
				return append(out, "[too short]")
			}
			out = append(out, fmt.Sprintf("skey[%d]: [%d bits]", npkey+i, bits))
			b = r
		}
		if v == 4 && len(b) >= 2 {
			out = append(out, fmt.Sprintf("checksum: %04x", binary.BigEndian.Uint16(b)))
		}
		return out
	}
	var out []string
	if usage == 254 || usage == 255 || usage == 253 {
		if len(b) < 3 {
			return []string{"[too short]"}
		}
		sym := b[0]
		b = b[1:]
		var aead packet.AEADAlgo
		if usage == 253 {
			if len(b) < 1 {
				return []string{"[too short]"}
			}
			aead, b = packet.AEADAlgo(b[0]), b[1:]
		}
		if v == 6 {
			if len(b) < 1 {
				return []string{"[too short]"}
			}
			b = b[1:] // S2K length
		}
		if len(b) < 2 {
			return []string{"[too short]"}
		}
		// A specifier cut short lists what it has, as gpg does.
		spec, _ := packet.ParseS2K(b)
		b = b[min(spec.Len, len(b)):]
		if spec.Type == 101 {
			switch {
			case spec.Len == 6 && spec.GNU == 1:
				// gpg lists the (empty) IV line of a key without its secret too.
				return append(out, fmt.Sprintf("gnu-dummy S2K, algo: %d,%s hash: %d", sym, checkName(usage), spec.Hash), "protect IV: ")
			case spec.Len == 6 && spec.GNU == 2:
				out = append(out, fmt.Sprintf("gnu-divert-to-card S2K, algo: %d,%s hash: %d", sym, checkName(usage), spec.Hash))
				if len(b) >= 1 && len(b)-1 >= int(b[0]) {
					out = append(out, list("serial-number: ", b[1:1+min(int(b[0]), 16)], " %02x"))
				}
				return out
			case spec.Len == 6:
				return append(out, fmt.Sprintf("unknown GNU S2K %d", 1000+int(spec.GNU)))
			}
		}
		l := fmt.Sprintf("%s, algo: %d,%s hash: %d", map[byte]string{0: "simple S2K", 1: "salted S2K", 3: "iter+salt S2K", 4: "argon2 S2K"}[spec.Type], sym, checkName(usage), spec.Hash)
		switch spec.Type {
		case 0:
		case 1, 3:
			if len(spec.Salt) == 8 {
				l += ", salt: " + hexUpper(spec.Salt)
			}
		case 4:
			// Argon2 names no hash: its parameters instead.
			l = fmt.Sprintf("argon2 S2K, algo: %d,%s salt: %s", sym, checkName(usage), hexUpper(spec.Salt))
			if spec.Len == 20 {
				l += fmt.Sprintf(", passes: %d, parallelism: %d, memory: %d KiB", spec.Passes, spec.Parallelism, uint64(1)<<min(spec.MemoryExp, 63))
			}
		default:
			return append(out, fmt.Sprintf("unknown S2K %d", spec.Type))
		}
		out = append(out, l)
		if spec.Type == 3 && spec.Len == 11 {
			out = append(out, fmt.Sprintf("protect count: %d (%d)", spec.Octets(), spec.Count))
		}
		ivLen := packet.CipherAlgo(sym).BlockSize()
		if usage == 253 {
			ivLen = aead.NonceSize() // an AEAD-protected key's nonce (RFC 9580 §5.5.3)
		}
		if ivLen > 0 && len(b) >= ivLen {
			out = append(out, list("protect IV: ", b[:ivLen], " %02x"))
		}
		return append(out, fmt.Sprintf("skey[%d]: [v4 protected]", npkey))
	}
	out = append(out, fmt.Sprintf("protect algo: %d  (hash algo: 1)", usage))
	return append(out, fmt.Sprintf("skey[%d]: [v4 protected]", npkey))
}

func checkName(usage byte) string {
	switch usage {
	case 254:
		return " SHA1 protection,"
	case 253:
		return " AEAD protection,"
	}
	return " simple checksum,"
}

// describeAttribute lists a user attribute packet (RFC 9580 §5.12),
// whose subpackets are framed as a signature's are.
func describeAttribute(b []byte) string {
	sps, _ := packet.Subpackets(b)
	count := len(sps)
	var first []byte
	if count > 0 {
		// The type octet as written: attribute types have no critical bit.
		typ := sps[0].Type
		if sps[0].Critical {
			typ |= 0x80
		}
		first = append([]byte{typ}, sps[0].Data...)
	}
	switch {
	case count == 0:
		return "[bad attribute packet]"
	case count > 1:
		return fmt.Sprintf("[%d attributes]", count)
	case first[0] == 1 && len(first) >= 17:
		return fmt.Sprintf("[jpeg image of size %d]", len(first)-17)
	}
	return fmt.Sprintf("[unknown attribute of size %d]", len(first)-1)
}

// describeTrust is gpg 2.2.40's line for a trust packet. A subtype area
// not marked "gpg" reads as subtype 0, so gpg lists it as a signature
// cache (its "not created by gpg" line is never reached).
func describeTrust(b []byte) []string {
	rt := packet.ParseRingTrust(b)
	switch {
	case rt.Empty:
		return []string{":trust packet: empty"}
	case rt.Subtype == packet.RingTrustSig:
		return []string{fmt.Sprintf(":trust packet: sig flag=%02x sigcache=%02x", rt.Trust, rt.SigCache)}
	case rt.Subtype == packet.RingTrustKey || rt.Subtype == packet.RingTrustUID:
		what := "key"
		if rt.Subtype == packet.RingTrustUID {
			what = "uid"
		}
		url := ""
		if rt.HasURL {
			url = " url=" + escape.PacketListing(rt.URL)
		}
		return []string{fmt.Sprintf(":trust packet: %s upd=%d src=%d%s", what, rt.Update, rt.Origin, url)}
	}
	return []string{fmt.Sprintf(":trust packet: subtype=%02x", rt.Subtype)}
}
