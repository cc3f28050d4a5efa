package keyring

import (
	"bytes"
	"strings"
	"time"

	"github.com/pgpstream/pgpstream/clock"
	pgppacket "github.com/pgpstream/pgpstream/packet"
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

// The ring trust packet (tag 12, packet.RingTrust) is where gpg's
// legacy pubring.gpg and its keybox images keep this, right after the key
// or user ID packet it describes.

// parseRingTrust reads a ring trust packet of the given subtype
// (packet.RingTrustKey or RingTrustUID); ok is false for any other packet
// (gpg's signature cache, another program's trust packet).
func parseRingTrust(body []byte, subtype byte) (m meta, ok bool) {
	rt := pgppacket.ParseRingTrust(body)
	if !rt.Meta || rt.Subtype != subtype {
		return meta{}, false
	}
	return meta{org: OriginKind(rt.Origin), update: rt.Update, url: rt.URL}, true
}

// ringTrustPacket is m as gpg writes it after a key or a user ID.
func ringTrustPacket(m meta, subtype byte) rawPacket {
	return rawPacket{tag: tagTrust, body: pgppacket.AppendRingTrust(nil, subtype, byte(m.org), m.update, m.url)}
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
	write(&b.primary, pgppacket.RingTrustKey)
	for i := range b.uids {
		write(&b.uids[i], pgppacket.RingTrustUID)
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
