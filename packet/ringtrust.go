package packet

import (
	"bytes"
	"encoding/binary"
)

// RingTrust is a trust packet (tag 12, RFC 9580 §5.10) as GnuPG writes
// it into its own rings and keybox images, never into exports: after a
// signature, its verification cache; after a primary key or a user ID,
// where the key came from, when it was last updated, and from which URL.
// The layout is GnuPG's (g10/build-packet.c do_ring_trust,
// g10/parse-packet.c parse_ring_trust): the trust value, the signature
// cache, "gpg", the subtype, then for a key or user ID the origin, the
// update time (4 octets, big endian), the URL's length (1 octet) and the
// URL.
type RingTrust struct {
	Empty    bool // a packet of no octets
	NotGPG   bool // a subtype area not marked "gpg": another program's
	Trust    byte
	SigCache byte
	Subtype  byte // RingTrustSig, RingTrustKey or RingTrustUID
	// Origin, Update and URL are set when Meta is: a key or user ID
	// packet long enough to carry them.
	Meta   bool
	Origin byte   // GnuPG's KEYORG_* (0 unknown, 4 WKD, ...)
	Update uint32 // seconds since the epoch
	HasURL bool   // gpg read a URL (one of no octets included)
	URL    string // up to its first NUL, as gpg keeps it, a C string
}

// The subtypes of GnuPG's trust packets.
const (
	RingTrustSig = 0 // the signature cache
	RingTrustKey = 1 // the origin of a primary key
	RingTrustUID = 2 // the origin of a user ID
)

// MaxRingTrustURL is the longest URL a trust packet holds: its length is
// one octet.
const MaxRingTrustURL = 255

// ParseRingTrust reads a trust packet body as gpg 2.2 reads it. Every body
// is some RingTrust: gpg reads what there is and ignores the rest.
func ParseRingTrust(b []byte) RingTrust {
	var rt RingTrust
	if len(b) == 0 {
		rt.Empty = true
		return rt
	}
	rt.Trust = b[0]
	if len(b) > 1 && rt.Trust == 0 && b[1]&0x80 == 0 {
		rt.SigCache = b[1] // bit 7 set would be gpg's old "no cache"
	}
	if len(b) < 6 {
		return rt
	}
	if !bytes.Equal(b[2:5], []byte("gpg")) {
		rt.NotGPG = true
		return rt
	}
	rt.Subtype = b[5]
	if (rt.Subtype == RingTrustKey || rt.Subtype == RingTrustUID) && len(b) >= 12 {
		rt.Meta = true
		rt.Origin = b[6]
		rt.Update = binary.BigEndian.Uint32(b[7:11])
		n := min(int(b[11]), len(b)-12)
		if b[11] != 0 && n > 0 {
			rt.HasURL = true
			url := b[12 : 12+n]
			if i := bytes.IndexByte(url, 0); i >= 0 {
				url = url[:i]
			}
			rt.URL = string(url)
		}
	}
	return rt
}

// AppendRingTrust appends the body of the trust packet gpg writes after a
// primary key (RingTrustKey) or a user ID (RingTrustUID) with the given
// origin, update time and URL; a URL over MaxRingTrustURL octets is cut
// there.
func AppendRingTrust(dst []byte, subtype, origin byte, update uint32, url string) []byte {
	if len(url) > MaxRingTrustURL {
		url = url[:MaxRingTrustURL]
	}
	dst = append(dst, 0, 0, 'g', 'p', 'g', subtype, origin)
	dst = binary.BigEndian.AppendUint32(dst, update)
	dst = append(dst, byte(len(url)))
	return append(dst, url...)
}
