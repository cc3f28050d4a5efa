package keyring

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/internal/bounded"
	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// Packet tags used in transferable keys (RFC 9580 section 5).
const (
	tagSignature    = 2
	tagSecretKey    = 5
	tagPublicKey    = 6
	tagSecretSubkey = 7
	tagMarker       = 10
	tagTrust        = 12
	tagUserID       = 13
	tagPublicSubkey = 14
	tagUserAttr     = 17
	tagPadding      = 21
)

// ErrMalformed reports key data that does not follow the OpenPGP packet
// framing or the transferable key grammar (RFC 9580 section 10.1).
var ErrMalformed = errors.New("keyring: malformed key data")

// rawPacket is one packet kept as tag and body bytes. Keys are stored and
// merged as the bytes that were received, not as re-serialized go-crypto
// values: re-serializing could silently drop fields go-crypto does not model,
// and byte equality is the simplest correct test for "this signature is
// already known".
type rawPacket struct {
	tag  byte
	body []byte
	// hdr is the header the packet came with, written back as it was
	// (gpg exports an old-format header as it was imported, and clients
	// compare the export with what they imported); nil for a packet
	// made here, which gets a new-format header.
	hdr []byte
	// hdrLen is the body length hdr frames: a body changed since (a
	// certification made local) gets a new-format header.
	hdrLen int
}

// splitPackets frames data into packets with package packet's codec. Key
// material never uses partial body lengths (RFC 9580 section 4.2.1.4
// allows them only for data packets), so they are refused rather than
// reassembled.
func splitPackets(data []byte) ([]rawPacket, error) {
	var out []rawPacket
	for off := 0; off < len(data); {
		h, body, rest, err := pgppacket.SplitPacket(data[off:], int64(off))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		end := len(data) - len(rest)
		hdr := data[off : end-len(body)]
		out = append(out, rawPacket{tag: byte(h.Tag), body: body, hdr: append([]byte(nil), hdr...), hdrLen: len(body)})
		off = end
	}
	return out, nil
}

// writeTo writes p with the header it came with, or a new-format one.
func (p rawPacket) writeTo(w *bytes.Buffer) {
	if p.hdr != nil && p.hdrLen == len(p.body) {
		w.Write(p.hdr)
		w.Write(p.body)
		return
	}
	var hdr [6]byte
	w.Write(pgppacket.AppendHeader(hdr[:0], pgppacket.Tag(p.tag), int64(len(p.body))))
	w.Write(p.body)
}

func (p rawPacket) equal(q rawPacket) bool {
	return p.tag == q.tag && bytes.Equal(p.body, q.body)
}

// component is a key, user ID or user attribute packet with the signatures
// that follow it.
type component struct {
	pkt  rawPacket
	sigs []rawPacket
	meta meta // the ring's record of a primary key or user ID (origin.go)
}

// block is one transferable public or secret key (RFC 9580 sections 10.1,
// 10.2): the primary key with its direct signatures, the user IDs and user
// attributes, and the subkeys, each with their signatures.
type block struct {
	primary component
	uids    []component
	subs    []component
}

func (b *block) secret() bool { return b.primary.pkt.tag == tagSecretKey }

func (b *block) bytes() []byte {
	var buf bytes.Buffer
	for _, c := range b.components() {
		c.pkt.writeTo(&buf)
		for _, s := range c.sigs {
			s.writeTo(&buf)
		}
	}
	return buf.Bytes()
}

func (b *block) components() []*component {
	out := []*component{&b.primary}
	for i := range b.uids {
		out = append(out, &b.uids[i])
	}
	for i := range b.subs {
		out = append(out, &b.subs[i])
	}
	return out
}

func (b *block) clone() *block {
	cp := func(c component) component {
		return component{pkt: c.pkt, sigs: append([]rawPacket(nil), c.sigs...), meta: c.meta}
	}
	nb := &block{primary: cp(b.primary)}
	for _, c := range b.uids {
		nb.uids = append(nb.uids, cp(c))
	}
	for _, c := range b.subs {
		nb.subs = append(nb.subs, cp(c))
	}
	return nb
}

