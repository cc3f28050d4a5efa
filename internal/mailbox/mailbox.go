// Package mailbox finds the e-mail address in a user ID as gpg does
// (its mailbox_from_userid), which decides what a signer's user ID
// subpacket names and which user IDs share an address for TOFU.
package mailbox

import "strings"

// FromUserID is gpg's mailbox_from_userid: the part between '<' and '>'
// when it looks like an address, or the whole string when it is one,
// with A-Z lowercased (bytes from 0x80 up are kept as they are, so an
// address is the same string gpg's tofu.db records).
func FromUserID(uid string) (string, bool) {
	addr := uid
	if i := strings.IndexByte(uid, '<'); i >= 0 {
		j := strings.IndexByte(uid[i+1:], '>')
		if j <= 0 {
			return "", false
		}
		addr = uid[i+1 : i+1+j]
	} else if !plain(uid) {
		return "", false
	}
	at := strings.IndexByte(addr, '@')
	if strings.Count(addr, "@") != 1 || at == 0 || strings.HasSuffix(addr, "@") ||
		strings.HasSuffix(addr, ".") || strings.Contains(addr[at:], "..") {
		return "", false
	}
	for i := 0; i < len(addr); i++ {
		if addr[i] <= ' ' { // a space or a control byte (gpg's string_has_ctrl_or_space)
			return "", false
		}
	}
	return ASCIILower(addr), true
}

// ASCIILower is s with A-Z lowercased and every other byte kept, as
// gpg's ascii_strlwr: what gpg compares addresses and user IDs by.
func ASCIILower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// plain is gpg's is_valid_mailbox for a user ID that is only an
// address: one '@', not first or last, no ".." after it, and only the
// characters RFC 5322's dot-atom allows (bytes from 0x80 up pass).
func plain(s string) bool {
	at := strings.IndexByte(s, '@')
	if at <= 0 || at == len(s)-1 || strings.Count(s, "@") != 1 || strings.Contains(s[at:], "..") ||
		strings.HasSuffix(s, ".") {
		return false
	}
	const alnum = "0123456789_-.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80 || c == '@':
		case i < at && (strings.IndexByte(alnum, c) >= 0 || strings.IndexByte("!#$%&'*+/=?^`{|}~", c) >= 0):
		case i > at && strings.IndexByte(alnum, c) >= 0:
		default:
			return false
		}
	}
	return true
}
