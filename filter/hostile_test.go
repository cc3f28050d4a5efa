package filter

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"testing"

	"github.com/pgpstream/pgpstream/packet"
)

// encryptRaw encrypts an arbitrary packet stream as SEIPD v1 under the
// passphrase "pw", for tests that need a hostile plaintext behind a valid MDC.
func encryptRaw(t *testing.T, inner []byte) []byte {
	t.Helper()
	key := make([]byte, 16)
	rand.Read(key)
	var out bytes.Buffer
	if err := packet.WriteSKESK(&out, packet.CipherAES128, key, []byte("pw"), false, 1024); err != nil {
		t.Fatal(err)
	}
	w, err := NewMDCWriter(packet.NewPartialWriter(&out, packet.TagSEIPD, 512), packet.CipherAES128, key)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(inner)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func literalPacket(data []byte) []byte {
	body := packet.Literal{Format: 'b'}.Append(nil)
	body = append(body, data...)
	return append(packet.AppendHeader(nil, packet.TagLiteral, int64(len(body))), body...)
}

func compressedPacket(t *testing.T, inner []byte) []byte {
	var c bytes.Buffer
	c.WriteByte(byte(packet.CompressZLIB))
	zw, _ := NewCompressor(&c, packet.CompressZLIB, 9)
	zw.Write(inner)
	zw.Close()
	return append(packet.AppendHeader(nil, packet.TagCompressed, int64(c.Len())), c.Bytes()...)
}

func decryptPW(ct []byte, opt DecryptOptions) ([]byte, error) {
	opt.Keys = passKeys{[]byte("pw")}
	var out bytes.Buffer
	_, err := Decrypt(bytes.NewReader(ct), &out, opt)
	return out.Bytes(), err
}

func TestNestingLimit(t *testing.T) {
	inner := literalPacket([]byte("deep"))
	for depth := 1; depth <= MaxNesting+1; depth++ {
		inner = compressedPacket(t, inner)
		got, err := decryptPW(encryptRaw(t, inner), DecryptOptions{})
		// Inside SEIPD the plaintext is depth 1; each compressed layer adds one.
		if depth < MaxNesting {
			if err != nil || string(got) != "deep" {
				t.Fatalf("%d compressed layers: %q, %v", depth, got, err)
			}
		} else if !errors.Is(err, ErrMalformed) {
			t.Fatalf("%d compressed layers: got %v, want the generic malformed error", depth, err)
		}
	}
}

func TestDecompressionLimit(t *testing.T) {
	bomb := encryptRaw(t, compressedPacket(t, literalPacket(make([]byte, 64<<20))))
	t.Logf("64 MiB of zeros compress to a %d-byte message", len(bomb))
	_, err := decryptPW(bomb, DecryptOptions{MaxDecompressed: 1 << 20})
	if !errors.Is(err, ErrTooMuchOutput) {
		t.Fatalf("got %v, want ErrTooMuchOutput", err)
	}
	if got, err := decryptPW(bomb, DecryptOptions{}); err != nil || len(got) != 64<<20 {
		t.Fatalf("without a limit: %d bytes, %v", len(got), err)
	}
}

// TestNoOracle: whatever is wrong inside authenticated plaintext, the
// error is the same generic one.
func TestNoOracle(t *testing.T) {
	lit := literalPacket([]byte("hello"))
	cases := map[string][]byte{
		"unknown packet":     append(packet.AppendHeader(nil, 60, 3), 1, 2, 3),
		"two literals":       append(bytes.Clone(lit), lit...),
		"truncated literal":  lit[:len(lit)-2],
		"bad literal format": append(packet.AppendHeader(nil, packet.TagLiteral, 7), 'x', 0, 0, 0, 0, 0, 'a'),
		"garbage":            {0x01, 0x02, 0x03},
		"key packet":         append(packet.AppendHeader(nil, packet.TagPublicKey, 3), 4, 0, 0),
		"no literal":         {},
		"bad compression":    append(packet.AppendHeader(nil, packet.TagCompressed, 4), 2, 0xff, 0xff, 0xff),
	}
	for name, inner := range cases {
		_, err := decryptPW(encryptRaw(t, inner), DecryptOptions{})
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: got %q, want the generic %q", name, err, ErrMalformed)
		}
	}
}

var _ = io.EOF
