package filter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/packet"
)

// recordEvents keeps what Decrypt reported.
type recordEvents struct {
	nopEvents
	keys     []SessionKeyInfo
	warnings []Warning
}

func (r *recordEvents) SessionKey(s SessionKeyInfo) { r.keys = append(r.keys, s) }
func (r *recordEvents) Warning(w Warning)           { r.warnings = append(r.warnings, w) }

// TestResultTyped checks that the result and the session-key event say,
// as typed fields, which packet format, AEAD mode and key a message used.
func TestResultTyped(t *testing.T) {
	dir := filepath.Join("..", "testdata", "aead")
	privs, _ := readSecretKeys(t, filepath.Join(dir, "key-sec.asc"))
	for _, c := range []struct {
		file   string
		keys   Keys
		format Format
		aead   packet.AEADAlgo
		pkesk  bool
		mode   string
		auth   bool
	}{
		{"aead-1000.gpg", secretKeys{privs: privs}, AEADv1, packet.AEADOCB, true, "AEAD (tag 20) OCB", true},
		{"cfb-mdc-1000.gpg", secretKeys{privs: privs}, SEIPDv1, 0, true, "SEIPD v1", false},
		{"sym-aead-1000.gpg", secretKeys{pass: []byte("interop")}, AEADv1, packet.AEADOCB, false, "AEAD (tag 20) OCB", true},
	} {
		ct, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		ev := &recordEvents{}
		res, err := Decrypt(bytes.NewReader(ct), &bytes.Buffer{}, DecryptOptions{Keys: c.keys, Events: ev})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if len(ev.keys) != 1 || !reflect.DeepEqual(ev.keys[0], res.SessionKeyInfo) {
			t.Fatalf("%s: events %+v, result %+v", c.file, ev.keys, res.SessionKeyInfo)
		}
		s := res.SessionKeyInfo
		if s.Format != c.format || s.AEAD != c.aead || s.Mode() != c.mode || s.Format.ReleasesAuthenticated() != c.auth {
			t.Errorf("%s: %v %v %q", c.file, s.Format, s.AEAD, s.Mode())
		}
		if c.pkesk {
			if s.PKESK == nil || s.Key == nil || s.SKESK != nil || fmt.Sprintf("%X", s.Key.Fingerprint[12:]) != "9F1F4C4DFC008376" {
				t.Errorf("%s: PKESK %v key %v SKESK %v", c.file, s.PKESK, s.Key, s.SKESK)
			}
			if want := "PKESK v3 to 9F1F4C4DFC008376"; s.From() != want {
				t.Errorf("%s: from %q, want %q", c.file, s.From(), want)
			}
		} else if s.SKESK == nil || s.PKESK != nil || s.Key != nil {
			t.Errorf("%s: PKESK %v key %v SKESK %v", c.file, s.PKESK, s.Key, s.SKESK)
		}
		if len(ev.warnings) != 0 {
			t.Errorf("%s: warnings %v", c.file, ev.warnings)
		}
		checkGivenSessionKey(t, c.file, ct, res)
	}
}

// checkGivenSessionKey decrypts ct again with the session key res
// recorded and no other key, then with that key altered.
func checkGivenSessionKey(t *testing.T, name string, ct []byte, res *Result) {
	t.Helper()
	if len(res.SessionKey) != res.Cipher.KeySize() {
		t.Fatalf("%s: session key of %d octets for %v", name, len(res.SessionKey), res.Cipher)
	}
	var plain bytes.Buffer
	given := &GivenSessionKey{Cipher: res.Cipher, Key: res.SessionKey}
	res2, err := Decrypt(bytes.NewReader(ct), &plain, DecryptOptions{SessionKey: given})
	if err != nil {
		t.Fatalf("%s: with the given session key: %v", name, err)
	}
	if !res2.Given || res2.From() != "the given session key" || res2.Bytes != res.Bytes || plain.Len() == 0 {
		t.Errorf("%s: given: %+v", name, res2.SessionKeyInfo)
	}
	wrong := append([]byte(nil), res.SessionKey...)
	wrong[0] ^= 1
	_, err = Decrypt(bytes.NewReader(ct), io.Discard, DecryptOptions{SessionKey: &GivenSessionKey{Cipher: res.Cipher, Key: wrong}})
	if !errors.Is(err, ErrAuthentication) {
		t.Errorf("%s: a wrong given key: %v, want ErrAuthentication", name, err)
	}
	if res.Format == AEADv1 || res.Format == SEIPDv2 {
		other := packet.CipherAES128
		if res.Cipher == other {
			other = packet.CipherAES256
		}
		_, err = Decrypt(bytes.NewReader(ct), io.Discard, DecryptOptions{SessionKey: &GivenSessionKey{Cipher: other, Key: res.SessionKey}})
		if err == nil || !strings.Contains(err.Error(), "the given session key is for") {
			t.Errorf("%s: a key for another cipher: %v", name, err)
		}
	}
}

// TestWarningKinds checks that warnings carry their kind, once each.
func TestWarningKinds(t *testing.T) {
	ev := &recordEvents{}
	msg := literalPacket([]byte("plain"))
	if _, err := Decrypt(bytes.NewReader(msg), &bytes.Buffer{}, DecryptOptions{Events: ev}); err != nil {
		t.Fatal(err)
	}
	if len(ev.warnings) != 1 || ev.warnings[0].Kind != WarnNotEncrypted {
		t.Fatalf("warnings %+v", ev.warnings)
	}
	if len(ev.keys) != 0 {
		t.Fatalf("session key events for a plain message: %+v", ev.keys)
	}
}

func TestReleasesAuthenticated(t *testing.T) {
	for f, want := range map[Format]bool{SEIPDv1: false, SEIPDv2: true, AEADv1: true, SED: false} {
		if f.ReleasesAuthenticated() != want {
			t.Errorf("%v: %v", f, !want)
		}
	}
}
