package keyring

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrBadExpire is returned (wrapped) for an expiry gpg would not accept.
var ErrBadExpire = errors.New("not a valid expiration time")

// ParseExpire reads an expiry as gpg's --quick-gen-key and
// --quick-set-expire do and returns the moment the key expires, the zero
// time for never: "never", "none", "0" or "-" never expire; an ISO date
// ("2030-01-31", or "20300131T120000") is that moment (a date alone is
// its start, UTC); "seconds=N" is N seconds from now; N, Nd, Nw, Nm and
// Ny are days, weeks, months (30 days) and years (365 days) from now.
func ParseExpire(s string, now time.Time) (time.Time, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	bad := func() (time.Time, error) { return time.Time{}, fmt.Errorf("'%s' is %w", s, ErrBadExpire) }
	switch v {
	case "never", "none", "0", "-", "":
		return time.Time{}, nil
	}
	for _, layout := range []string{"2006-01-02", "20060102T150405", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, strings.ToUpper(v), time.UTC); err == nil {
			if !t.After(now) {
				return bad()
			}
			return t, nil
		}
	}
	if n, ok := strings.CutPrefix(v, "seconds="); ok {
		secs, err := strconv.ParseUint(n, 10, 32)
		if err != nil || secs == 0 {
			return bad()
		}
		return now.Add(time.Duration(secs) * time.Second), nil
	}
	unit := 1
	switch v[len(v)-1] {
	case 'd':
		v = v[:len(v)-1]
	case 'w':
		unit, v = 7, v[:len(v)-1]
	case 'm':
		unit, v = 30, v[:len(v)-1]
	case 'y':
		unit, v = 365, v[:len(v)-1]
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil {
		return bad()
	}
	days := n * uint64(unit)
	if days > 0xffffffff/86400 {
		return bad()
	}
	if days == 0 {
		return time.Time{}, nil
	}
	return now.Add(time.Duration(days) * 24 * time.Hour), nil
}

// Usage is what a new key or subkey may be used for.
type Usage struct {
	Sign, Encrypt, Certify, Auth bool
}

// ErrBadUsage is returned (wrapped) for a usage gpg would not accept, or
// one the algorithm cannot do (gpg's "Wrong key usage").
var ErrBadUsage = errors.New("wrong key usage")

// ParseUsage reads gpg's usage argument: "default" (or "-" or empty) for
// the algorithm's default, else a comma- or space-separated list of
// sign, encr (encrypt), cert, auth.
func ParseUsage(s string) (u Usage, isDefault bool, err error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "" || v == "-" || v == "default" {
		return Usage{}, true, nil
	}
	for _, w := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
		switch w {
		case "sign":
			u.Sign = true
		case "encr", "encrypt":
			u.Encrypt = true
		case "cert":
			u.Certify = true
		case "auth":
			u.Auth = true
		default:
			return Usage{}, false, fmt.Errorf("usage %q: %w (expected sign, encr, cert, auth or default)", s, ErrBadUsage)
		}
	}
	return u, false, nil
}
