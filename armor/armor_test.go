package armor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgpstream/pgpstream/internal/testpeer"
)

// crc24Bitwise is the bit-at-a-time definition from RFC 9580 §6.1, the
// oracle for the table-driven crc24Update.
func crc24Bitwise(p []byte) uint32 {
	crc := uint32(crc24Init)
	for _, b := range p {
		crc ^= uint32(b) << 16
		for range 8 {
			crc <<= 1
			if crc&0x1000000 != 0 {
				crc ^= crc24Poly
			}
		}
	}
	return crc & 0xFFFFFF
}

// rfc4880Sample is the armored message of RFC 4880 §6.6.
const rfc4880Sample = `-----BEGIN PGP MESSAGE-----
Version: OpenPrivacy 0.99

yDgBO22WxBHv7O8X7O/jygAEzol56iUKiXmV+XmpCtmpqQUKiQrFqclFqUDBovzS
vBSFjNSiVHsuAA==
=njUN
-----END PGP MESSAGE-----
`

// gpgSample was made by GnuPG 2.2.40:
//
//	printf 'pgpstream armor test vector\n' |
//	gpg --batch --armor --symmetric --passphrase x --pinentry-mode loopback
//
// and gpgSampleBinary is `gpg --dearmor` of it.
const gpgSample = `-----BEGIN PGP MESSAGE-----

jA0ECQMCapZOPxuAuIj/0lcBX4TOAJaVsNT7UpiD7p6Eb200cbj8eIiBjbFrzS78
/xVWk13BbG8r815QcIoimnfjUGK59PlDb16xQI2DbqfkNC/p6Fmzw8VcDBmmITJn
Kvr1ADu3fa4=
=mnAT
-----END PGP MESSAGE-----
`

const gpgSampleBinary = "8c0d040903026a964e3f1b80b888ffd257015f84ce009695b0d4fb529883" +
	"ee9e846f6d3471b8fc7888818db16bcd2efcff1556935dc16c6f2bf35e50" +
	"708a229a77e35062b9f4f9436f5eb1408d836ea7e4342fe9e859b3c3c55c" +
	"0c19a62132672afaf5003bb77dae"

// gpgEnarmorHello is `printf hello | gpg --enarmor` (GnuPG 2.2.40).
const gpgEnarmorHello = `-----BEGIN PGP ARMORED FILE-----
Comment: Use "gpg --dearmor" for unpacking

aGVsbG8=
=R/WK
-----END PGP ARMORED FILE-----
`

func TestCRC24Vectors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint32
	}{
		{"", 0xB704CE},
		{"123456789", 0x21CF02}, // the CRC-24/OPENPGP check value
		{"hello", 0x47F58A},     // "=R/WK" in gpgEnarmorHello
	} {
		if got := crc24Update(crc24Init, []byte(tc.in)); got != tc.want {
			t.Errorf("crc24(%q) = %06X, want %06X", tc.in, got, tc.want)
		}
		if got := crc24Bitwise([]byte(tc.in)); got != tc.want {
			t.Errorf("bitwise crc24(%q) = %06X, want %06X", tc.in, got, tc.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 300)
	for n := range len(buf) {
		p := buf[:n]
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		want := crc24Bitwise(p)
		cut := 0
		if n > 0 {
			cut = rng.IntN(n)
		}
		got := crc24Update(crc24Update(crc24Init, p[:cut]), p[cut:])
		if got != want {
			t.Fatalf("len %d cut %d: crc24 = %06X, want %06X", n, cut, got, want)
		}
	}
}

func TestArmorRFCSample(t *testing.T) {
	a, err := NewReader(strings.NewReader(rfc4880Sample))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(a)
	if err != nil {
		t.Fatalf("ReadAll: %v", err) // the footer =njUN is checked here
	}
	if len(got) != 58 || got[0] != 0xc8 {
		t.Errorf("decoded %d octets starting %x", len(got), got[:1])
	}
	if a.Type() != Message {
		t.Errorf("Type = %q", a.Type())
	}
	if v := a.Headers()["Version"]; len(v) != 1 || v[0] != "OpenPrivacy 0.99" {
		t.Errorf("Version header = %q", v)
	}
}

func TestArmorGPGSample(t *testing.T) {
	want, _ := hex.DecodeString(gpgSampleBinary)
	for _, tc := range []struct{ name, in string }{
		{"LF", gpgSample},
		{"CRLF", strings.ReplaceAll(gpgSample, "\n", "\r\n")},
		{"trailing whitespace", strings.ReplaceAll(gpgSample, "\n", " \t\r\n")},
		{"mail text before", "From: a@example.org\nSubject: hi\n\nSee below.\n   \n" + gpgSample + "\nbye\n"},
		{"no final newline", strings.TrimSuffix(gpgSample, "\n")},
		{"no checksum", strings.Replace(gpgSample, "=mnAT\n", "", 1)},
		{"no blank line after headers", strings.Replace(gpgSample, "-----\n\n", "-----\nComment: x\n", 1)},
		{"blank line before END", strings.Replace(gpgSample, "=mnAT\n", "=mnAT\n\n", 1)},
		// gpg accepts an END line with the wrong count of dashes; GnuPG's
		// tests have one.
		{"four dashes after END", strings.Replace(gpgSample, "END PGP MESSAGE-----", "END PGP MESSAGE----", 1)},
		{"six dashes after END", strings.Replace(gpgSample, "END PGP MESSAGE-----", "END PGP MESSAGE------", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewReader(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(a)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("decoded\n%x\nwant\n%x", got, want)
			}
		})
	}
}

func TestArmorWriterMatchesGPG(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, "PGP ARMORED FILE", map[string]string{"Comment": `Use "gpg --dearmor" for unpacking`})
	if _, err := w.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.String() != gpgEnarmorHello {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), gpgEnarmorHello)
	}

	want, _ := hex.DecodeString(gpgSampleBinary)
	buf.Reset()
	w = NewWriter(&buf, Message, nil)
	w.Write(want)
	w.Close()
	if buf.String() != gpgSample {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), gpgSample)
	}
}

