package mailbox

import "testing"

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
	} {
		got, ok := FromUserID(uid)
		if ok != (want != "") || got != want {
			t.Errorf("FromUserID(%q) = %q, %v; want %q", uid, got, ok, want)
		}
	}
}
