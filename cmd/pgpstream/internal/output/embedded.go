package output

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/hint"
	"github.com/pgpstream/pgpstream/internal/escape"
)

// Embedded is the output of --use-embedded-filename: the file the
// literal data packet names, opened when that packet is read (the
// Literal event comes before any of its data) through Open, so it
// is the same atomic file -o makes, named only when the run ends well.
// Until then the output it stands behind has nothing to write to.
type Embedded struct {
	cfg    *Config
	inName string
	proxy  *Output
	out    *Output // the file, once the name is known
	stream bool    // stream() came before the file was opened
	err    error   // why the name was refused or the file not opened
}

// NewEmbedded returns the output a decryption of the input file inName
// writes to and the opener its Literal event calls.
func NewEmbedded(cfg *Config, inName string) (*Output, *Embedded) {
	e := &Embedded{cfg: cfg, inName: inName}
	p := &Output{W: e, Name: "the embedded file name"}
	p.commit = func() error {
		if e.err != nil {
			return e.err
		}
		if e.out == nil {
			return errors.New("--use-embedded-filename: the message named no file (no literal data packet)")
		}
		return e.out.commit()
	}
	p.abort = func() {
		if e.out != nil {
			e.out.abort()
		}
	}
	p.released = func() bool { return e.out != nil && e.out.released() }
	p.stream = func() {
		if e.out != nil {
			e.out.stream()
		}
		e.stream = true
	}
	e.proxy = p
	return p, e
}

// Open opens the file name names. With several messages
// (--allow-multiple-messages) the first name is the output.
func (e *Embedded) Open(name string) {
	if e.out != nil || e.err != nil {
		return
	}
	if err := embeddedName(name); err != nil {
		e.err = err
		return
	}
	if SamePath(e.inName, name) {
		e.err = fmt.Errorf("--use-embedded-filename: the message names its own input file '%s'", name)
		return
	}
	out, err := Open(e.cfg, Target{Path: name}, true, 0o666)
	if err != nil {
		e.err = err
		return
	}
	if e.stream {
		out.stream()
	}
	e.out = out
	e.proxy.Name = out.Name
}

// Err is why the name was refused or the file not opened; nil when
// neither happened.
func (e *Embedded) Err() error { return e.err }

// Write writes to the file once it is open; before (no literal data
// packet yet) or after a refused name it fails with the reason.
func (e *Embedded) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	if e.out == nil {
		return 0, errors.New("--use-embedded-filename: data before the literal data packet named a file")
	}
	return e.out.W.Write(p)
}

// embeddedName refuses a literal data packet's file name that is not a
// plain file name in the current directory. gpg 2.2 writes whatever the
// packet says (utf8_to_native of it: "../evil" or "/home/u/.bashrc" too);
// pgpstream takes only a base name, since the name is chosen by whoever
// made the message. "_CONSOLE" is the for-your-eyes-only marker, which
// gpg does not save either.
func embeddedName(name string) error {
	refuse := func(why string) error {
		return hint.With(fmt.Errorf("--use-embedded-filename: refusing the message's file name '%s': %s", escape.Human(name), why),
			"name the output with -o FILE")
	}
	switch {
	case name == "":
		return refuse("it is empty")
	case name == "." || name == "..":
		return refuse("it is a directory")
	case strings.ContainsRune(name, '/'):
		return refuse("it is not a plain file name (it has a '/')")
	case name == "_CONSOLE":
		return refuse("the message is marked for your eyes only")
	}
	for _, r := range name {
		if r == 0 || unicode.IsControl(r) {
			return refuse("it has a control character")
		}
	}
	return nil
}
