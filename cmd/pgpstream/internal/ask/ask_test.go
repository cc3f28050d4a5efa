package ask

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
)

// oneByte reads one byte per call, as a pipe may hand them out.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }

// TestReadLine: a line ends at the newline and nothing after it is read
// (the message may follow on the same descriptor); a CR before the LF is
// dropped; the end of the input tells "no answer" from an empty one.
func TestReadLine(t *testing.T) {
	for _, tc := range []struct {
		in, line, rest string
		err            error
	}{
		{"yes\nMESSAGE", "yes", "MESSAGE", nil},
		{"yes\r\n", "yes", "", nil},
		{"\n", "", "", nil},
		{"last", "last", "", nil},
		{"", "", "", io.ErrUnexpectedEOF},
	} {
		r := strings.NewReader(tc.in)
		got, err := ReadLine(oneByte{r})
		if !errors.Is(err, tc.err) || string(got) != tc.line {
			t.Errorf("ReadLine(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.line, tc.err)
		}
		if rest, _ := io.ReadAll(r); string(rest) != tc.rest {
			t.Errorf("ReadLine(%q) left %q, want %q", tc.in, rest, tc.rest)
		}
	}
	long := strings.Repeat("x", 64<<10+10) + "\n"
	if got, _ := ReadLine(strings.NewReader(long)); len(got) != 64<<10 {
		t.Errorf("a long line gave %d bytes, want the 64 KiB bound", len(got))
	}
}

// TestCommandProtocol: a question on the command fd is its GET_ line,
// one line read, GOT_IT; the end of the command fd is ErrCommandEOF,
// which Bool takes as no.
func TestCommandProtocol(t *testing.T) {
	var st bytes.Buffer
	a := New(Config{Command: strings.NewReader("y\nnew.txt\n"), Status: status.NewWriter(&st)})
	ok, err := a.YesNo("openfile.overwrite.okay", "Overwrite?")
	if err != nil || !ok {
		t.Fatalf("YesNo = %v, %v; want yes", ok, err)
	}
	name, err := a.Line("openfile.askoutname", "Enter new filename:")
	if err != nil || name != "new.txt" {
		t.Fatalf("Line = %q, %v", name, err)
	}
	if ok, err := a.Bool("untrusted_key.override", "", ""); err != nil || ok {
		t.Fatalf("Bool at the end of the command fd = %v, %v; want no", ok, err)
	}
	if _, err := a.Command(status.GetLine{Key: "x"}); !errors.Is(err, ErrCommandEOF) {
		t.Fatalf("Command at the end = %v, want ErrCommandEOF", err)
	}
	want := "[GNUPG:] GET_BOOL openfile.overwrite.okay\n[GNUPG:] GOT_IT\n" +
		"[GNUPG:] GET_LINE openfile.askoutname\n[GNUPG:] GOT_IT\n" +
		"[GNUPG:] GET_BOOL untrusted_key.override\n[GNUPG:] GOT_IT\n" +
		"[GNUPG:] GET_LINE x\n"
	if st.String() != want {
		t.Errorf("status lines:\n%s\nwant:\n%s", st.String(), want)
	}
}

// TestYesAndBatch: --yes answers YesNo (not Bool), --batch says no, and
// neither reads the command fd.
func TestYesAndBatch(t *testing.T) {
	cmd := strings.NewReader("n\n")
	if ok, _ := New(Config{Yes: true, Command: cmd}).YesNo("k", "q"); !ok {
		t.Error("--yes did not answer yes")
	}
	if ok, _ := New(Config{Batch: true, Command: cmd}).YesNo("k", "q"); ok {
		t.Error("--batch answered yes")
	}
	if cmd.Len() != 2 {
		t.Error("the command fd was read")
	}
	if ok, _ := New(Config{Yes: true, Command: cmd}).Bool("k", "", ""); ok {
		t.Error("--yes answered Bool")
	}
}

// TestGiven: the given passphrase comes from its one source and is read
// once; a file's first line keeps a CR; --pinentry-mode cancel asks
// nothing when none is given.
func TestGiven(t *testing.T) {
	noAsker := func() (*Asker, error) { return nil, errors.New("asked") }
	if p, err := NewPassphrases(Given{Set: true, Value: "pw", Fd: -1}, noAsker).Get(false); err != nil || string(p) != "pw" {
		t.Errorf("--passphrase: %q, %v", p, err)
	}
	f := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(f, []byte("secret\r\nsecond\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, err := NewPassphrases(Given{File: f, Fd: -1}, noAsker).Get(false); err != nil || string(p) != "secret\r" {
		t.Errorf("--passphrase-file: %q, %v", p, err)
	}
	fd := strings.NewReader("fromfd\nDATA")
	opened := 0
	pp := NewPassphrases(Given{Fd: 5, OpenFd: func(option string, n int) (io.Reader, error) {
		opened++
		if option != "--passphrase-fd" || n != 5 {
			t.Errorf("opened %s %d", option, n)
		}
		return fd, nil
	}}, noAsker)
	for range 2 {
		if p, err := pp.Get(false); err != nil || string(p) != "fromfd" {
			t.Errorf("--passphrase-fd: %q, %v", p, err)
		}
	}
	if opened != 1 || fd.Len() != len("DATA") {
		t.Errorf("the descriptor was opened %d times, %d bytes left", opened, fd.Len())
	}
	a := New(Config{PinentryMode: "cancel"})
	if _, err := NewPassphrases(Given{Fd: -1}, func() (*Asker, error) { return a, nil }).Get(false); !errors.Is(err, ErrNoPassphrase) {
		t.Errorf("--pinentry-mode cancel: %v, want ErrNoPassphrase", err)
	}
}
