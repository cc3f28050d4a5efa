// Package status writes GnuPG's machine-readable status lines
// ("[GNUPG:] KEYWORD ARGS", GnuPG's doc/DETAILS), the stream that git,
// GPGME, python-gnupg and Emacs believe: git decides a commit's %G? from
// GOODSIG and VALIDSIG. A line that a user ID could break in two would
// let a key forge a good signature (gpg's CVE-2018-12020 was one such
// line), so every line is a value of a type declared here, one type per
// keyword with its fields in gpg's order, and one renderer (Render)
// writes them all: each string field through package escape, each
// number in decimal. No byte below 0x20 but the final newline can leave
// it, whatever a field holds.
//
// Field types, by how gpg writes them:
//
//   - string: one field; '%', spaces and control bytes are %XX-escaped.
//   - Text: free text that may hold spaces (a user ID, a recipient as
//     given), always the last field; '%' and control bytes escaped.
//   - integer kinds: decimal.
//
// A field tagged `status:"omitempty"` is left out, with its space, when
// it is zero; such fields come last. One tagged `status:"-"` is not
// written: it chooses the keyword.
package status

import (
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/pgpstream/pgpstream/internal/escape"
)

// Line is one status line: a keyword and its fields.
type Line interface {
	Keyword() string
}

// Text is free text at the end of a line, spaces kept.
type Text string

// Render is l as it goes on the stream, newline included.
func Render(l Line) []byte {
	var b strings.Builder
	b.WriteString("[GNUPG:] ")
	b.WriteString(l.Keyword())
	v := reflect.ValueOf(l)
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f, sf := v.Field(i), t.Field(i)
		switch sf.Tag.Get("status") {
		case "-":
			continue // it chooses the keyword (Trust's level)
		case "omitempty":
			if f.IsZero() {
				continue
			}
		}
		b.WriteByte(' ')
		b.WriteString(field(f))
	}
	b.WriteByte('\n')
	return []byte(b.String())
}

var textType = reflect.TypeFor[Text]()

// field renders one field; the types a line may hold are checked for
// every keyword by the package's tests.
func field(f reflect.Value) string {
	switch f.Kind() {
	case reflect.String:
		if f.Type() == textType {
			return escape.StatusText(f.String())
		}
		return escape.StatusField(f.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(f.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(f.Uint(), 10)
	}
	panic(fmt.Sprintf("status: field of kind %v", f.Kind())) // a type declared wrong here
}

// Writer writes status lines to one stream. A nil *Writer writes
// nothing, so callers need not check whether --status-fd was given.
type Writer struct {
	mu     sync.Mutex
	w      io.Writer
	failed bool // a FAILURE line was written
}

// NewWriter writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes l in a single Write, so a reader on a pipe sees whole
// lines while the progress goroutine writes too. A failed write is for
// w to record (the command's watch on the stream does).
func (s *Writer) Write(l Line) {
	if s == nil {
		return
	}
	b := Render(l)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := l.(Failure); ok {
		s.failed = true
	}
	s.w.Write(b)
}

// Failed reports whether a FAILURE line was written.
func (s *Writer) Failed() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}
