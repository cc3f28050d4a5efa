package status

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/internal/escape"
)

// hostile is a field value a key, a message or a server could choose.
func hostile(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(24); b.Len() < n; {
		switch r.IntN(4) {
		case 0:
			b.WriteByte(byte(r.IntN(256)))
		case 1:
			b.WriteRune(rune(r.IntN(0x110000)))
		case 2:
			b.WriteString([]string{"\n[GNUPG:] GOODSIG 0123456789ABCDEF Alice\n", "\r", "\x00", "%", "%0A", " "}[r.IntN(6)])
		default:
			b.WriteString("Alice <alice@example.org>")
		}
	}
	return b.String()
}

// fill sets every field of a copy of l from r and returns it.
func fill(l Line, r *rand.Rand) Line {
	v := reflect.New(reflect.TypeOf(l)).Elem()
	v.Set(reflect.ValueOf(l))
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).Tag.Get("status") == "-" {
			continue
		}
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(hostile(r))
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(r.Int64() >> r.IntN(64))
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.SetUint(r.Uint64() >> r.IntN(64))
		}
	}
	return v.Interface().(Line)
}

// parse reads a rendered line back into a value of l's type: the
// inverse of Render, written from DETAILS' grammar, not from Render.
func parse(t *testing.T, l Line, line []byte) Line {
	t.Helper()
	s, ok := strings.CutPrefix(string(line), "[GNUPG:] "+l.Keyword())
	if !ok || !strings.HasSuffix(s, "\n") {
		t.Fatalf("%q: not a %s line", line, l.Keyword())
	}
	s = strings.TrimSuffix(s, "\n")
	v := reflect.New(reflect.TypeOf(l)).Elem()
	v.Set(reflect.ValueOf(l)) // keeps the keyword-choosing fields
	for i := 0; i < v.NumField(); i++ {
		sf := v.Type().Field(i)
		switch sf.Tag.Get("status") {
		case "-":
			continue
		case "omitempty":
			if s == "" {
				v.Field(i).SetZero()
				continue
			}
		}
		rest, ok := strings.CutPrefix(s, " ")
		if !ok {
			t.Fatalf("%q: field %s missing", line, sf.Name)
		}
		var tok string
		if sf.Type == textType {
			tok, s = rest, ""
		} else {
			tok, s, _ = strings.Cut(rest, " ")
			if s != "" || strings.HasSuffix(rest, " ") {
				s = " " + s
			}
		}
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(escape.UnStatus(tok))
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			n, err := strconv.ParseInt(tok, 10, 64)
			if err != nil {
				t.Fatalf("%q: field %s: %v", line, sf.Name, err)
			}
			f.SetInt(n)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			n, err := strconv.ParseUint(tok, 10, 64)
			if err != nil {
				t.Fatalf("%q: field %s: %v", line, sf.Name, err)
			}
			f.SetUint(n)
		}
	}
	if s != "" {
		t.Fatalf("%q: %q left over", line, s)
	}
	return v.Interface().(Line)
}

// TestEveryLineIsOneLine holds every keyword to the rule a forged
// GOODSIG would break: whatever its fields hold, a line is one line with
// no control byte, and it reads back to exactly those fields.
func TestEveryLineIsOneLine(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for _, l := range All {
		for range 3000 {
			in := fill(l, r)
			line := Render(in)
			if i := bytes.IndexByte(line, '\n'); i != len(line)-1 {
				t.Fatalf("%#v: %q is not one line", in, line)
			}
			for i, c := range line[:len(line)-1] {
				if c < 0x20 || c == 0x7f {
					t.Fatalf("%#v: %q: byte %#02x at %d", in, line, c, i)
				}
			}
			if got := parse(t, l, line); !reflect.DeepEqual(got, in) {
				t.Fatalf("%q reads back as %#v, not %#v", line, got, in)
			}
		}
	}
}

