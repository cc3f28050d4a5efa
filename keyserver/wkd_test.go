package keyserver

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"
)

func TestWKDHash(t *testing.T) {
	// draft-koch-openpgp-webkey-service section 3.1.
	if got := WKDHash("Joe.Doe"); got != "iy9q119eutrkn8s1mk4r39qejnbu3n5q" {
		t.Errorf("WKDHash(Joe.Doe) = %s", got)
	}
	if WKDHash("joe.doe") != WKDHash("JOE.DOE") {
		t.Error("the hash depends on case")
	}
	if got := zbase32(nil); got != "" {
		t.Errorf("zbase32(nil) = %q", got)
	}
	// 5 bits per symbol; a trailing partial symbol is padded with zeros.
	if got := zbase32([]byte{0xff}); got != "9h" {
		t.Errorf("zbase32(ff) = %q, want 9h", got)
	}
}

func TestWKDURLs(t *testing.T) {
	adv, dir, err := WKDURLs("<Joe.Doe@Example.ORG>")
	if err != nil {
		t.Fatal(err)
	}
	if want := "https://openpgpkey.example.org/.well-known/openpgpkey/example.org/hu/iy9q119eutrkn8s1mk4r39qejnbu3n5q?l=Joe.Doe"; adv != want {
		t.Errorf("advanced %s, want %s", adv, want)
	}
	if want := "https://example.org/.well-known/openpgpkey/hu/iy9q119eutrkn8s1mk4r39qejnbu3n5q?l=Joe.Doe"; dir != want {
		t.Errorf("direct %s, want %s", dir, want)
	}
	for _, bad := range []string{"joe", "@example.org", "joe@", "joe@ex/ample.org", "a b@c.d"} {
		if _, _, err := WKDURLs(bad); err == nil {
			t.Errorf("WKDURLs(%q) accepted", bad)
		}
	}
}

// testCA makes a CA and a server certificate it signs for names, and
// writes the CA's PEM to a file whose path it returns.
func testCA(t *testing.T, names ...string) (tls.Certificate, string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "pgpstream test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	leafKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644); err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}, path
}

// wkdServer serves one binary key at both WKD paths and records the
// hosts and paths asked for.
type wkdServer struct {
	mu   sync.Mutex
	key  []byte
	adv  bool // serve the advanced path
	dir  bool // serve the direct path
	seen []string
}

func (s *wkdServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, r.Host+r.URL.RequestURI())
	h := WKDHash("joe.doe")
	switch {
	case s.adv && r.Host == "openpgpkey.example.org" && r.URL.Path == "/.well-known/openpgpkey/example.org/hu/"+h,
		s.dir && r.Host == "example.org" && r.URL.Path == "/.well-known/openpgpkey/hu/"+h:
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(s.key)
	default:
		http.NotFound(w, r)
	}
}

