package keyring

import (
	"bytes"
	"encoding/binary"
	"strings"
	"time"

	"github.com/pgpstream/pgpstream/clock"
)

// OriginKind is where a key or a user ID came from, numbered as gpg
// numbers it (GnuPG's KEYORG_*; field 20 of a --with-colons key or user
// ID record, doc/DETAILS).
type OriginKind byte

const (
	OriginUnknown OriginKind = 0
	OriginKS      OriginKind = 1 // a public keyserver
	OriginKSPref  OriginKind = 2 // the key's preferred keyserver
	OriginDANE    OriginKind = 3
	OriginWKD     OriginKind = 4 // the Web Key Directory
	OriginURL     OriginKind = 5 // a trusted URL
	OriginFile    OriginKind = 6 // a trusted file
	OriginSelf    OriginKind = 7 // made here
)

var originNames = []struct {
	name string
	kind OriginKind
}{
	{"self", OriginSelf}, {"file", OriginFile}, {"url", OriginURL}, {"wkd", OriginWKD},
	{"dane", OriginDANE}, {"ks-pref", OriginKSPref}, {"ks", OriginKS}, {"unknown", OriginUnknown},
}

// ParseOrigin reads gpg's --key-origin argument, NAME[,URL] (GnuPG's
// parse_key_origin): the name in any case, the URL with its surrounding
// spaces trimmed.
func ParseOrigin(s string) (Origin, bool) {
	name, url, _ := strings.Cut(s, ",")
	for _, n := range originNames {
		if strings.EqualFold(name, n.name) {
			return Origin{Kind: n.kind, URL: strings.TrimSpace(url)}, true
		}
	}
	return Origin{}, false
}

// String is the kind's name in gpg's --with-key-origin listing.
func (k OriginKind) String() string {
	for _, n := range originNames {
		if n.kind == k {
			return n.name
		}
	}
	return "?"
}

// Origin is what an import is told of where its keys come from.
type Origin struct {
	Kind OriginKind
	URL  string
}

// meta is what the ring records of a primary key or a user ID: where it
// came from, when it was last updated from there, and the URL to update
// it from. It is ring-local: never exported, never taken from imported
// data.
type meta struct {
	org    OriginKind
	update uint32 // seconds since the epoch; 0 for none
	url    string
}

func (m meta) zero() bool { return m == meta{} }

// LastUpdate is field 19 of a key or user ID record; zero if unknown.
func (m meta) LastUpdate() time.Time {
	if m.update == 0 {
		return time.Time{}
	}
	return time.Unix(int64(m.update), 0)
}

// The ring trust packet (tag 12) is where gpg's legacy pubring.gpg and
// its keybox images keep this, right after the key or user ID packet it
// describes (GnuPG's build-packet.c do_ring_trust, parse-packet.c
// parse_ring_trust): trust value, signature cache, "gpg", the subtype,
// then for a key or user ID the origin, the update time (4 octets, big
// endian) and a URL of at most 255 octets after its length octet.
const (
	ringTrustKey = 1 // GnuPG's RING_TRUST_KEY
	ringTrustUID = 2 // GnuPG's RING_TRUST_UID

	maxMetaURL = 255 // the URL's length is one octet
)

// parseRingTrust reads a ring trust packet of the given subtype; ok is
// false for any other packet (gpg's signature cache, another program's
// trust packet).
func parseRingTrust(body []byte, subtype byte) (m meta, ok bool) {
	if len(body) < 6+6 || !bytes.Equal(body[2:5], []byte("gpg")) || body[5] != subtype {
		return meta{}, false
	}
	m.org = OriginKind(body[6])
	m.update = binary.BigEndian.Uint32(body[7:11])
	n := int(body[11])
	rest := body[12:]
	if n > len(rest) {
		n = len(rest) // gpg reads what there is
	}
	m.url = string(rest[:n])
	return m, true
}

