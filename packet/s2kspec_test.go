package packet

import (
	"bytes"
	"errors"
	"testing"
)

func TestParseS2K(t *testing.T) {
	salt := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	argonSalt := bytes.Repeat([]byte{9}, 16)
	for _, c := range []struct {
		name string
		b    []byte
		want S2KSpec
		err  error // nil, ErrTruncated, or an *UnsupportedError (any)
	}{
		{"simple", []byte{0, 8, 0xaa}, S2KSpec{Type: 0, Hash: HashSHA256, Len: 2}, nil},
		{"salted", append([]byte{1, 2}, salt...), S2KSpec{Type: 1, Hash: HashSHA1, Salt: salt, Len: 10}, nil},
		{"iterated", append(append([]byte{3, 8}, salt...), 96, 0xaa), S2KSpec{Type: 3, Hash: HashSHA256, Salt: salt, Count: 96, Len: 11}, nil},
		{"argon2", append(append([]byte{4}, argonSalt...), 1, 4, 21), S2KSpec{Type: 4, Salt: argonSalt, Passes: 1, Parallelism: 4, MemoryExp: 21, Len: 20}, nil},
		{"gnu-dummy", []byte{101, 2, 'G', 'N', 'U', 1}, S2KSpec{Type: 101, Hash: HashSHA1, GNU: 1, Len: 6}, nil},
		{"empty", nil, S2KSpec{}, ErrTruncated},
		{"no hash", []byte{3}, S2KSpec{Type: 3, Len: 1}, ErrTruncated},
		{"salt cut", []byte{3, 8, 1, 2, 3}, S2KSpec{Type: 3, Hash: HashSHA256, Salt: salt[:3], Len: 5}, ErrTruncated},
		{"no count", append([]byte{3, 8}, salt...), S2KSpec{Type: 3, Hash: HashSHA256, Salt: salt, Len: 10}, ErrTruncated},
		{"argon2 cut", append([]byte{4}, argonSalt[:5]...), S2KSpec{Type: 4, Salt: argonSalt[:5], Len: 6}, ErrTruncated},
		{"unknown type", []byte{7, 8, 0}, S2KSpec{Type: 7, Hash: HashSHA256, Len: 2}, &UnsupportedError{}},
		{"101 without GNU", []byte{101, 2, 'X'}, S2KSpec{Type: 101, Hash: HashSHA1, Len: 2}, &UnsupportedError{}},
	} {
		got, err := ParseS2K(c.b)
		var ue *UnsupportedError
		switch {
		case c.err == nil && err != nil,
			c.err == ErrTruncated && !errors.Is(err, ErrTruncated),
			c.err != nil && c.err != ErrTruncated && !errors.As(err, &ue):
			t.Errorf("%s: error %v, want %v", c.name, err, c.err)
		}
		if got.Type != c.want.Type || got.Hash != c.want.Hash || !bytes.Equal(got.Salt, c.want.Salt) || got.Count != c.want.Count ||
			got.Passes != c.want.Passes || got.Parallelism != c.want.Parallelism || got.MemoryExp != c.want.MemoryExp || got.GNU != c.want.GNU || got.Len != c.want.Len {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
	if o := (S2KSpec{Type: 3, Count: 96, Len: 11}).Octets(); o != 65536 {
		t.Errorf("count 96: %d octets, want 65536", o)
	}
	for _, c := range []struct {
		passes, memExp byte
		costly         bool
	}{{1, 21, false}, {16, 21, false}, {17, 1, true}, {1, 22, true}} {
		if got := (S2KSpec{Type: 4, Passes: c.passes, MemoryExp: c.memExp, Len: 20}).TooCostly(); got != c.costly {
			t.Errorf("%d passes over 2^%d KiB: TooCostly %v", c.passes, c.memExp, got)
		}
	}
}
