package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command line and gpg.conf come from the caller, and gpg.conf is
// often shared with gpg or written by other programs: any argv and any
// file give options or an error, never a panic. Arguments are the fuzz
// input split at NUL bytes.
func FuzzOptions(f *testing.F) {
	f.Add("--armor\x00-r\x00alice@example.org\x00-e", "keyserver hkps://keys.example.org\n# comment\ncipher-algo AES256\n")
	f.Add("--status-fd=1\x00--with-colons\x00-k", "no-greeting\ndefault-key 0xDEADBEEF\n")
	f.Add("-sear\x00bob\x00--compress-level\x009\x00--\x00-", "compress-level x\ntrust-model tofu+pgp\n")
	f.Add("--keyserver-options\x00timeout=3,no-honor-keyserver-url\x00--import-options\x00import-local-sigs", "\"quoted\"\n--options\n")
	f.Add("--passphrase-fd\x00-1\x00--cipher-algo\x00TWOFISH\x00-c", "expert\nweak-digest SHA1\n")
	f.Fuzz(func(t *testing.T, args, conf string) {
		if len(args) > 4096 || len(conf) > 16384 {
			return
		}
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "gpg.conf"), []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		argv := []string{"--homedir", home}
		if args != "" {
			argv = append(argv, strings.Split(args, "\x00")...)
		}
		o, err := parseOptions(argv)
		if err == nil && o == nil {
			t.Fatal("parseOptions: no options and no error")
		}
	})
}

// A key generation parameter file (--batch --gen-key FILE) gives keys to
// make or an error naming the line, never a panic.
func FuzzKeyParams(f *testing.F) {
	f.Add("%no-protection\nKey-Type: RSA\nKey-Length: 3072\nSubkey-Type: ELG-E\nName-Real: Joe\nName-Email: joe@example.org\nExpire-Date: 0\n%commit\n")
	f.Add("Key-Type: eddsa\nKey-Curve: ed25519\nSubkey-Type: ecdh\nSubkey-Curve: cv25519\nPassphrase: abc\nExpire-Date: 2y\n%echo done\n%dry-run\n%commit\n")
	f.Add("Key-Type: default\nKey-Usage: sign,cert\nCreation-Date: 20260101T000000\nExpire-Date: 2027-01-01\n")
	f.Fuzz(func(t *testing.T, data string) {
		keys, err := parseKeyParams("params", []byte(data), func(string) {})
		if err == nil {
			for _, k := range keys {
				if k == nil {
					t.Fatal("a nil key without an error")
				}
			}
		}
	})
}