// splitBlocks groups packets into transferable keys. Trust, marker and
// padding packets carry nothing a key ring takes from others and are
// dropped, as are packets of unknown type; everything else must follow
// the key grammar.
func splitBlocks(pkts []rawPacket) ([]*block, error) { return groupBlocks(pkts, false) }

// splitRingBlocks is splitBlocks for a ring's own file: the ring trust
// packet right after a primary key or a user ID is the ring's record of
// it (see meta), and is kept with it.
func splitRingBlocks(pkts []rawPacket) ([]*block, error) { return groupBlocks(pkts, true) }

func groupBlocks(pkts []rawPacket, ringMeta bool) ([]*block, error) {
	var blocks []*block
	var cur *block
	var last *component
	for i, p := range pkts {
		switch p.tag {
		case tagPublicKey, tagSecretKey:
			cur = &block{primary: component{pkt: p}}
			blocks = append(blocks, cur)
			last = &cur.primary
			continue
		case tagTrust:
			// gpg takes a ring trust packet as describing the packet
			// right before it, so only one right after the primary key
			// or a user ID packet is taken, of the subtype for it.
			if ringMeta && last != nil && len(last.sigs) == 0 && pkts[i-1].tag == last.pkt.tag {
				switch {
				case last == &cur.primary:
					if m, ok := parseRingTrust(p.body, pgppacket.RingTrustKey); ok {
						last.meta = m
					}
				case last.pkt.tag == tagUserID || last.pkt.tag == tagUserAttr:
					if m, ok := parseRingTrust(p.body, pgppacket.RingTrustUID); ok {
						last.meta = m
					}
				}
			}
			continue
		case tagMarker, tagPadding:
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("%w: packet %d: expected a public or secret key packet first, got tag %d", ErrMalformed, i, p.tag)
		}
		switch p.tag {
		case tagSignature:
			last.sigs = append(last.sigs, p)
		case tagUserID, tagUserAttr:
			cur.uids = append(cur.uids, component{pkt: p})
			last = &cur.uids[len(cur.uids)-1]
		case tagPublicSubkey, tagSecretSubkey:
			cur.subs = append(cur.subs, component{pkt: p})
			last = &cur.subs[len(cur.subs)-1]
		default:
			// Unknown packets are skipped together with nothing else: a
			// later signature still attaches to the previous component,
			// which is what a reader that ignores the packet would see.
		}
	}
	return blocks, nil
}

// parseKey decodes a key packet. For secret packets it returns the private
// key too; its secret material stays encrypted if it was.
func parseKey(p rawPacket) (*packet.PublicKey, *packet.PrivateKey, error) {
	var buf bytes.Buffer
	p.writeTo(&buf)
	pk, err := packet.Read(&buf)
	if err != nil {
		return nil, nil, fmt.Errorf("keyring: reading key packet (tag %d): %w", p.tag, err)
	}
	switch k := pk.(type) {
	case *packet.PublicKey:
		return k, nil, nil
	case *packet.PrivateKey:
		return &k.PublicKey, k, nil
	}
	return nil, nil, fmt.Errorf("%w: packet tag %d is not a key", ErrMalformed, p.tag)
}

// publicPacket returns the public form of a secret key packet. The public
// key body is, in both v4 and v6, a prefix of the secret key body (RFC 9580
// section 5.5.3), so it is cut from the received bytes after go-crypto
// tells how long the public part is.
func publicPacket(p rawPacket) (rawPacket, error) {
	var tag byte
	switch p.tag {
	case tagSecretKey:
		tag = tagPublicKey
	case tagSecretSubkey:
		tag = tagPublicSubkey
	default:
		return p, nil
	}
	pub, _, err := parseKey(p)
	if err != nil {
		return rawPacket{}, err
	}
	var buf bytes.Buffer
	if err := pub.Serialize(&buf); err != nil {
		return rawPacket{}, fmt.Errorf("keyring: serializing public part of %X: %w", pub.Fingerprint, err)
	}
	pp, err := splitPackets(buf.Bytes())
	if err != nil || len(pp) != 1 {
		return rawPacket{}, fmt.Errorf("keyring: public part of %X did not frame as one packet", pub.Fingerprint)
	}
	n := len(pp[0].body)
	if n > len(p.body) || !bytes.Equal(pp[0].body, p.body[:n]) {
		return rawPacket{}, fmt.Errorf("%w: secret key %X does not start with its public key", ErrMalformed, pub.Fingerprint)
	}
	return rawPacket{tag: tag, body: p.body[:n:n]}, nil
}

