package keyring

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// twoKeyRing is a home whose pubring.pgp holds two certificates, and the
// ring file's bytes with the second one's offset.
func twoKeyRing(t *testing.T) (string, []byte, int64) {
	t.Helper()
	r := openRing(t)
	importFile(t, r, filepath.Join(fixtures, "gpg-ed25519-pub.asc"))
	importFile(t, r, filepath.Join(fixtures, "gpg-rsa3072-pub.asc"))
	data, err := os.ReadFile(filepath.Join(r.Home(), pubringName))
	if err != nil {
		t.Fatal(err)
	}
	f := parseRing("", data)
	if f.damage != nil || len(f.starts) != 2 {
		t.Fatalf("the ring as written: %v, %d keys", f.damage, len(f.starts))
	}
	return r.Home(), data, f.starts[1]
}

func TestDamagedRingKeepsTheKeysBefore(t *testing.T) {
	home, data, second := twoKeyRing(t)
	for _, c := range []struct {
		name string
		data []byte
		at   int64 // where reading stops
		keys int
	}{
		{"cut in the second key", data[:len(data)-7], second, 1},
		{"cut in the first key", data[:second-7], 0, 0},
		{"bytes appended", append(bytes.Clone(data), "garbage\n"...), second, 1},
		{"a packet before the first key", append([]byte{0xc2, 0x01, 0x04}, data...), 0, 0},
	} {
		path := filepath.Join(home, pubringName)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := OpenWith(home, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		d := r.Damage()
		if len(d) != 1 || d[0].File != path || d[0].Offset != c.at || d[0].Keys != c.keys || !errors.Is(d[0], ErrDamaged) {
			t.Errorf("%s: damage %v, want at %d with %d keys before", c.name, d, c.at, c.keys)
		}
		if got := len(r.keys); got != c.keys {
			t.Errorf("%s: %d keys read, want %d", c.name, got, c.keys)
		}
	}
}

func TestDamagedRingIsRewrittenOnlyWithConsent(t *testing.T) {
	home, data, second := twoKeyRing(t)
	path := filepath.Join(home, pubringName)
	cut := data[:len(data)-7]
	if err := os.WriteFile(path, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := OpenWith(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Generate(GenOptions{UserID: "New <new@pgpstream.test>"})
	var d *Damage
	if !errors.As(err, &d) || d.Offset != second {
		t.Fatalf("a change to a damaged ring: %v, want it refused with the damage", err)
	}
	f, err := os.Open(filepath.Join(fixtures, "gpg-rsa3072-pub.asc"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := r.Import(f); !errors.Is(err, ErrDamaged) {
		t.Fatalf("an import that would rewrite it: %v", err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, cut) {
		t.Fatal("a refused change wrote the ring")
	}

	var told []Notice
	r, err = OpenWith(home, Options{RewriteDamaged: true, Notify: func(n Notice) { told = append(told, n) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Generate(GenOptions{UserID: "New <new@pgpstream.test>"}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path + ".damaged"); err != nil || !bytes.Equal(b, cut) {
		t.Fatalf("the damaged ring was not kept as it was: %v", err)
	}
	if want := (Notice{Kind: NoticeDamagedKept, File: path, Offset: second, Kept: path + ".damaged"}); len(told) != 1 || told[0] != want {
		t.Fatalf("told %+v, want one notice naming the copy, %+v", told, want)
	}
	r, err = OpenWith(home, Options{})
	if err != nil || len(r.Damage()) != 0 || len(r.keys) != 2 {
		t.Fatalf("after the rewrite: %v, damage %v, %d keys", err, r.Damage(), len(r.keys))
	}
}

func FuzzParseRing(f *testing.F) {
	f.Add([]byte{0xc6, 0x01, 0x04})
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rf := parseRing("ring", data)
		if len(rf.blocks) != len(rf.starts) {
			t.Fatalf("%d blocks, %d offsets", len(rf.blocks), len(rf.starts))
		}
		if d := rf.damage; d != nil && (d.Offset < 0 || d.Offset > int64(len(data)) || d.Keys != len(rf.blocks)) {
			t.Fatalf("damage %v with %d blocks of %d bytes", d, len(rf.blocks), len(data))
		}
		for i := 1; i < len(rf.starts); i++ {
			if rf.starts[i] <= rf.starts[i-1] {
				t.Fatalf("offsets %v", rf.starts)
			}
		}
	})
}
