package packet

import (
	"bytes"
	"strings"
	"testing"
)

// TestRingTrust reads trust packets as gpg 2.2.40 lists them
// (--list-packets on its own rings, and on crafted ones).
func TestRingTrust(t *testing.T) {
	// gpg's record of a user ID imported with --key-origin
	// wkd,https://example.org/x at 1900000000.
	uid := append([]byte{0, 0, 'g', 'p', 'g', 2, 4, 0x71, 0x3f, 0xb3, 0x00, 21}, "https://example.org/x"...)
	for _, c := range []struct {
		name string
		body []byte
		want RingTrust
	}{
		{"empty", nil, RingTrust{Empty: true}},
		{"sig cache", []byte{0, 3, 'g', 'p', 'g', 0}, RingTrust{SigCache: 3}},
		{"old sig cache", []byte{0, 0x83}, RingTrust{}},
		{"trust value", []byte{5, 3}, RingTrust{Trust: 5}},
		// gpg lists this one as "sig flag=00 sigcache=00".
		{"not gpg's", []byte{0, 0, 'x', 'y', 'z', 1}, RingTrust{NotGPG: true}},
		{"key", []byte{0, 0, 'g', 'p', 'g', 1, 6, 0, 0, 0, 9, 0}, RingTrust{Subtype: RingTrustKey, Meta: true, Origin: 6, Update: 9}},
		{"key cut short", []byte{0, 0, 'g', 'p', 'g', 1, 6, 0, 0}, RingTrust{Subtype: RingTrustKey}},
		{"uid", uid, RingTrust{Subtype: RingTrustUID, Meta: true, Origin: 4, Update: 1900000000, HasURL: true, URL: "https://example.org/x"}},
		{"URL cut short", uid[:len(uid)-4], RingTrust{Subtype: RingTrustUID, Meta: true, Origin: 4, Update: 1900000000, HasURL: true, URL: "https://example.o"}},
		{"URL with a NUL", append(append([]byte(nil), uid[:15]...), 0, 'x'), RingTrust{Subtype: RingTrustUID, Meta: true, Origin: 4, Update: 1900000000, HasURL: true, URL: "htt"}},
	} {
		if got := ParseRingTrust(c.body); got != c.want {
			t.Errorf("%s: ParseRingTrust(%x) = %+v, want %+v", c.name, c.body, got, c.want)
		}
	}
	if got := AppendRingTrust(nil, RingTrustUID, 4, 1900000000, "https://example.org/x"); !bytes.Equal(got, uid) {
		t.Errorf("AppendRingTrust = %x, want gpg's %x", got, uid)
	}
	// The URL's length is one octet: a longer URL is cut, never framed wrong.
	long := AppendRingTrust(nil, RingTrustKey, 5, 1, strings.Repeat("u", 300))
	if rt := ParseRingTrust(long); len(long) != 12+MaxRingTrustURL || rt.URL != strings.Repeat("u", MaxRingTrustURL) {
		t.Errorf("a 300-octet URL: %d octets, read back as %d", len(long), len(rt.URL))
	}
}
