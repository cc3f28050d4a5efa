package agent

import (
	"bufio"
	"bytes"
	"net"
	"testing"
)

func FuzzParseSexp(f *testing.F) {
	f.Add([]byte("(7:sig-val(5:eddsa(1:r2:ab)(1:s1:c)))"))
	f.Add([]byte("(5:value3:abc)"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSexp(b)
		if err == nil {
			s.Find("value")
			s.Value("s")
		}
	})
}

// FuzzResponse feeds the agent's side of a connection to readResponse:
// any bytes end in data or an error, never a panic or a hang.
func FuzzResponse(f *testing.F) {
	f.Add([]byte("S KEYINFO x\nD a%25b\nOK\n"))
	f.Add([]byte("INQUIRE CIPHERTEXT\nERR 67108881 No secret key <gpg-agent>\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		client, server := net.Pipe()
		defer client.Close()
		defer server.Close()
		// Answers go nowhere: the reader is the fuzzer's bytes.
		c := &Conn{c: nopWriter{client}, r: bufio.NewReader(bytes.NewReader(b))}
		c.Inquire = func(string, string) ([]byte, error) { return []byte("x"), nil }
		c.readResponse()
	})
}

type nopWriter struct{ net.Conn }

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