// publicBlock derives the transferable public key from a secret one.
func publicBlock(b *block) (*block, error) {
	nb := b.clone()
	for _, c := range nb.components() {
		pp, err := publicPacket(c.pkt)
		if err != nil {
			return nil, err
		}
		c.pkt = pp
	}
	return nb, nil
}

func fingerprintOf(p rawPacket) ([]byte, error) {
	pub, _, err := parseKey(p)
	if err != nil {
		return nil, err
	}
	return pub.Fingerprint, nil
}

// mergeCount tells what a merge added.
type mergeCount struct {
	uids, subs, sigs int
	secret           bool // secret material was added
}

func (m mergeCount) changed() bool { return m.uids+m.subs+m.sigs > 0 || m.secret }

// merge adds to dst what src has and dst lacks: signatures (compared byte
// for byte), user IDs and subkeys (compared by fingerprint). A public
// subkey in dst is upgraded when src carries its secret part.
func merge(dst, src *block) (mergeCount, error) {
	var m mergeCount
	addSigs := func(d *component, sigs []rawPacket) int {
		n := 0
	next:
		for _, s := range sigs {
			for _, have := range d.sigs {
				if have.equal(s) {
					continue next
				}
			}
			d.sigs = append(d.sigs, s)
			n++
		}
		return n
	}
	m.sigs += addSigs(&dst.primary, src.primary.sigs)
	if dst.primary.meta.zero() {
		dst.primary.meta = src.primary.meta
	}
	if dst.primary.pkt.tag == tagPublicKey && src.primary.pkt.tag == tagSecretKey {
		dst.primary.pkt = src.primary.pkt
		m.secret = true
	}
nextUID:
	for _, u := range src.uids {
		for i := range dst.uids {
			if dst.uids[i].pkt.equal(u.pkt) {
				m.sigs += addSigs(&dst.uids[i], u.sigs)
				continue nextUID
			}
		}
		dst.uids = append(dst.uids, component{pkt: u.pkt, sigs: append([]rawPacket(nil), u.sigs...), meta: u.meta})
		m.uids++
		m.sigs += len(u.sigs) // counted as gpg counts them: new with the user ID
	}
nextSub:
	for _, s := range src.subs {
		fp, err := fingerprintOf(s.pkt)
		if err != nil {
			return m, err
		}
		for i := range dst.subs {
			dfp, err := fingerprintOf(dst.subs[i].pkt)
			if err != nil {
				return m, err
			}
			if bytes.Equal(fp, dfp) {
				m.sigs += addSigs(&dst.subs[i], s.sigs)
				if dst.subs[i].pkt.tag == tagPublicSubkey && s.pkt.tag == tagSecretSubkey {
					dst.subs[i].pkt = s.pkt
					m.secret = true
				}
				continue nextSub
			}
		}
		dst.subs = append(dst.subs, component{pkt: s.pkt, sigs: append([]rawPacket(nil), s.sigs...)})
		m.subs++
		m.sigs += len(s.sigs)
		if s.pkt.tag == tagSecretSubkey {
			m.secret = true
		}
	}
	return m, nil
}

// readAll reads key input (--import, --keyring FILE, -f FILE) whole, with
// the cap a ring has: an unbounded read of a mistaken input (a disk
// image, /dev/zero) should fail, not exhaust memory.
func readAll(r io.Reader) ([]byte, error) {
	return bounded.ReadAll(r, "key input", bounded.KeyData)
}
