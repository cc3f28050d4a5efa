// Package keyserver fetches and publishes OpenPGP keys over the network:
// HKP keyservers (draft-shaw-openpgp-hkp) and the Web Key Directory
// (draft-koch-openpgp-webkey-service). It returns key data as served; the
// caller imports it through the keyring, which drops third-party
// signatures and writes under the ring's lock.
package keyserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/pgpstream/pgpstream/internal/testhook"
)

// Defaults for Options' zero values.
const (
	// DefaultTimeout bounds one whole request (connect, TLS, response).
	DefaultTimeout = 30 * time.Second
	// DefaultMaxResponse bounds a response body. The largest certificates
	// on public keyservers (flooded ones) run to a few MiB; 16 MiB keeps a
	// hostile server from filling memory.
	DefaultMaxResponse = 16 << 20
)

// ErrNotFound is wrapped by the error of a lookup the server answered
// with "no such key" (HKP 404, WKD 404).
var ErrNotFound = errors.New("no key found")

// ErrTooLarge is wrapped when a response exceeds Options.MaxResponse.
var ErrTooLarge = errors.New("response too large")

// Options configure the HTTP side of a client.
type Options struct {
	Timeout     time.Duration // per request; 0: DefaultTimeout
	MaxResponse int64         // bytes; 0: DefaultMaxResponse
	// CACertFile, when set, names a PEM file of CA certificates; TLS
	// servers are then trusted only if they chain to one of them (gpg's
	// hkp-cacert), not to the system roots.
	CACertFile string
}

// HTTPError is a response with a status other than 200.
type HTTPError struct {
	URL    string
	Status int
	Text   string // the status line's text
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("%s: HTTP %d %s", e.URL, e.Status, e.Text)
}

// Is makes a 404 match ErrNotFound.
func (e *HTTPError) Is(target error) bool {
	return target == ErrNotFound && e.Status == http.StatusNotFound
}

// transport is what both clients share: one http.Client with the bounds
// and trust of opt.
type transport struct {
	hc  *http.Client
	max int64
}

func newTransport(opt Options) (*transport, error) {
	t := &transport{max: opt.MaxResponse}
	if t.max <= 0 {
		t.max = DefaultMaxResponse
	}
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if opt.CACertFile != "" {
		pem, err := os.ReadFile(opt.CACertFile)
		if err != nil {
			return nil, fmt.Errorf("keyserver: CA certificates: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("keyserver: CA certificates: no PEM certificate in %s", opt.CACertFile)
		}
		tlsConf.RootCAs = pool
	}
	d := &net.Dialer{Timeout: timeout}
	dial := d.DialContext
	if testhook.Dial != nil {
		dial = testhook.Dial
	}
	tr := &http.Transport{
		// No proxy from the environment: where keys come from is the
		// user's explicit choice (--keyserver), as with gpg's dirmngr,
		// which ignores http_proxy unless told to honor it.
		Proxy:               nil,
		DialContext:         dial,
		TLSClientConfig:     tlsConf,
		TLSHandshakeTimeout: timeout,
		ForceAttemptHTTP2:   true,
	}
	t.hc = &http.Client{Transport: tr, Timeout: timeout, CheckRedirect: checkRedirect}
	return t, nil
}

// checkRedirect follows at most 5 redirects and never from https to
// http: a key asked for over TLS must not arrive in the clear.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return fmt.Errorf("more than %d redirects", len(via))
	}
	if via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirected from https to %s", req.URL.Redacted())
	}
	return nil
}

// do sends req and returns the body of a 200 response, at most t.max bytes.
func (t *transport) do(ctx context.Context, req *http.Request) ([]byte, error) {
	req = req.WithContext(ctx)
	req.Header.Set("User-Agent", "pgpstream")
	resp, err := t.hc.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) {
			// url.Error repeats method and URL; keep its cause.
			if inner := ue.Unwrap(); inner != nil {
				err = inner
			}
		}
		return nil, fmt.Errorf("%s: %w", redact(req), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		text := http.StatusText(resp.StatusCode)
		return nil, &HTTPError{URL: redact(req), Status: resp.StatusCode, Text: text}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, t.max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading response: %w", redact(req), err)
	}
	if int64(len(body)) > t.max {
		return nil, fmt.Errorf("%s: %w (more than %d bytes)", redact(req), ErrTooLarge, t.max)
	}
	return body, nil
}

// redact names a request by scheme, host and path, without the query.
func redact(req *http.Request) string {
	u := *req.URL
	u.RawQuery = ""
	return u.String()
}
