package output

import "testing"

// TestEmbeddedName: only a plain base name from a message becomes a
// file name (see embeddedName).
func TestEmbeddedName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"plain.txt", true},
		{"résumé.pdf", true},
		{"..hidden", true},
		{"a b", true},
		{"", false},
		{".", false},
		{"..", false},
		{"../evil", false},
		{"/etc/passwd", false},
		{"dir/file", false},
		{"a\x00b", false},
		{"a\nb", false},
		{"a\tb", false},
		{"a\x1bb", false},
		{"a\x7fb", false},
		{"a\u0085b", false}, // a C1 control, NEL
		{"_CONSOLE", false},
	} {
		err := embeddedName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("embeddedName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
