package packet

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

func TestOnePassSignature(t *testing.T) {
	// gpg 2.2: one-pass signature, binary, SHA256, EdDSA, key ID, last.
	v3, _ := hex.DecodeString("0300081626b4ab37b098ae9b01")
	o, err := ParseOnePassSignature(v3, 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.Version != 3 || o.SigType != SigBinary || o.Hash != HashSHA256 || o.PubKeyAlgo != 22 || o.KeyID != 0x26b4ab37b098ae9b || !o.Last {
		t.Fatalf("%+v", o)
	}
	if !bytes.Equal(o.Append(nil), v3) {
		t.Fatal("v3 does not round-trip")
	}
	v6 := &OnePassSignature{Version: 6, SigType: SigText, Hash: HashSHA512, PubKeyAlgo: 27,
		Salt: bytes.Repeat([]byte{1}, 32), Fingerprint: bytes.Repeat([]byte{0xab}, 32)}
	b := v6.Append(nil)
	o, err = ParseOnePassSignature(b, 0)
	if err != nil || !bytes.Equal(o.Append(nil), b) || o.KeyID != 0xabababababababab || o.Last {
		t.Fatalf("v6: %+v %v", o, err)
	}
	for _, m := range [][]byte{v3, b} {
		for n := 0; n < len(m); n++ {
			if _, err := ParseOnePassSignature(m[:n], 0); !errors.Is(err, ErrTruncated) {
				t.Fatalf("%d of %d bytes: %v", n, len(m), err)
			}
		}
		if _, err := ParseOnePassSignature(append(m[:len(m):len(m)], 0), 0); err == nil {
			t.Fatal("a trailing byte parsed")
		}
	}
	bad := bytes.Clone(b)
	bad[4] = 16 // a SHA512 salt is 32 bytes
	if _, err := ParseOnePassSignature(bad, 0); err == nil {
		t.Fatal("a wrong salt length parsed")
	}
	var ue *UnsupportedError
	if _, err := ParseOnePassSignature([]byte{5, 0, 8, 22}, 0); !errors.As(err, &ue) {
		t.Fatalf("version 5: %v", err)
	}
}

func FuzzOnePassSignature(f *testing.F) {
	v3, _ := hex.DecodeString("0300081626b4ab37b098ae9b01")
	f.Add(v3)
	f.Add((&OnePassSignature{Version: 6, Hash: HashSHA256, Salt: make([]byte, 16), Fingerprint: make([]byte, 32)}).Append(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := ParseOnePassSignature(b, 0)
		if err == nil && !bytes.Equal(o.Append(nil)[:len(b)-1], b[:len(b)-1]) {
			t.Fatal("parsed packet does not re-encode to its input")
		}
	})
}