// armorEncode armors data, writing it in random pieces.
func armorEncode(t testing.TB, data []byte, rng *rand.Rand, omitCRC bool) []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf, Message, map[string]string{"Comment": "test", "Charset": "UTF-8"})
	w.OmitChecksum = omitCRC
	for p := data; len(p) > 0; {
		n := min(len(p), 1+rng.IntN(3*armorLineData))
		if rng.IntN(8) == 0 {
			n = min(len(p), 1+rng.IntN(200<<10))
		}
		if k, err := w.Write(p[:n]); err != nil || k != n {
			t.Fatalf("Write = %d, %v", k, err)
		}
		p = p[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// armorDecode reads an armored block with reads of bufSize.
func armorDecode(r io.Reader, bufSize int) ([]byte, error) {
	a, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	var out []byte
	p := make([]byte, bufSize)
	for {
		n, err := a.Read(p)
		out = append(out, p[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

func TestArmorRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, size := range []int{0, 1, 2, 3, 47, 48, 49, 1000, 1<<20 + 3} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		for _, omit := range []bool{false, true} {
			enc := armorEncode(t, data, rng, omit)
			lines := strings.Split(strings.TrimSuffix(string(enc), "\n"), "\n")
			for i, l := range lines {
				if len(l) > 64 && i > 0 && i < len(lines)-1 {
					t.Fatalf("size %d: line %d has %d characters", size, i+1, len(l))
				}
			}
			if hasCRC := strings.Contains(string(enc), "\n="); hasCRC == omit {
				t.Fatalf("size %d OmitChecksum %v: footer present = %v", size, omit, hasCRC)
			}
			for _, bs := range []int{1, 7, 512, 64 << 10} {
				if size > 4096 && bs == 1 && omit {
					continue // the 1-octet pass over 1 MiB is done once
				}
				t.Run(fmt.Sprintf("size=%d/omit=%v/read=%d", size, omit, bs), func(t *testing.T) {
					got, err := armorDecode(bytes.NewReader(enc), bs)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, data) {
						t.Fatalf("round trip changed the data (got %d octets)", len(got))
					}
				})
			}
			// One byte per underlying Read: the slow-stream path.
			if size <= 1000 {
				got, err := armorDecode(&oneByteReader{bytes.NewReader(enc)}, 512)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("size %d via one-byte reads: %v", size, err)
				}
			}
		}
	}
}

type oneByteReader struct{ r io.Reader }

func (o *oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

// Lines of other lengths (76 characters, or odd ones) decode as well: the
// decoder counts characters, not lines.
func TestArmorOddLineLengths(t *testing.T) {
	data := make([]byte, 5000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	enc := armorEncode(t, data, rand.New(rand.NewPCG(5, 6)), false)
	var b64 strings.Builder
	var head, tail string
	lines := strings.Split(string(enc), "\n")
	for i, l := range lines {
		switch {
		case i < 4:
			head += l + "\n"
		case strings.HasPrefix(l, "=") || strings.HasPrefix(l, "-") || l == "":
			tail += l + "\n"
		default:
			b64.WriteString(l)
		}
	}
	for _, width := range []int{76, 1, 3, 5, 61} {
		s := b64.String()
		var body strings.Builder
		for len(s) > 0 {
			n := min(width, len(s))
			body.WriteString(s[:n] + "\n")
			s = s[n:]
		}
		for _, bs := range []int{1, 7, 512} {
			got, err := armorDecode(strings.NewReader(head+body.String()+tail), bs)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("width %d read %d: %v", width, bs, err)
			}
		}
	}
}

func TestArmorErrors(t *testing.T) {
	bad := func(old, new string) string { return strings.Replace(gpgSample, old, new, 1) }
	for _, tc := range []struct {
		name string
		in   string
		kind error
		msg  string // a part of the message
	}{
		{"empty input", "", ErrNotFound, "input is empty"},
		{"only blank lines", "\n\n  \n", ErrNotFound, "none in 3 lines"},
		{"binary input", "\x8c\x0d\x04\x09\x03\x02", ErrNotFound, "none in 1 lines"},
		{"bad CRC", bad("=mnAT", "=mnAU"), ErrCRC24Mismatch, "line 6: footer =mnAU is 9A7014, data gives 9A7013"},
		{"malformed CRC", bad("=mnAT", "=mnA"), ErrCorrupt, `line 6: malformed CRC24 checksum line "=mnA"`},
		{"bad base64", bad("/xVWk13B", "/xVWk1*B"), ErrCorrupt, "line 4: invalid base64 at column 7"},
		{"junk line", bad("Kvr1ADu3fa4=\n", "this is not base64!\nKvr1ADu3fa4=\n"), ErrCorrupt, `line 5: invalid base64 at column 5 in "this is not base64!"`},
		{"space inside line", bad("/xVWk13B", "/xVWk 13B"), ErrCorrupt, "line 4: invalid base64 at column 6"},
		{"data after padding", bad("Kvr1ADu3fa4=\n", "Kvr1ADu3fa4=\nAAAA\n"), ErrCorrupt, "line 6: base64 data after '=' padding at column 1"},
		{"incomplete quantum", bad("Kvr1ADu3fa4=", "Kvr1ADu3f"), ErrCorrupt, "line 5: incomplete base64 quantum at the end of the data at column 9"},
		{"missing END", bad("-----END PGP MESSAGE-----\n", ""), ErrTruncated, `line 6: input ended before "-----END PGP MESSAGE-----"`},
		{"cut in body", gpgSample[:100], ErrTruncated, "line 4: input ended"},
		{"cut in headers", "-----BEGIN PGP MESSAGE-----\nComment: x\n", ErrTruncated, "line 2: input ended in the armor headers"},
		{"wrong END type", bad("END PGP MESSAGE", "END PGP SIGNATURE"), ErrCorrupt, `line 7: END line "-----END PGP SIGNATURE-----" does not match "-----END PGP MESSAGE-----"`},
		{"junk after footer", bad("=mnAT\n", "=mnAT\nhello\n"), ErrCorrupt, `line 7: found "hello" after the checksum line 6`},
		{"second BEGIN", bad("=mnAT\n", "-----BEGIN PGP MESSAGE-----\n"), ErrCorrupt, "line 6: found \"-----BEGIN PGP MESSAGE-----\" before"},
		{"malformed BEGIN", "-----BEGIN PGP MESSAGE\n\nAAAA\n", ErrCorrupt, "line 1: malformed BEGIN line"},
		{"cleartext signed", "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nhi\n", ErrCorrupt, "cleartext signed message"},
		{"long line", "-----BEGIN PGP MESSAGE-----\n\n" + strings.Repeat("A", 70000) + "\n", ErrCorrupt, "line 3: line longer than 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, bs := range []int{1, 512} {
				_, err := armorDecode(strings.NewReader(tc.in), bs)
				if err == nil {
					t.Fatal("decoded without error")
				}
				if !errors.Is(err, tc.kind) {
					t.Fatalf("error %q is not %q", err, tc.kind)
				}
				if !strings.Contains(err.Error(), tc.msg) {
					t.Fatalf("error %q does not contain %q", err, tc.msg)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %q spans lines", err)
				}
			}
		})
	}
}

func TestArmorErrorIsSticky(t *testing.T) {
	a, err := NewReader(strings.NewReader(strings.Replace(gpgSample, "=mnAT", "=mnAU", 1)))
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := io.ReadAll(a)
	_, err2 := a.Read(make([]byte, 10))
	if err1 == nil || err1 != err2 {
		t.Fatalf("errors %v then %v", err1, err2)
	}
	if !strings.HasPrefix(err1.Error(), "armor: CRC24 checksum mismatch") {
		t.Fatalf("error %q", err1)
	}
	_, err = armorDecode(strings.NewReader(gpgSample[:150]), 512)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncation error %v does not match io.ErrUnexpectedEOF", err)
	}
}