// TestDeclarations checks what Render relies on: field kinds it knows,
// Text and omitempty fields last, every keyword once.
func TestDeclarations(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range All {
		k := l.Keyword()
		if seen[k] {
			t.Errorf("keyword %s declared twice", k)
		}
		seen[k] = true
		typ := reflect.TypeOf(l)
		tail := false
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if f.Tag.Get("status") == "-" {
				continue
			}
			switch f.Type.Kind() {
			case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
				reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			default:
				t.Errorf("%s.%s: kind %v", typ.Name(), f.Name, f.Type.Kind())
			}
			last := f.Type == textType || f.Tag.Get("status") == "omitempty"
			if tail && !last {
				t.Errorf("%s.%s follows a Text or omitempty field", typ.Name(), f.Name)
			}
			if f.Type == textType && i != typ.NumField()-1 {
				t.Errorf("%s.%s: Text is not the last field", typ.Name(), f.Name)
			}
			tail = tail || last
		}
	}
}

func TestAsGPG(t *testing.T) {
	for _, c := range []struct {
		l    Line
		want string
	}{
		// gpg 2.2.40 for a user ID that tries to add lines.
		{GoodSig{"DE913E7D8AAACB69", "Mallory 100% <m@x>\n[GNUPG:] GOODSIG 0123 Alice\x1b[31m"},
			"[GNUPG:] GOODSIG DE913E7D8AAACB69 Mallory 100%25 <m@x>%0A[GNUPG:] GOODSIG 0123 Alice%1B[31m\n"},
		{NewSig{escape.Printable("signer\x00nul\nGOODSIG x%")}, "[GNUPG:] NEWSIG signer\\0nul\\nGOODSIG%20x%25\n"},
		{NewSig{}, "[GNUPG:] NEWSIG\n"},
		{Plaintext{"75", 1796163159, "a\nb%c d"}, "[GNUPG:] PLAINTEXT 75 1796163159 a%0Ab%25c%20d\n"},
		{Plaintext{"62", 0, ""}, "[GNUPG:] PLAINTEXT 62 0 \n"},
		{BeginEncryption{2, 9, 0}, "[GNUPG:] BEGIN_ENCRYPTION 2 9\n"},
		{Trust{Level: TrustUltimate, Model: "pgp"}, "[GNUPG:] TRUST_ULTIMATE 0 pgp\n"},
		{InvRecp{10, "Bob Example"}, "[GNUPG:] INV_RECP 10 Bob Example\n"},
	} {
		if got := string(Render(c.l)); got != c.want {
			t.Errorf("%#v:\n got %q\nwant %q", c.l, got, c.want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Write(GoodMDC{})
	if w.Failed() {
		t.Fatal("failed before a FAILURE")
	}
	w.Write(Failure{"decrypt", 1})
	if !w.Failed() || b.String() != "[GNUPG:] GOODMDC\n[GNUPG:] FAILURE decrypt 1\n" {
		t.Fatalf("%q, failed %v", b.String(), w.Failed())
	}
	var nilW *Writer
	nilW.Write(GoodMDC{}) // writes nothing, does not panic
}

func FuzzRender(f *testing.F) {
	f.Add(0, "\n[GNUPG:] GOODSIG x", int64(1))
	f.Fuzz(func(t *testing.T, which int, s string, n int64) {
		l := All[uint(which)%uint(len(All))]
		v := reflect.New(reflect.TypeOf(l)).Elem()
		v.Set(reflect.ValueOf(l))
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).Tag.Get("status") == "-" {
				continue
			}
			switch f := v.Field(i); f.Kind() {
			case reflect.String:
				f.SetString(s)
			case reflect.Int, reflect.Int64:
				f.SetInt(n)
			}
		}
		in := v.Interface().(Line)
		line := Render(in)
		if bytes.IndexByte(line, '\n') != len(line)-1 {
			t.Fatalf("%q", line)
		}
		if got := parse(t, l, line); !reflect.DeepEqual(got, in) {
			t.Fatalf("%q reads back as %#v", line, got)
		}
	})
}
