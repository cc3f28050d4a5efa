package inspect

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzListPackets feeds the listing and the report arbitrary input: they
// may fail, never panic or loop.
func FuzzListPackets(f *testing.F) {
	for _, name := range []string{"aead-1000.gpg", "cfb-mdc-1000.gpg", "sym-aead-1000.gpg", "signed-aead-1000.gpg", "key-pub.asc", "key-sec.asc"} {
		if b, err := os.ReadFile(filepath.Join(vectors, name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ListPackets(bytes.NewReader(b), ListOptions{Packet: func(p *Packet) { _ = p.Text() }, MaxDecompressed: 1 << 20})
		Inspect(bytes.NewReader(b), nil)
	})
}
