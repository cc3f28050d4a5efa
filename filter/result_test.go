package filter

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
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
		if len(ev.keys) != 1 || ev.keys[0] != res.SessionKeyInfo {
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
