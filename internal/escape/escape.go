// Package escape renders bytes that a key, a message or a server
// controls for each channel pgpstream writes them to, by the rules GnuPG
// 2.2 applies on the same channel, so that no user ID, file name,
// notation or keyserver record can add a line, a field or a record, or
// send a control sequence to a terminal.
//
// Four channels, four rules (measured against gpg 2.2.40 with user IDs
// holding every byte value):
//
//   - Status lines (--status-fd), free text at the end of a line such as
//     the user ID after GOODSIG: '%', every byte below 0x20 and 0x7f as
//     %XX; spaces and bytes from 0x80 up as they are (gpg's
//     write_status_text_and_buffer). StatusText.
//   - Status lines, one space-free field such as PLAINTEXT's file name:
//     the same and the space too. StatusField.
//   - --with-colons fields: control bytes as C escapes (\n, \r, \f, \v,
//     \b, \0, else \xNN), ':' as \x3a and '\' as \x5c (gpg's
//     make_printable_string with ':' as the delimiter). Colon.
//   - --list-packets: PacketListing for user IDs and file names,
//     Delimited for subpacket text, as gpg's listing shows them.
//   - Human text (listings, messages on standard error, prompts): control
//     bytes as the same C escapes and bytes that are not UTF-8 as \xNN, so
//     a terminal is never sent a control sequence. Human.
//
// Every rule maps each input byte to output with no byte below 0x20 and
// no 0x7f, so a rendered string is always part of one line. StatusText,
// StatusField and Colon are invertible (UnStatus, UnColon); Human leaves
// '\' as it is, as gpg does, so UnHuman inverts it only for text without
// a backslash.
package escape

import (
	"strings"
	"unicode/utf8"
)

const hexDigits = "0123456789ABCDEF"
const lowerHex = "0123456789abcdef"

// StatusText is s as free text on a status line: the last field, where
// spaces separate nothing.
func StatusText(s string) string { return percent(s, 0x1f) }

// StatusField is s as one field of a status line: no space passes.
func StatusField(s string) string { return percent(s, ' ') }

// percent escapes '%', 0x7f and every byte up to limit.
func percent(s string, limit byte) string {
	i := 0
	for i < len(s) && !needsPercent(s[i], limit) {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if needsPercent(c, limit) {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func needsPercent(c, limit byte) bool { return c <= limit || c == '%' || c == 0x7f }

// UnStatus reverses StatusText and StatusField. A '%' not followed by two
// hex digits stays as it is.
func UnStatus(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, ok := unhex(s[i+1], s[i+2]); ok {
				b.WriteByte(v)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Colon is s as a field of a --with-colons record.
func Colon(s string) string { return Delimited(s, ':') }

// Delimited is gpg's make_printable_string with a delimiter: control
// bytes as C escapes, the delimiter and '\' as \xNN. --list-packets
// shows notations, policy URLs and revocation reasons so, with ')' (the
// end of the subpacket's parenthesis) or '"' as the delimiter.
func Delimited(s string, delim byte) string {
	return printable(s, func(c byte) bool { return c == delim || c == '\\' }, false)
}

// PacketListing is how gpg's --list-packets shows a user ID or a literal
// packet's file name: ' ' to 'z' as they are, every other byte as \xNN.
func PacketListing(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= ' ' && c <= 'z' {
			b.WriteByte(c)
		} else {
			hexEscape(&b, c)
		}
	}
	return b.String()
}

// Human is s for people: a listing line, a message on standard error, a
// prompt. gpg's quotes around a user ID are the caller's.
func Human(s string) string { return printable(s, func(byte) bool { return false }, true) }

// printable C-escapes control bytes, 0x7f and the bytes delim names,
// and, with utf8Only, every byte that is not part of valid UTF-8 and the
// C1 controls (U+0080-U+009F, which some terminals obey as escapes: gpg
// lets them pass, pgpstream does not).
func printable(s string, delim func(byte) bool, utf8Only bool) string {
	clean := func(i int) (int, bool) { // the length of a clean run at i
		c := s[i]
		if c < 0x20 || c == 0x7f || delim(c) {
			return 0, false
		}
		if c < 0x80 || !utf8Only {
			return 1, true
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || (r >= 0x80 && r <= 0x9f) {
			return 0, false
		}
		return n, true
	}
	i := 0
	for i < len(s) {
		n, ok := clean(i)
		if !ok {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		if n, ok := clean(i); ok {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		if n := invalidRun(s, i, utf8Only); n > 1 {
			// A C1 control is two bytes of valid UTF-8: both escaped.
			for _, c := range []byte(s[i : i+n]) {
				hexEscape(&b, c)
			}
			i += n
			continue
		}
		cEscape(&b, s[i])
		i++
	}
	return b.String()
}

// invalidRun is how many bytes at i are escaped together: two for a C1
// control in UTF-8, else one.
func invalidRun(s string, i int, utf8Only bool) int {
	if !utf8Only || s[i] < 0x80 {
		return 1
	}
	if r, n := utf8.DecodeRuneInString(s[i:]); r >= 0x80 && r <= 0x9f {
		return n
	}
	return 1
}

func cEscape(b *strings.Builder, c byte) {
	switch c {
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\f':
		b.WriteString(`\f`)
	case '\v':
		b.WriteString(`\v`)
	case '\b':
		b.WriteString(`\b`)
	case 0:
		b.WriteString(`\0`)
	default:
		hexEscape(b, c)
	}
}

func hexEscape(b *strings.Builder, c byte) {
	b.WriteString(`\x`)
	b.WriteByte(lowerHex[c>>4])
	b.WriteByte(lowerHex[c&15])
}

// UnColon reverses Colon.
func UnColon(s string) string { return unC(s) }

// UnHuman reverses Human for text without a backslash of its own.
func UnHuman(s string) string { return unC(s) }

func unC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'b':
			b.WriteByte('\b')
		case '0':
			b.WriteByte(0)
		case 'x':
			if i+3 < len(s) {
				if v, ok := unhex(s[i+2], s[i+3]); ok {
					b.WriteByte(v)
					i += 3
					continue
				}
			}
			b.WriteByte('\\')
			continue
		default:
			b.WriteByte('\\')
			continue
		}
		i++
	}
	return b.String()
}

func unhex(a, b byte) (byte, bool) {
	x, ok1 := hexVal(a)
	y, ok2 := hexVal(b)
	return x<<4 | y, ok1 && ok2
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// Printable is gpg's make_printable_string without a delimiter: control
// bytes as C escapes, everything else as it is. gpg keeps a signature's
// signer's-user-ID subpacket in this form, so NEWSIG shows it so.
func Printable(s string) string { return printable(s, func(byte) bool { return false }, false) }

// Quoted is s in gpg's quotes for a message: "..." around Human(s).
func Quoted(s string) string { return `"` + Human(s) + `"` }
