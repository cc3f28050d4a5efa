package mailbox

import (
	"strings"
	"testing"
)

// TestFromUserID holds FromUserID to gpg 2.2's mailbox_from_userid on
// the forms user IDs take, and on those it refuses.
func TestFromUserID(t *testing.T) {
	for uid, want := range map[string]string{
		"Alice <Alice@Example.ORG>":       "alice@example.org",
		"alice@example.org":               "alice@example.org",
		"<bob@x.test>":                    "bob@x.test",
		"Eve <eve@x.test> <alice@x.test>": "eve@x.test",
		"Bob (work) <bob+tag@x.test>":     "bob+tag@x.test",
		"Alice":                           "",
		"Alice <>":                        "",
		"Alice <alice@>":                  "",
		"Alice <@x.test>":                 "",
		"Alice <a@b@c>":                   "",
		"Alice <alice@x..test>":           "",
		"Alice <alice@x.test.>":           "",
		"Alice <al ice@x.test>":           "",
		"Alice <alice@x.test":             "",
		"alice@x.test (comment)":          "",
		"Alice <alice\x01@x.test>":        "",
		"Élodie <Élodie@Exemple.FR>":      "Élodie@exemple.fr",
		"Del <del\x7f@x.test>":            "del\x7f@x.test",
	} {
		got, ok := FromUserID(uid)
		if ok != (want != "") || got != want {
			t.Errorf("FromUserID(%q) = %q, %v; want %q", uid, got, ok, want)
		}
	}
}

// FuzzFromUserID: whatever the user ID, an address found has one '@',
// neither first nor last, no space or control byte and no upper-case
// ASCII, and is a part of the user ID (lowercased).
func FuzzFromUserID(f *testing.F) {
	f.Add("Alice <Alice@Example.ORG>")
	f.Add("a@b")
	f.Add("<<a@b>>\x00 <c@d>")
	f.Fuzz(func(t *testing.T, uid string) {
		addr, ok := FromUserID(uid)
		if !ok {
			if addr != "" {
				t.Fatalf("%q: not found, yet %q", uid, addr)
			}
			return
		}
		at := strings.IndexByte(addr, '@')
		if strings.Count(addr, "@") != 1 || at == 0 || at == len(addr)-1 {
			t.Fatalf("%q: address %q", uid, addr)
		}
		for i := 0; i < len(addr); i++ {
			if c := addr[i]; c <= ' ' || c >= 'A' && c <= 'Z' {
				t.Fatalf("%q: address %q has byte %#x", uid, addr, c)
			}
		}
		if !strings.Contains(ASCIILower(uid), addr) {
			t.Fatalf("%q: address %q is not in it", uid, addr)
		}
	})
}