// ringTrustPacket is m as gpg writes it after a key (ringTrustKey) or a
// user ID (ringTrustUID).
func ringTrustPacket(m meta, subtype byte) rawPacket {
	url := m.url
	if len(url) > maxMetaURL {
		url = url[:maxMetaURL]
	}
	body := make([]byte, 0, 12+len(url))
	body = append(body, 0, 0, 'g', 'p', 'g', subtype, byte(m.org))
	body = binary.BigEndian.AppendUint32(body, m.update)
	body = append(body, byte(len(url)))
	body = append(body, url...)
	return rawPacket{tag: tagTrust, body: body}
}

// ringBytes is b as pgpstream's pubring.pgp stores it: the transferable
// key (bytes) with a ring trust packet after the primary key and each
// user ID that has an origin. Exports use bytes, which has none.
func (b *block) ringBytes() []byte {
	var buf bytes.Buffer
	write := func(c *component, subtype byte) {
		c.pkt.writeTo(&buf)
		if !c.meta.zero() {
			ringTrustPacket(c.meta, subtype).writeTo(&buf)
		}
		for _, s := range c.sigs {
			s.writeTo(&buf)
		}
	}
	write(&b.primary, ringTrustKey)
	for i := range b.uids {
		write(&b.uids[i], ringTrustUID)
	}
	for i := range b.subs {
		write(&b.subs[i], 0)
	}
	return buf.Bytes()
}

// now32 is the time an import records, gpg's make_timestamp (which
// --faked-system-time sets).
func now32() uint32 { return uint32(clock.Now().Unix()) }

// insertOrigin records o on a key new to the ring, as GnuPG's
// insert_key_origin does: a key from the WKD or DANE gets the origin and
// time but no URL (a refresh goes by the user ID), one from a keyserver
// all three but only when the URL is known, one from a file or a URL the
// origin and time, and the URL for a URL. Its user IDs get the origin
// and time, and from the WKD or DANE the URL too; "self", "ks-pref" and
// "unknown" record nothing.
func insertOrigin(b *block, o Origin, now uint32) {
	switch o.Kind {
	case OriginWKD, OriginDANE, OriginFile:
		b.primary.meta = meta{org: o.Kind, update: now}
	case OriginKS:
		if o.URL != "" {
			b.primary.meta = meta{org: o.Kind, update: now, url: o.URL}
		}
	case OriginURL:
		b.primary.meta = meta{org: o.Kind, update: now, url: o.URL}
	}
	for i := range b.uids {
		insertUIDOrigin(&b.uids[i], o, now)
	}
}

// insertUIDOrigin is GnuPG's insert_key_origin_uid, for a user ID new to
// the ring.
func insertUIDOrigin(c *component, o Origin, now uint32) {
	switch o.Kind {
	case OriginWKD, OriginDANE:
		c.meta = meta{org: o.Kind, update: now, url: o.URL}
	case OriginKS:
		if o.URL != "" {
			c.meta = meta{org: o.Kind, update: now}
		}
	case OriginFile, OriginURL:
		c.meta = meta{org: o.Kind, update: now}
	}
}

// updateOrigin is GnuPG's update_key_origin, for a known key an import
// changed: a keyserver, a file or a URL always replaces the key's
// origin, the WKD or DANE only one that was unknown or itself the WKD or
// DANE; a time earlier than the recorded one changes nothing.
func updateOrigin(b *block, o Origin, now uint32) {
	m := &b.primary.meta
	if m.update > now {
		return
	}
	switch o.Kind {
	case OriginWKD, OriginDANE:
		if m.org == OriginUnknown || m.org == OriginWKD || m.org == OriginDANE {
			*m = meta{org: o.Kind, update: now}
			if o.Kind == OriginWKD {
				m.url = o.URL
			}
		}
	case OriginKS, OriginURL:
		*m = meta{org: o.Kind, update: now, url: o.URL}
	case OriginFile:
		*m = meta{org: o.Kind, update: now}
	}
}
