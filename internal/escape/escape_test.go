package escape

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// gpgUID is a user ID holding every control byte, the characters the
// channels treat specially, valid UTF-8 (é, U+202E) and bytes that are
// not UTF-8; the expectations are what gpg 2.2.40 printed for a key with
// this user ID (--list-keys, --with-colons, GOODSIG), except where
// pgpstream is stricter, as noted.
var gpgUID = string(func() []byte {
	b := make([]byte, 0, 64)
	for c := 0; c < 0x20; c++ {
		b = append(b, byte(c))
	}
	return append(b, "\"q\" \\ % : \x7f \xc3\xa9 \xe2\x80\xae rlo \xff\xfe"...)
}())

const gpgCtl = `\0\x01\x02\x03\x04\x05\x06\x07\b\x09\n\v\f\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f`

func TestAsGPG(t *testing.T) {
	for _, c := range []struct {
		name, got, want string
	}{
		{"human", Human(gpgUID), gpgCtl + "\"q\" \\ % : \\x7f \xc3\xa9 \xe2\x80\xae rlo \\xff\\xfe"},
		{"colon", Colon(gpgUID), gpgCtl + "\"q\" \\x5c % \\x3a \\x7f \xc3\xa9 \xe2\x80\xae rlo \xff\xfe"},
		{"status text", StatusText("Mallory 100% <m@x>\n[GNUPG:] GOODSIG 0123\x1b[31m\x7f\xff"),
			"Mallory 100%25 <m@x>%0A[GNUPG:] GOODSIG 0123%1B[31m%7F\xff"},
		{"status field", StatusField("a\nb%c d"), "a%0Ab%25c%20d"},
		// gpg 2.2.40's --list-packets for a notation "n\tx)@a" =
		// "v\t)\n\\z", and a user ID.
		{"delimited", Delimited("n\tx)@a", ')') + "=" + Delimited("v\t)\n\\z", ')'), `n\x09x\x29@a=v\x09\x29\n\x5cz`},
		{"packet listing", PacketListing("a\nb%c d{\xc3\xa9"), `a\x0ab%c d\x7b\xc3\xa9`},
		// gpg lets C1 controls and overlong forms pass to the
		// terminal; pgpstream escapes them.
		{"human C1", Human("a\xc2\x9b2Jb\xc0\xafc"), `a\xc2\x9b2Jb\xc0\xafc`},
		{"clean", Human("Alice <alice@example.org>"), "Alice <alice@example.org>"},
	} {
		if c.got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, c.got, c.want)
		}
	}
}

// oneLine fails unless s can sit inside one line of its channel.
func oneLine(t *testing.T, channel, in, s string, spaces bool) {
	t.Helper()
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || (!spaces && c == ' ') {
			t.Fatalf("%s(%q) = %q: byte %#02x at %d", channel, in, s, c, i)
		}
	}
}

// randomText is n bytes drawn from all 256 values, or random runes, or
// a mix: what a hostile key or server could put in a field.
func randomText(r *rand.Rand) string {
	n := r.IntN(40)
	var b strings.Builder
	for b.Len() < n {
		switch r.IntN(3) {
		case 0:
			b.WriteByte(byte(r.IntN(256)))
		case 1:
			b.WriteRune(rune(r.IntN(0x110000)))
		default:
			b.WriteString([]string{"\n[GNUPG:] GOODSIG ", "%0A", `\n`, ":", "\x1b[2J", "\xc2\x9b", " "}[r.IntN(7)])
		}
	}
	return b.String()
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	inputs := []string{gpgUID, "", "%", "%%41", `\`, `\x41`, "\x00"}
	for range 20000 {
		inputs = append(inputs, randomText(r))
	}
	for c := 0; c < 256; c++ {
		inputs = append(inputs, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"b")
	}
	for _, in := range inputs {
		st, sf, co, hu := StatusText(in), StatusField(in), Colon(in), Human(in)
		oneLine(t, "StatusText", in, st, true)
		oneLine(t, "StatusField", in, sf, false)
		oneLine(t, "Colon", in, co, true)
		oneLine(t, "Human", in, hu, true)
		pl, de := PacketListing(in), Delimited(in, ')')
		oneLine(t, "PacketListing", in, pl, true)
		oneLine(t, "Delimited", in, de, true)
		if (UnColon(pl) != in && !strings.Contains(in, `\`)) || UnColon(de) != in || strings.Contains(de, ")") {
			t.Fatalf("PacketListing or Delimited(%q) does not come back: %q %q", in, pl, de)
		}
		if strings.Contains(co, ":") {
			t.Fatalf("Colon(%q) = %q holds a ':'", in, co)
		}
		if !utf8.ValidString(hu) {
			t.Fatalf("Human(%q) = %q is not UTF-8", in, hu)
		}
		if got := UnStatus(st); got != in {
			t.Fatalf("UnStatus(StatusText(%q)) = %q", in, got)
		}
		if got := UnStatus(sf); got != in {
			t.Fatalf("UnStatus(StatusField(%q)) = %q", in, got)
		}
		if got := UnColon(co); got != in {
			t.Fatalf("UnColon(Colon(%q)) = %q", in, got)
		}
		if !strings.Contains(in, `\`) {
			if got := UnHuman(hu); got != in {
				t.Fatalf("UnHuman(Human(%q)) = %q", in, got)
			}
		}
	}
}

func FuzzEscape(f *testing.F) {
	f.Add(gpgUID)
	f.Add("\n[GNUPG:] GOODSIG x")
	f.Add("\xc2\x9b\xff%:\\")
	f.Fuzz(func(t *testing.T, in string) {
		st, sf, co, hu := StatusText(in), StatusField(in), Colon(in), Human(in)
		oneLine(t, "StatusText", in, st, true)
		oneLine(t, "StatusField", in, sf, false)
		oneLine(t, "Colon", in, co, true)
		oneLine(t, "Human", in, hu, true)
		if UnStatus(st) != in || UnStatus(sf) != in || UnColon(co) != in {
			t.Fatalf("%q does not come back", in)
		}
		if !strings.Contains(in, `\`) && UnHuman(hu) != in {
			t.Fatalf("Human(%q) does not come back", in)
		}
	})
}

func BenchmarkStatusTextClean(b *testing.B) {
	s := "Alice Example <alice@example.org>"
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		StatusText(s)
	}
}
