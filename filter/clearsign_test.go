package filter

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/packet"
)

// Cleartext signatures round-trip over the texts whose canonical form is
// easy to get wrong: trailing whitespace at a read-buffer boundary of a
// long line, CR LF, no final newline, empty text, dash and "From " lines,
// and a v6 key (no Hash header, salted signature).
func TestClearSignRoundTrip(t *testing.T) {
	long := strings.Repeat("x", 64<<10-3) + "   \t" + strings.Repeat("y", 100) + "  \n"
	texts := map[string]string{
		"plain":      "Hello\nworld\n",
		"no newline": "Hello\nworld",
		"empty":      "",
		"blank":      "\n\n",
		"crlf":       "a  \r\nb\t\r\n",
		"dashes":     "-- sig\n- x\nFrom me\nFrom\n",
		"long":       long + long[:64<<10],
	}
	for _, kind := range []string{"ed25519", "v6"} {
		e := testEntity(t, kind)
		for name, text := range texts {
			var msg bytes.Buffer
			if _, err := ClearSign(strings.NewReader(text), &msg, SignOptions{Signers: []Signer{signerOf(e, packet.HashSHA512)}}); err != nil {
				t.Fatalf("%s %s: %v", kind, name, err)
			}
			hasHash := strings.Contains(msg.String(), "\nHash: SHA512\n")
			if hasHash != (kind != "v6") {
				t.Errorf("%s %s: Hash header present %v", kind, name, hasHash)
			}
			var out bytes.Buffer
			res, err := Decrypt(bytes.NewReader(msg.Bytes()), &out, DecryptOptions{Signers: entityKeys{e}})
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", kind, name, err, msg.String())
			}
			if got := statuses(res.Signatures); len(got) != 1 || got[0] != SigGood {
				t.Errorf("%s %s: %v (%v)", kind, name, got, res.Signatures)
			}
			if want := canonicalOutput(text); out.String() != want {
				t.Errorf("%s %s: output %q, want %q", kind, name, out.String(), want)
			}
			// The same text with a line's content changed is BAD.
			if text != "" && text != "\n\n" {
				bad := bytes.Replace(msg.Bytes(), []byte("\n\n"+strings.TrimLeft(text, "-")[:1]), []byte("\n\nZ"), 1)
				if !bytes.Equal(bad, msg.Bytes()) {
					res, err := Decrypt(bytes.NewReader(bad), &bytes.Buffer{}, DecryptOptions{Signers: entityKeys{e}})
					if err == nil && statuses(res.Signatures)[0] != SigBad {
						t.Errorf("%s %s: changed text verified: %v", kind, name, statuses(res.Signatures))
					}
				}
			}
		}
	}
}

// canonicalOutput is what reading back a cleartext message of text gives.
func canonicalOutput(text string) string {
	if text == "" {
		return ""
	}
	text = strings.TrimSuffix(text, "\n")
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		b.WriteString(strings.TrimRight(l, " \t\r") + "\n")
	}
	return b.String()
}

func TestClearSignedMalformed(t *testing.T) {
	e := testEntity(t, "ed25519")
	var msg bytes.Buffer
	if _, err := ClearSign(strings.NewReader("hi\n"), &msg, SignOptions{Signers: []Signer{signerOf(e, 0)}}); err != nil {
		t.Fatal(err)
	}
	good := msg.String()
	for name, m := range map[string]string{
		"extra header":   strings.Replace(good, "Hash: SHA256\n", "Hash: SHA256\nComment: hidden\n", 1),
		"wrong hash":     strings.Replace(good, "Hash: SHA256\n", "Hash: SHA1\n", 1),
		"no signature":   good[:strings.Index(good, sigBegin)],
		"bad escape":     strings.Replace(good, "\n\nhi\n", "\n\n-hi\n", 1),
		"other block":    strings.Replace(strings.Replace(good, "BEGIN PGP SIGNATURE", "BEGIN PGP MESSAGE", 1), "END PGP SIGNATURE", "END PGP MESSAGE", 1),
		"no blank line":  strings.Replace(good, "Hash: SHA256\n\n", "Hash: SHA256\n", 1),
		"text before it": "junk\n" + good,
	} {
		_, err := Decrypt(strings.NewReader(m), &bytes.Buffer{}, DecryptOptions{Signers: entityKeys{e}})
		if err == nil {
			t.Errorf("%s: no error", name)
		} else if name != "other block" && name != "no blank line" && !errors.Is(err, ErrClearSigned) {
			t.Logf("%s: %v", name, err)
		}
	}
}

