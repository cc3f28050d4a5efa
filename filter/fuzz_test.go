package filter

import (
	"bytes"
	"crypto/rand"
	"io"
	"testing"

	"github.com/pgpstream/pgpstream/packet"
)

// fuzzSKESK is a fixed session-key packet; the fuzzer mutates only what
// follows it, so every input costs one cheap S2K, never a hostile count.
func fuzzMessage(f *testing.F, inner []byte, cipher packet.CipherAlgo) (skesk, rest []byte) {
	key := make([]byte, cipher.KeySize())
	rand.Read(key)
	var s bytes.Buffer
	if err := packet.WriteSKESK(&s, cipher, key, []byte("pw"), false, 1024); err != nil {
		f.Fatal(err)
	}
	var out bytes.Buffer
	w, err := NewMDCWriter(packet.NewPartialWriter(&out, packet.TagSEIPD, 512), cipher, key)
	if err != nil {
		f.Fatal(err)
	}
	w.Write(inner)
	w.Close()
	return s.Bytes(), out.Bytes()
}

// FuzzDecryptSEIPD mutates the encrypted packet behind a known session
// key: Decrypt must never panic or hang, and whenever it succeeds the
// plaintext must be the original (the MDC makes any other success a
// forgery).
func FuzzDecryptSEIPD(f *testing.F) {
	want := bytes.Repeat([]byte("pgpstream "), 300)
	skesk, seipd := fuzzMessage(f, literalPacket(want), packet.CipherAES128)
	f.Add(seipd)
	f.Add(seipd[:len(seipd)-1])
	_, comp := fuzzMessage(f, nil, packet.CipherAES128)
	f.Add(comp)
	f.Fuzz(func(t *testing.T, rest []byte) {
		msg := append(bytes.Clone(skesk), rest...)
		var out bytes.Buffer
		_, err := Decrypt(bytes.NewReader(msg), &out, DecryptOptions{Keys: passKeys{[]byte("pw")}, MaxDecompressed: 1 << 20})
		if err == nil && !bytes.Equal(out.Bytes(), want) && !bytes.Equal(rest, comp) {
			// Only the untouched seeds decrypt.
			if !bytes.Equal(rest, seipd) {
				t.Fatalf("a modified message decrypted to %d bytes", out.Len())
			}
		}
	})
}

// FuzzDecryptAny feeds arbitrary input to Decrypt, armored or not.
func FuzzDecryptAny(f *testing.F) {
	skesk, seipd := fuzzMessage(f, literalPacket([]byte("x")), packet.CipherAES256)
	f.Add(append(skesk, seipd...))
	f.Add([]byte("-----BEGIN PGP MESSAGE-----\n\nwyQ=\n-----END PGP MESSAGE-----\n"))
	f.Add(literalPacket([]byte("plain")))
	f.Fuzz(func(t *testing.T, in []byte) {
		Decrypt(bytes.NewReader(in), io.Discard, DecryptOptions{Keys: passKeys{[]byte("pw")}, MaxDecompressed: 1 << 20})
	})
}

// FuzzDecryptAEAD mutates the chunk stream of SEIPD v2 and tag 20 packets
// behind a known key (64-byte chunks, so a short input spans many): the
// decoder must never panic or hang, and it may succeed only on the
// unmodified stream.
func FuzzDecryptAEAD(f *testing.F) {
	want := bytes.Repeat([]byte("chunked "), 40)
	seals := map[uint8][]byte{}
	for i, c := range aeadCases {
		s := testSuite(f, c.format, c.mode, 0)
		seals[uint8(i)] = sealRaw(f, s, want, 1, 100)
		f.Add(uint8(i), seals[uint8(i)], uint8(1))
		f.Add(uint8(i), seals[uint8(i)][:len(seals[uint8(i)])-16], uint8(2))
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte, threads uint8) {
		i := int(which) % len(aeadCases)
		c := aeadCases[i]
		s := testSuite(t, c.format, c.mode, 0)
		got, err := openRaw(s, body, int(threads%3), 1+int(threads)*7)
		if err == nil && !bytes.Equal(body, seals[uint8(i)]) {
			t.Fatalf("%v %v: a modified chunk stream decrypted (%d bytes)", c.format, c.mode, len(got))
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("%v %v: the stream decrypted to other bytes", c.format, c.mode)
		}
	})
}

// FuzzMessages feeds arbitrary input to Messages, which splits it into
// messages: it must never panic or hang, every message it reads must
// take some of the input, and an input Decrypt accepts must read as
// exactly that one message.
func FuzzMessages(f *testing.F) {
	skesk, seipd := fuzzMessage(f, literalPacket([]byte("x")), packet.CipherAES128)
	enc := append(skesk, seipd...)
	lit := literalPacket([]byte("plain"))
	clear := "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\ntext\n-----BEGIN PGP SIGNATURE-----\n\nwyQ=\n-----END PGP SIGNATURE-----\n"
	f.Add(append(bytes.Clone(enc), enc...))
	f.Add(append(bytes.Clone(lit), lit...))
	f.Add([]byte(clear + "\n" + clear + "trailing text\n"))
	f.Add([]byte("-----BEGIN PGP MESSAGE-----\n\nyxRiAAAAAABIZWxsbywgd29ybGQhCg==\n-----END PGP MESSAGE-----\ntext\n-----BEGIN PGP MESSAGE-----\n\nyxRiAAAAAABIZWxsbywgd29ybGQhCg==\n-----END PGP MESSAGE-----\n"))
	opt := DecryptOptions{Keys: passKeys{[]byte("pw")}, MaxDecompressed: 1 << 20}
	f.Fuzz(func(t *testing.T, in []byte) {
		var one bytes.Buffer
		_, derr := Decrypt(bytes.NewReader(in), &one, opt)
		m := NewMessages(bytes.NewReader(in))
		defer m.Close()
		var all bytes.Buffer
		n := 0
		for {
			if n > len(in) {
				t.Fatalf("%d messages from %d bytes", n, len(in))
			}
			if n > 0 {
				if more, err := m.More(); err != nil || !more {
					if derr == nil && (n != 1 || more || err != nil) {
						t.Fatalf("Decrypt read one message, Messages %d and then %v, %v", n, more, err)
					}
					break
				}
			}
			if _, err := m.Next(&all, opt); err != nil {
				if derr == nil {
					t.Fatalf("Decrypt read the message, Next failed: %v", err)
				}
				break
			}
			n++
		}
		if derr == nil && !bytes.Equal(one.Bytes(), all.Bytes()) {
			t.Fatalf("Decrypt wrote %q, Messages %q", one.Bytes(), all.Bytes())
		}
	})
}