func TestArmorIgnoreChecksum(t *testing.T) {
	want, _ := hex.DecodeString(gpgSampleBinary)
	for _, footer := range []string{"=mnAU", "=mn", "=!!!!"} {
		a, err := NewReader(strings.NewReader(strings.Replace(gpgSample, "=mnAT", footer, 1)))
		if err != nil {
			t.Fatal(err)
		}
		a.IgnoreChecksum = true
		got, err := io.ReadAll(a)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("footer %s: %v", footer, err)
		}
	}
}

func TestArmorHeaders(t *testing.T) {
	in := "-----BEGIN PGP PUBLIC KEY BLOCK-----\r\nComment: one\r\nComment:two  \r\nVersion: X 1.0\r\n\r\n" +
		"aGVsbG8=\r\n=R/WK\r\n-----END PGP PUBLIC KEY BLOCK-----\r\n"
	a, err := NewReader(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if a.Type() != PublicKey {
		t.Errorf("Type = %q", a.Type())
	}
	h := a.Headers()
	if fmt.Sprint(h["Comment"]) != "[one two]" || fmt.Sprint(h["Version"]) != "[X 1.0]" || len(h) != 2 {
		t.Errorf("Headers = %q", h)
	}
	got, err := io.ReadAll(a)
	if err != nil || string(got) != "hello" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// Two blocks in a row, read through the caller's bufio.Reader: the decoder
// stops right after each END line.
func TestArmorConsecutiveBlocks(t *testing.T) {
	var in bytes.Buffer
	for _, s := range []string{"first", "second"} {
		w := NewWriter(&in, Signature, nil)
		w.Write([]byte(s))
		w.Close()
	}
	in.WriteString("trailer\n")
	br := bufio.NewReaderSize(&in, armorBufSize)
	for _, s := range []string{"first", "second"} {
		a, err := NewReader(br)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(a)
		if err != nil || string(got) != s {
			t.Fatalf("got %q, %v; want %q", got, err, s)
		}
		// BEGIN, blank line, one base64 line, checksum, END.
		if a.Line() != 5 {
			t.Fatalf("block %q ended at line %d, want 5", s, a.Line())
		}
	}
	rest, _ := io.ReadAll(br)
	if string(rest) != "trailer\n" {
		t.Fatalf("left %q after the blocks", rest)
	}
}

func TestIsArmored(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{gpgSample, true},
		{"\r\n \t\n" + gpgSample, true},
		{"\xef\xbb\xbf" + gpgSample, true},
		{"-----BEGIN PGP", true}, // a short peek
		{"-", true},
		{"", false},
		{"  \n", false},
		{"\x8c\x0d\x04", false},
		{"-----BEGIN CERTIFICATE-----", false},
		{"Hello\n" + gpgSample, false},
	} {
		if got := IsArmored([]byte(tc.in)); got != tc.want {
			t.Errorf("IsArmored(%.20q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestArmorWriterErrors(t *testing.T) {
	for _, tc := range []struct {
		typ     string
		headers map[string]string
	}{
		{"", nil},
		{"PGP MESSAGE-----\nX", nil},
		{Message, map[string]string{"Comment": "a\nb"}},
		{Message, map[string]string{"Bad Key": "x"}},
		{Message, map[string]string{"a:b": "x"}},
	} {
		var buf bytes.Buffer
		w := NewWriter(&buf, tc.typ, tc.headers)
		if _, err := w.Write([]byte("x")); err == nil {
			t.Errorf("type %q headers %q: Write accepted", tc.typ, tc.headers)
		}
		if w.Close() == nil || buf.Len() != 0 {
			t.Errorf("type %q headers %q: Close accepted or wrote %q", tc.typ, tc.headers, buf.Bytes())
		}
	}
	var buf bytes.Buffer
	w := NewWriter(&buf, Message, nil)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("x")); err == nil {
		t.Error("Write after Close accepted")
	}
	if buf.String() != "-----BEGIN PGP MESSAGE-----\n\n=twTO\n-----END PGP MESSAGE-----\n" {
		t.Errorf("empty block %q", buf.String())
	}
}

// gpg runs GnuPG with a throwaway home, or skips the test without it
// (fails, when PGPSTREAM_REQUIRE_PEERS is set).
func gpg(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	testpeer.Need(t, "gpg")
	path, _ := exec.LookPath("gpg")
	home := t.TempDir()
	os.Chmod(home, 0o700)
	t.Cleanup(func() {
		// gpg --symmetric starts a gpg-agent for this home; stop it.
		exec.Command("gpgconf", "--homedir", home, "--kill", "all").Run()
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append([]string{"--homedir", home, "--batch", "--no-tty"}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gpg %v: %v\n%s", args, err, stderr.Bytes())
	}
	return out
}

// TestArmorGPGLive checks both directions against the gpg on PATH.
func TestArmorGPGLive(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gpg")
	}
	data := make([]byte, 200<<10+17)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	// gpg armors, we decode.
	armored := gpg(t, data, "--enarmor")
	got, err := armorDecode(bytes.NewReader(armored), 4096)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("decoding gpg --enarmor output: %v", err)
	}
	// A real message: we decode what gpg --symmetric --armor wrote and
	// compare with gpg --dearmor of it.
	msg := gpg(t, data[:5000], "--armor", "--symmetric", "--passphrase", "x", "--pinentry-mode", "loopback")
	bin := gpg(t, msg, "--dearmor")
	got, err = armorDecode(bytes.NewReader(msg), 512)
	if err != nil || !bytes.Equal(got, bin) {
		t.Fatalf("decoding gpg --armor --symmetric output: %v", err)
	}
	// We armor, gpg decodes (gpg checks the CRC24 footer).
	enc := armorEncode(t, data, rng, false)
	if back := gpg(t, enc, "--dearmor"); !bytes.Equal(back, data) {
		t.Fatal("gpg --dearmor of our armor differs")
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte(gpgSample))
	f.Add([]byte(rfc4880Sample))
	f.Add([]byte(gpgEnarmorHello))
	f.Add([]byte(strings.ReplaceAll(gpgSample, "\n", "\r\n")))
	f.Add([]byte("-----BEGIN PGP MESSAGE-----\n\n=twTO\n-----END PGP MESSAGE-----\n"))
	f.Add([]byte("-----BEGIN PGP MESSAGE-----\nA\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		// Arbitrary input never panics, with small and large reads.
		for _, bs := range []int{1, 4096} {
			armorDecode(bytes.NewReader(in), bs)
		}
		// The writer's output of any data decodes to that data.
		rng := rand.New(rand.NewPCG(uint64(len(in)), 9))
		for _, omit := range []bool{false, true} {
			enc := armorEncode(t, in, rng, omit)
			got, err := armorDecode(bytes.NewReader(enc), 1+rng.IntN(100))
			if err != nil {
				t.Fatalf("decoding our own armor: %v\n%s", err, enc)
			}
			if !bytes.Equal(got, in) {
				t.Fatalf("round trip changed %q into %q", in, got)
			}
		}
	})
}

const armorBenchSize = 16 << 20

func armorBenchData() []byte {
	data := make([]byte, armorBenchSize)
	rng := rand.New(rand.NewPCG(10, 11))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	return data
}

// BenchmarkArmorDecode measures decoded octets per second through io.Copy
// (32 KiB reads, each decoded straight into the copy buffer).
func BenchmarkArmorDecode(b *testing.B) {
	data := armorBenchData()
	var buf bytes.Buffer
	w := NewWriter(&buf, Message, nil)
	w.Write(data)
	w.Close()
	enc := buf.Bytes()
	b.SetBytes(armorBenchSize)
	b.ResetTimer()
	for range b.N {
		a, err := NewReader(bytes.NewReader(enc))
		if err != nil {
			b.Fatal(err)
		}
		if n, err := io.Copy(io.Discard, a); err != nil || n != armorBenchSize {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkArmorEncode measures octets armored per second, written in
// 64 KiB pieces.
func BenchmarkArmorEncode(b *testing.B) {
	data := armorBenchData()
	b.SetBytes(armorBenchSize)
	b.ResetTimer()
	for range b.N {
		w := NewWriter(io.Discard, Message, nil)
		for p := data; len(p) > 0; p = p[min(len(p), 64<<10):] {
			w.Write(p[:min(len(p), 64<<10)])
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCRC24(b *testing.B) {
	data := armorBenchData()[:1<<20]
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		crc24Update(crc24Init, data)
	}
}

// TestArmorFuzzSeeds keeps the committed corpus readable by the fuzz engine
// format (a guard against hand-edited seeds).
func TestArmorFuzzSeeds(t *testing.T) {
	files, _ := filepath.Glob("testdata/fuzz/FuzzReader/*")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.HasPrefix(b, []byte("go test fuzz v1\n")) {
			t.Errorf("%s: not a fuzz seed (%v)", f, err)
		}
	}
}