// GnuPG's not dash-escaped form round-trips over the texts the escaping
// would change: lines starting with "- ", "-----" and "From ", trailing
// whitespace (signed here, so changing it is BAD), CR LF and no final
// newline. The text is written as it is, and read back with only its CR
// LF line endings made LF and a LF added at the end where there was none.
func TestClearSignNotDashEscaped(t *testing.T) {
	texts := map[string]string{
		"patch":      "--- a/f\n+++ b/f\n- old\n+ new\n",
		"armor line": "-----BEGIN PGP MESSAGE-----\nx\n-----END PGP MESSAGE-----\n",
		"from":       "From me\n",
		"trailing":   "a  \nb\t\n",
		"crlf":       "a \r\nb\r\n",
		"no newline": "a\nb",
		"empty":      "",
	}
	for _, kind := range []string{"ed25519", "v6"} {
		e := testEntity(t, kind)
		for name, text := range texts {
			var msg bytes.Buffer
			if _, err := ClearSign(strings.NewReader(text), &msg, SignOptions{Signers: []Signer{signerOf(e, packet.HashSHA256)}, NotDashEscaped: true}); err != nil {
				t.Fatalf("%s %s: %v", kind, name, err)
			}
			m := msg.String()
			_, body, _ := strings.Cut(m, "\n"+notDashEscaped+"\n\n")
			if want := text; !strings.HasPrefix(body, want) || strings.HasSuffix(text, "\n") && !strings.HasPrefix(body[len(text):], sigBegin) {
				t.Fatalf("%s %s: text not written as it is:\n%s", kind, name, m)
			}
			var out bytes.Buffer
			res, err := Decrypt(strings.NewReader(m), &out, DecryptOptions{Signers: entityKeys{e}})
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", kind, name, err, m)
			}
			if got := statuses(res.Signatures); len(got) != 1 || got[0] != SigGood {
				t.Errorf("%s %s: %v (%v)", kind, name, got, res.Signatures)
			}
			want := strings.ReplaceAll(text, "\r\n", "\n")
			if !strings.HasSuffix(want, "\n") {
				want += "\n"
			}
			if out.String() != want {
				t.Errorf("%s %s: output %q, want %q", kind, name, out.String(), want)
			}
			// The whitespace is signed: a space more at the end of the
			// first line is BAD.
			first, _, _ := strings.Cut(body, "\n")
			bad := strings.Replace(m, "\n\n"+first+"\n", "\n\n"+first+" \n", 1)
			res, err = Decrypt(strings.NewReader(bad), &bytes.Buffer{}, DecryptOptions{Signers: entityKeys{e}})
			if err == nil && statuses(res.Signatures)[0] != SigBad {
				t.Errorf("%s %s: changed whitespace verified: %v", kind, name, statuses(res.Signatures))
			}
			// Without the header the same message is read dash-escaped,
			// and either fails or does not verify.
			plain := strings.Replace(m, notDashEscaped+"\n", "", 1)
			res, err = Decrypt(strings.NewReader(plain), &bytes.Buffer{}, DecryptOptions{Signers: entityKeys{e}})
			if err == nil && statuses(res.Signatures)[0] == SigGood && strings.ContainsAny(text, " \t\r-") {
				t.Errorf("%s %s: verified without its NotDashEscaped header", kind, name)
			}
		}
	}
	// A line that would end the text is refused, and nothing follows
	// the headers.
	e := testEntity(t, "ed25519")
	_, err := ClearSign(strings.NewReader("a\n"+sigBegin+"\nb\n"), &bytes.Buffer{}, SignOptions{Signers: []Signer{signerOf(e, 0)}, NotDashEscaped: true})
	if !errors.Is(err, ErrNotDashEscapable) {
		t.Errorf("a signature block line in the text: %v", err)
	}
	// gpg wants text after the header's name.
	var msg bytes.Buffer
	if _, err := ClearSign(strings.NewReader("- x\n"), &msg, SignOptions{Signers: []Signer{signerOf(e, 0)}, NotDashEscaped: true}); err != nil {
		t.Fatal(err)
	}
	bare := strings.Replace(msg.String(), notDashEscaped, notDashEscapedName, 1)
	if _, err := Decrypt(strings.NewReader(bare), &bytes.Buffer{}, DecryptOptions{Signers: entityKeys{e}}); !errors.Is(err, ErrClearSigned) {
		t.Errorf("a bare NotDashEscaped: header: %v", err)
	}
}
