package filter

import (
	"bytes"
	"testing"
)

func TestTextWriter(t *testing.T) {
	cases := map[string]string{
		"":                        "",
		"a\r\nb\r\n":              "a\nb\n",
		"a\rb":                    "a\rb",
		"a\r":                     "a\r",
		"\r\n\r\n":                "\n\n",
		"x\r\r\ny":                "x\r\ny",
		"no line endings":         "no line endings",
		"mixed\nunix\r\nand\rmac": "mixed\nunix\nand\rmac",
	}
	for in, want := range cases {
		// Every split point, so a CR at the end of a Write is covered.
		for cut := 0; cut <= len(in); cut++ {
			var out bytes.Buffer
			w := &textWriter{dst: &out}
			w.Write([]byte(in[:cut]))
			w.Write([]byte(in[cut:]))
			w.flush()
			if out.String() != want {
				t.Errorf("%q cut at %d: got %q, want %q", in, cut, out.String(), want)
			}
		}
	}
}
