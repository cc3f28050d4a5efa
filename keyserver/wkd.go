package keyserver

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// zbase32Alphabet is z-base-32's (RFC 6189 section 5.1.6, as the WKD
// draft names it).
const zbase32Alphabet = "ybndrfg8ejkmcpqxot1uwisza345h769"

// zbase32 encodes b five bits at a time, most significant first, without
// padding.
func zbase32(b []byte) string {
	var sb strings.Builder
	var acc uint32
	bits := 0
	for _, c := range b {
		acc = acc<<8 | uint32(c)
		bits += 8
		for bits >= 5 {
			bits -= 5
			sb.WriteByte(zbase32Alphabet[(acc>>bits)&31])
		}
	}
	if bits > 0 {
		sb.WriteByte(zbase32Alphabet[(acc<<(5-bits))&31])
	}
	return sb.String()
}

// WKDHash is the hashed local part of a WKD URL: z-base-32 of the SHA-1
// of the local part mapped to lower case (draft-koch-openpgp-webkey-service
// section 3.1). Only ASCII letters are folded, as the draft specifies.
func WKDHash(local string) string {
	sum := sha1.Sum([]byte(asciiLower(local)))
	return zbase32(sum[:])
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// splitAddress returns the local part and the lowercased domain of an
// address, with or without angle brackets.
func splitAddress(email string) (local, domain string, err error) {
	e := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(email), "<"), ">")
	at := strings.LastIndexByte(e, '@')
	if at <= 0 || at == len(e)-1 || strings.ContainsAny(e, " /\\?#") {
		return "", "", fmt.Errorf("wkd: %q is not an email address", email)
	}
	return e[:at], asciiLower(e[at+1:]), nil
}

// WKDURLs returns the advanced and the direct URL of email's key
// (section 3.1): the advanced method on the openpgpkey subdomain first,
// the direct method on the domain itself second.
func WKDURLs(email string) (advanced, direct string, err error) {
	local, domain, err := splitAddress(email)
	if err != nil {
		return "", "", err
	}
	h := WKDHash(local)
	q := "?l=" + url.QueryEscape(local)
	advanced = "https://openpgpkey." + domain + "/.well-known/openpgpkey/" + domain + "/hu/" + h + q
	direct = "https://" + domain + "/.well-known/openpgpkey/hu/" + h + q
	return advanced, direct, nil
}

// WKD looks keys up in Web Key Directories.
type WKD struct{ t *transport }

// NewWKD returns a WKD client; opt.CACertFile replaces the system roots.
func NewWKD(opt Options) (*WKD, error) {
	t, err := newTransport(opt)
	if err != nil {
		return nil, err
	}
	return &WKD{t: t}, nil
}

// Lookup fetches email's key, advanced method first, then direct, and
// returns what the directory served. A directory may serve anything: the
// import keeps only the keys with a user ID for email, and of them only
// those user IDs (keyring.ImportOptions.Address, with AddressTerm).
// url is the address that served it, which gpg records as the key's
// origin.
func (w *WKD) Lookup(ctx context.Context, email string) (data []byte, url string, err error) {
	advanced, direct, err := WKDURLs(email)
	if err != nil {
		return nil, "", err
	}
	var errs [2]error
	for i, u := range []string{advanced, direct} {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			return nil, "", err
		}
		body, err := w.t.do(ctx, req)
		if err != nil {
			errs[i] = err
			continue
		}
		return body, u, nil
	}
	if errors.Is(errs[0], ErrNotFound) && errors.Is(errs[1], ErrNotFound) {
		return nil, "", fmt.Errorf("wkd: %w for %s", ErrNotFound, email)
	}
	return nil, "", &lookupError{email, errs}
}

// lookupError is a WKD lookup that failed other than by "not found":
// both methods' errors, on one line.
type lookupError struct {
	email string
	errs  [2]error // advanced, direct
}

func (e *lookupError) Error() string {
	return fmt.Sprintf("wkd: %s: advanced method: %v; direct method: %v", e.email, e.errs[0], e.errs[1])
}

func (e *lookupError) Unwrap() []error { return e.errs[:] }

// AddressTerm is email as a directory's keys are kept by
// (keyring.ImportOptions.Address): the local part in ASCII lower case,
// @, the domain in lower case. A directory may serve anything, and a key
// must not gain names its owner's domain did not vouch for.
func AddressTerm(email string) (string, error) {
	local, domain, err := splitAddress(email)
	if err != nil {
		return "", err
	}
	return asciiLower(local) + "@" + domain, nil
}
