package keyserver

import "testing"

// A key server's machine-readable index is whatever the server sends:
// results or an error, never a panic.
func FuzzParseIndex(f *testing.F) {
	f.Add("info:1:2\npub:E94E607346A681E2:22:255:1700000000::\nuid:Joe%20Example%20%3Cjoe@example.org%3E:1700000000::\npub:0123456789ABCDEF:1:3072:1600000000:1700000000:re\nuid:x::\n")
	f.Add("info:2:0\n")
	f.Add("pub:::\r\nuid:%ZZ%\r\n")
	f.Fuzz(func(t *testing.T, body string) {
		ParseIndex(body)
	})
}
