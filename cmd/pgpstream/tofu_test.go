package main

import (
	"strings"
	"testing"
)

// TestFormatText holds formatText to what gpg 2.2.40's format_text made
// of these sentences (as its --verify printed them under tofu).
func TestFormatText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"spy@cow.de: Verified 1~signatures in the past 0~seconds.  Encrypted 0 messages.\n",
			"spy@cow.de: Verified 1~signatures in the past 0~seconds.  Encrypted 0 messages.\n"},
		{"alice@example.org: Verified 1~signatures in the past 0~seconds.  Encrypted 0 messages.\n",
			"alice@example.org: Verified 1~signatures in the past 0~seconds.  Encrypted\n0 messages.\n"},
		{"Warning: if you think you've seen more signatures by this key and user id, then this key might be a forgery!  Carefully examine the email address for small variations.  If the key is suspect, then use\n  gpg --tofu-policy bad 58FC132CA6050C4EACCB0A5C02D64A7EE1EFBEA4\nto mark it as being bad.\n",
			"Warning: if you think you've seen more signatures by this key and user\nid, then this key might be a forgery!  Carefully examine the email address\nfor small variations.  If the key is suspect, then use\n  gpg --tofu-policy bad 58FC132CA6050C4EACCB0A5C02D64A7EE1EFBEA4\nto mark it as being bad.\n"},
		{"short", "short"},
		{"", ""},
	} {
		if got := formatText(c.in, 72, 80); got != c.want {
			t.Errorf("formatText(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	for secs, want := range map[int64]string{0: "0~seconds", 1: "1~second", 120: "120~seconds", 121: "2~minutes",
		7201: "2~hours", 3 * 86400: "3~days", 15 * 86400: "2~weeks", 61 * 86400: "2~months", 800 * 86400: "2~years"} {
		if got := timeAgo(secs); got != want {
			t.Errorf("timeAgo(%d) = %q, want %q", secs, got, want)
		}
	}
}

// FuzzFormatText: whatever the text, wrapping only turns spaces into
// line breaks and drops spaces, and never panics.
func FuzzFormatText(f *testing.F) {
	f.Add("alice@example.org: Verified 1~signatures in the past 0~seconds.  Encrypted 0 messages.\n")
	f.Add("   \n\n  x  \xff\xfe " + strings.Repeat("w ", 60))
	f.Fuzz(func(t *testing.T, in string) {
		out := formatText(in, 72, 80)
		norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
		if norm(out) != norm(in) {
			t.Fatalf("formatText(%q) = %q: more than spaces changed", in, out)
		}
	})
}
