package keyserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// HKP's well-known ports (draft-shaw-openpgp-hkp section 7; hkps is HKP
// over TLS on the HTTPS port).
const (
	hkpPort  = "11371"
	hkpsPort = "443"
)

// HKP is a client of one HKP keyserver.
type HKP struct {
	base *url.URL // http or https, with the port made explicit
	name string   // the server as the user wrote it, for messages
	t    *transport
}

// ParseServer reads a keyserver URL as gpg does: hkp://HOST[:PORT] (port
// 11371, plain HTTP), hkps://HOST[:PORT] (port 443, TLS), and http:// or
// https:// as themselves. A bare HOST means hkp://HOST.
func ParseServer(s string) (*url.URL, error) {
	if !strings.Contains(s, "://") {
		s = "hkp://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("keyserver %q: %w", s, err)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("keyserver %q: no host", s)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("keyserver %q: expected SCHEME://HOST[:PORT]", s)
	}
	port := u.Port()
	switch strings.ToLower(u.Scheme) {
	case "hkp":
		u.Scheme = "http"
		if port == "" {
			port = hkpPort
		}
	case "hkps":
		u.Scheme = "https"
		if port == "" {
			port = hkpsPort
		}
	case "http":
		if port == "" {
			port = "80"
		}
	case "https":
		if port == "" {
			port = "443"
		}
	default:
		return nil, fmt.Errorf("keyserver %q: unsupported scheme %q (use hkp:// or hkps://)", s, u.Scheme)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = net.JoinHostPort(u.Hostname(), port)
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// NewHKP returns a client of the keyserver named by server (see ParseServer).
func NewHKP(server string, opt Options) (*HKP, error) {
	u, err := ParseServer(server)
	if err != nil {
		return nil, err
	}
	t, err := newTransport(opt)
	if err != nil {
		return nil, err
	}
	return &HKP{base: u, name: server, t: t}, nil
}

// URL is the server's base URL, as requests are sent to it.
func (c *HKP) URL() string { return c.base.String() }

// searchTerm turns a key ID or fingerprint (with or without 0x, spaces
// allowed as gpg prints them) into HKP's 0x-prefixed hex form.
func searchTerm(id string) (string, error) {
	h := strings.ReplaceAll(id, " ", "")
	h = strings.TrimPrefix(strings.TrimPrefix(h, "0x"), "0X")
	switch len(h) {
	case 8, 16, 32, 40, 64:
	default:
		return "", fmt.Errorf("keyserver: %q is not a key ID or fingerprint (8, 16, 40 or 64 hex digits)", id)
	}
	for _, r := range h {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return "", fmt.Errorf("keyserver: %q is not a key ID or fingerprint (8, 16, 40 or 64 hex digits)", id)
		}
	}
	return "0x" + strings.ToUpper(h), nil
}

func (c *HKP) lookup(op, search string) *http.Request {
	u := *c.base
	u.Path += "/pks/lookup"
	q := url.Values{"op": {op}, "options": {"mr"}, "search": {search}}
	u.RawQuery = q.Encode()
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	return req
}

// Get fetches the key named by id, a key ID or fingerprint, as the
// server sends it (op=get; ASCII armor from every server in use).
func (c *HKP) Get(ctx context.Context, id string) ([]byte, error) {
	term, err := searchTerm(id)
	if err != nil {
		return nil, err
	}
	return c.t.do(ctx, c.lookup("get", term))
}

// Send publishes armored, an ASCII-armored public key block (op=add:
// POST /pks/add, keytext form-encoded, section 4).
func (c *HKP) Send(ctx context.Context, armored []byte) error {
	u := *c.base
	u.Path += "/pks/add"
	form := url.Values{"keytext": {string(armored)}}
	req, err := http.NewRequest(http.MethodPost, u.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	_, err = c.t.do(ctx, req)
	return err
}

// Result is one key of a search's machine-readable index (section 5.2).
type Result struct {
	KeyID    string // hex, as the server gave it: a fingerprint or a key ID
	Algo     int    // OpenPGP public-key algorithm number, 0 if not given
	Bits     int
	Created  time.Time // zero if not given
	Expires  time.Time // zero if none
	Revoked  bool
	Disabled bool
	Expired  bool
	UserIDs  []string
}

// Search asks for the keys matching pattern (op=index, options=mr).
// A server that finds nothing answers 404, returned as an error wrapping
// ErrNotFound.
func (c *HKP) Search(ctx context.Context, pattern string) ([]Result, error) {
	body, err := c.t.do(ctx, c.lookup("index", pattern))
	if err != nil {
		return nil, err
	}
	return ParseIndex(string(body))
}

// ParseIndex reads HKP's machine-readable index: an optional
// "info:VERSION:COUNT" line, then per key a "pub:" line followed by its
// "uid:" lines. Fields may be empty; unknown line types are ignored, as
// the draft asks.
func ParseIndex(body string) ([]Result, error) {
	var out []Result
	for n, line := range strings.Split(body, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" {
			continue
		}
		f := strings.Split(line, ":")
		switch f[0] {
		case "info":
			if len(f) > 1 && f[1] != "1" {
				return nil, fmt.Errorf("keyserver: index version %q, expected 1", f[1])
			}
		case "pub":
			if len(f) < 2 || f[1] == "" {
				return nil, fmt.Errorf("keyserver: index line %d: pub with no key ID", n+1)
			}
			r := Result{KeyID: strings.ToUpper(f[1])}
			r.Algo = atoi(field(f, 2))
			r.Bits = atoi(field(f, 3))
			r.Created = epoch(field(f, 4))
			r.Expires = epoch(field(f, 5))
			r.Revoked, r.Disabled, r.Expired = flags(field(f, 6))
			out = append(out, r)
		case "uid":
			if len(out) == 0 {
				return nil, fmt.Errorf("keyserver: index line %d: uid before any pub", n+1)
			}
			uid, err := url.PathUnescape(field(f, 1))
			if err != nil {
				uid = field(f, 1)
			}
			r := &out[len(out)-1]
			r.UserIDs = append(r.UserIDs, uid)
		}
	}
	return out, nil
}

func field(f []string, i int) string {
	if i < len(f) {
		return f[i]
	}
	return ""
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func epoch(s string) time.Time {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.Unix(n, 0).UTC()
}

func flags(s string) (revoked, disabled, expired bool) {
	return strings.Contains(s, "r"), strings.Contains(s, "d"), strings.Contains(s, "e")
}

// KeyTerm is id (a key ID or fingerprint, with or without 0x, spaces
// allowed as gpg prints them) as upper-case hex digits: what an import of
// the served data keeps keys by (keyring.ImportOptions.Named), since a
// server may answer a request with any key.
func KeyTerm(id string) (string, error) {
	term, err := searchTerm(id)
	if err != nil {
		return "", err
	}
	return term[2:], nil
}
