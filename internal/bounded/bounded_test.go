package bounded

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	e.read += int64(len(p))
	return len(p), nil
}

func TestReadAllAtTheLimit(t *testing.T) {
	const limit = 100 << 10
	for _, n := range []int{0, 1, limit - 1, limit, limit + 1, 3 * limit} {
		data := bytes.Repeat([]byte{'a'}, n)
		for _, step := range []int{1, 512, 64<<10 - 1, 1 << 20} {
			got, err := ReadAll(&stepReader{data, step}, "in", limit)
			switch {
			case n > limit:
				var tl *TooLargeError
				if !errors.As(err, &tl) || tl.Name != "in" || tl.Limit != limit || !errors.Is(err, ErrTooLarge) {
					t.Fatalf("%d bytes in steps of %d: got %v, want too large", n, step, err)
				}
			case err != nil || !bytes.Equal(got, data):
				t.Fatalf("%d bytes in steps of %d: got %d bytes, %v", n, step, len(got), err)
			}
		}
	}
}

type stepReader struct {
	data []byte
	step int
}

func (s *stepReader) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), s.step)], s.data)
	s.data = s.data[n:]
	return n, nil
}

func TestReadAllStopsAfterTheLimit(t *testing.T) {
	e := &endless{}
	_, err := ReadAll(e, "yes", 1<<20)
	if !errors.Is(err, ErrTooLarge) || err.Error() != "yes: larger than 1 MiB" {
		t.Fatalf("got %v", err)
	}
	if e.read != 1<<20+1 {
		t.Fatalf("read %d bytes of an endless input, want the limit and one", e.read)
	}
}

func TestReadFileRefusesBySize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sparse")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(8 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadFile(path, KeyData); err == nil || err.Error() != path+": larger than 256 MiB" {
		t.Fatalf("got %v", err)
	}
	os.Truncate(path, 1000)
	if b, err := ReadFile(path, 1000); err != nil || len(b) != 1000 {
		t.Fatalf("a file at its limit: %d bytes, %v", len(b), err)
	}
}

func TestReadLines(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 1, ""},
		{"pw", 1, "pw"},
		{"pw\n", 1, "pw\n"},
		{"pw\r\nmore\nlines\n", 1, "pw\r\n"},
		{"old\nnew\nrest", 2, "old\nnew\n"},
		{"old\nnew", 2, "old\nnew"},
	} {
		path := filepath.Join(dir, "pw")
		os.WriteFile(path, []byte(c.in), 0o600)
		got, err := ReadLines(path, c.n, 16)
		if err != nil || string(got) != c.want {
			t.Errorf("%q, %d lines: got %q, %v; want %q", c.in, c.n, got, err, c.want)
		}
	}
	path := filepath.Join(dir, "long")
	os.WriteFile(path, append(bytes.Repeat([]byte{'a'}, 17), '\n'), 0o600)
	if _, err := ReadLines(path, 1, 16); err == nil || err.Error() != path+": a line longer than 16 bytes" {
		t.Fatalf("got %v", err)
	}
	os.WriteFile(path, append(bytes.Repeat([]byte{'a'}, 15), "\nand a long rest of the file\n"...), 0o600)
	if got, err := ReadLines(path, 1, 16); err != nil || len(got) != 16 {
		t.Fatalf("a line at the limit: %q, %v", got, err)
	}
}