// binaryKey is a fixture in binary form, as go-crypto encodes it: the
// order of its user IDs differs from call to call.
func binaryKey(t *testing.T, name string) []byte {
	t.Helper()
	ents, err := v2.ReadArmoredKeyRing(bytes.NewReader(readFixture(t, name)))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, e := range ents {
		if err := e.Serialize(&b); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// startWKD starts s on 127.0.0.1 with a certificate of its own CA and
// maps example.org, and with subdomain openpgpkey.example.org, to it.
func startWKD(t *testing.T, s *wkdServer, subdomain bool) string {
	cert, caFile := testCA(t, "openpgpkey.example.org", "example.org")
	ts := httptest.NewUnstartedServer(s)
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // untrusting clients are tested
	ts.StartTLS()
	t.Cleanup(ts.Close)
	addr := ts.Listener.Addr().String()
	if subdomain {
		mapHost(t, "openpgpkey.example.org", addr)
	}
	mapHost(t, "example.org", addr)
	return caFile
}

func TestWKDLookup(t *testing.T) {
	for _, c := range []struct {
		name      string
		subdomain bool     // openpgpkey.example.org resolves
		adv, dir  bool     // the key is at the advanced, direct URL
		want      []string // hosts asked, in order
	}{
		{"advanced", true, true, true, []string{"openpgpkey.example.org"}},
		// No openpgpkey subdomain: direct.
		{"direct", false, false, true, []string{"example.org"}},
		// The subdomain exists but has no key: direct next.
		{"advanced-404", true, false, true, []string{"openpgpkey.example.org", "example.org"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &wkdServer{key: binaryKey(t, "joe.asc"), adv: c.adv, dir: c.dir}
			caFile := startWKD(t, s, c.subdomain)
			w, err := NewWKD(Options{CACertFile: caFile})
			if err != nil {
				t.Fatal(err)
			}
			data, url, err := w.Lookup(context.Background(), "Joe.Doe@example.org")
			if err != nil {
				t.Fatal(err)
			}
			if want := "https://" + c.want[len(c.want)-1] + "/"; !strings.HasPrefix(url, want) {
				t.Errorf("Lookup says %q served the key, want %s...", url, want)
			}
			if !bytes.Equal(data, s.key) {
				t.Errorf("Lookup returned %d bytes, not the %d served", len(data), len(s.key))
			}
			var hostsAsked []string
			for _, u := range s.seen {
				hostsAsked = append(hostsAsked, u[:strings.IndexByte(u, '/')])
				if !strings.HasSuffix(u, "?l=Joe.Doe") {
					t.Errorf("request %s lacks l=Joe.Doe", u)
				}
			}
			if strings.Join(hostsAsked, " ") != strings.Join(c.want, " ") {
				t.Errorf("asked %q, want %q", hostsAsked, c.want)
			}
		})
	}
}

func TestWKDRefuses(t *testing.T) {
	s := &wkdServer{key: binaryKey(t, "carol.asc"), adv: true, dir: true}
	caFile := startWKD(t, s, true)
	// A server whose CA the client was not told to trust.
	w, _ := NewWKD(Options{})
	_, _, err := w.Lookup(context.Background(), "joe.doe@example.org")
	var ue x509.UnknownAuthorityError
	if !errors.As(err, &ue) {
		t.Errorf("untrusted CA: %v, want an unknown authority error", err)
	}
	// Nothing at either URL.
	s.adv, s.dir = false, false
	w, _ = NewWKD(Options{CACertFile: caFile})
	if _, _, err := w.Lookup(context.Background(), "joe.doe@example.org"); !errors.Is(err, ErrNotFound) {
		t.Errorf("no key: %v, want ErrNotFound", err)
	}
	// A domain that does not resolve.
	if _, _, err := w.Lookup(context.Background(), "joe@nowhere.invalid"); err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no such host") {
		t.Errorf("unresolvable domain: %v", err)
	}
}

func TestAddressTerm(t *testing.T) {
	for in, want := range map[string]string{
		"Joe.Doe@Example.ORG":  "joe.doe@example.org",
		"<joe@elsewhere.test>": "joe@elsewhere.test",
	} {
		if got, err := AddressTerm(in); err != nil || got != want {
			t.Errorf("AddressTerm(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := AddressTerm("no address"); err == nil {
		t.Error("AddressTerm took a non-address")
	}
}

func TestWKDRedirectToHTTP(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(binaryKey(t, "joe.asc"))
	}))
	defer plain.Close()
	cert, caFile := testCA(t, "openpgpkey.example.org", "example.org")
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+r.URL.Path, http.StatusFound)
	}))
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	ts.StartTLS()
	defer ts.Close()
	mapHost(t, "openpgpkey.example.org", ts.Listener.Addr().String())
	mapHost(t, "example.org", ts.Listener.Addr().String())
	w, _ := NewWKD(Options{CACertFile: caFile})
	if _, _, err := w.Lookup(context.Background(), "joe.doe@example.org"); err == nil || !strings.Contains(err.Error(), "redirected from https to http://127.0.0.1") {
		t.Errorf("redirect to http: %v", err)
	}
}
