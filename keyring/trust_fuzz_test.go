package keyring

import "testing"

// The owner-trust file, and --import-ownertrust's input, may be written by
// anyone's tools: levels or an error, never a panic.
func FuzzParseOwnerTrust(f *testing.F) {
	f.Add("# List of assigned trustvalues\n916721A6C099E6BA852FAF80E94E607346A681E2:6:\n")
	f.Add("916721A6C099E6BA852FAF80E94E607346A681E2:3:\r\n\n:::\n")
	f.Fuzz(func(t *testing.T, data string) {
		ParseOwnerTrust([]byte(data))
	})
}
