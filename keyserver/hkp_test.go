package keyserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/keyring"
)

const (
	joeFpr   = "916721A6C099E6BA852FAF80E94E607346A681E2"
	joeKeyID = "E94E607346A681E2"
)

// hkpServer is a small HKP keyserver: op=get and op=index over the keys it
// holds, op=add storing what is posted.
type hkpServer struct {
	mu    sync.Mutex
	keys  map[string][]byte // upper-case fingerprint -> armored key
	added []string          // keytext of every /pks/add
	reqs  []string          // path?query of every request
}

func (s *hkpServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r.Method+" "+r.URL.RequestURI())
	switch r.URL.Path {
	case "/pks/add":
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			http.Error(w, "bad add", http.StatusBadRequest)
			return
		}
		r.ParseForm()
		s.added = append(s.added, r.PostForm.Get("keytext"))
		return
	case "/pks/lookup":
	default:
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	search := strings.ToUpper(strings.TrimPrefix(q.Get("search"), "0x"))
	switch q.Get("op") {
	case "get":
		for fpr, k := range s.keys {
			if strings.HasSuffix(fpr, search) {
				w.Header().Set("Content-Type", "application/pgp-keys")
				w.Write(k)
				return
			}
		}
		http.NotFound(w, r)
	case "index":
		if strings.Contains("JOE DOE <JOE.DOE@EXAMPLE.ORG>", search) {
			fmt.Fprintf(w, "info:1:1\npub:%s:22:255:1796123418::\nuid:Joe Doe %%3CJoe.Doe@example.org%%3E:1796123418::\nuid:Joe Elsewhere %%3Cjoe@elsewhere.test%%3E:1796123418::\n", joeFpr)
			return
		}
		http.NotFound(w, r)
	default:
		http.Error(w, "not implemented", http.StatusNotImplemented)
	}
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/keys/wkd-" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func startHKP(t *testing.T) (*hkpServer, *httptest.Server) {
	s := &hkpServer{keys: map[string][]byte{joeFpr: readFixture(t, "joe.asc")}}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

func hkpURL(ts *httptest.Server) string { return "hkp://" + ts.Listener.Addr().String() }

func TestParseServer(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"hkp://keys.example.org", "http://keys.example.org:11371", ""},
		{"hkps://keys.example.org", "https://keys.example.org:443", ""},
		{"hkp://127.0.0.1:8080", "http://127.0.0.1:8080", ""},
		{"hkp://[::1]", "http://[::1]:11371", ""},
		{"HKPS://keys.example.org:8443/", "https://keys.example.org:8443", ""},
		{"keys.example.org", "http://keys.example.org:11371", ""},
		{"https://keys.example.org", "https://keys.example.org:443", ""},
		{"ldap://keys.example.org", "", "unsupported scheme"},
		{"hkp://", "", "no host"},
		{"hkp://u:p@keys.example.org", "", "expected SCHEME"},
	} {
		u, err := ParseServer(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseServer(%q) = %v, want error %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || u.String() != c.want {
			t.Errorf("ParseServer(%q) = %v, %v, want %s", c.in, u, err, c.want)
		}
	}
}

func TestHKPGet(t *testing.T) {
	s, ts := startHKP(t)
	c, err := NewHKP(hkpURL(ts), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{joeFpr, "0x" + joeKeyID, strings.ToLower(joeKeyID), "9167 21A6 C099 E6BA 852F  AF80 E94E 6073 46A6 81E2"} {
		got, err := c.Get(context.Background(), id)
		if err != nil {
			t.Fatalf("Get(%q): %v", id, err)
		}
		if !bytes.Equal(got, readFixture(t, "joe.asc")) {
			t.Fatalf("Get(%q) returned other bytes", id)
		}
	}
	if want := "GET /pks/lookup?op=get&options=mr&search=0x" + joeFpr; s.reqs[0] != want {
		t.Errorf("request %q, want %q", s.reqs[0], want)
	}
	_, err = c.Get(context.Background(), "0123456789ABCDEF")
	var he *HTTPError
	if !errors.Is(err, ErrNotFound) || !errors.As(err, &he) || he.Status != 404 {
		t.Errorf("missing key: %v, want a 404 matching ErrNotFound", err)
	}
	if strings.Contains(err.Error(), "search=") {
		t.Errorf("error %q repeats the query", err)
	}
	for _, bad := range []string{"", "xyz", "0x123", "alice@example.org"} {
		if _, err := c.Get(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "not a key ID") {
			t.Errorf("Get(%q) = %v, want a key ID error", bad, err)
		}
	}
}

func TestHKPSearch(t *testing.T) {
	s, ts := startHKP(t)
	c, _ := NewHKP(hkpURL(ts), Options{})
	res, err := c.Search(context.Background(), "joe.doe@example.org")
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].KeyID != joeFpr || res[0].Algo != 22 || res[0].Bits != 255 ||
		res[0].Created != time.Unix(1796123418, 0).UTC() || !res[0].Expires.IsZero() ||
		len(res[0].UserIDs) != 2 || res[0].UserIDs[0] != "Joe Doe <Joe.Doe@example.org>" {
		t.Fatalf("Search = %+v", res)
	}
	if want := "GET /pks/lookup?op=index&options=mr&search=joe.doe%40example.org"; s.reqs[0] != want {
		t.Errorf("request %q, want %q", s.reqs[0], want)
	}
	if _, err := c.Search(context.Background(), "nobody"); !errors.Is(err, ErrNotFound) {
		t.Errorf("search for nobody: %v, want ErrNotFound", err)
	}
}

func TestParseIndex(t *testing.T) {
	res, err := ParseIndex("info:1:2\r\npub:AAAA:1:2048:100:200:re\r\nuid:A%3Ab:100::\nfoo:ignored\npub:BBBB:::::d\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || !res[0].Revoked || !res[0].Expired || res[0].Disabled || res[0].UserIDs[0] != "A:b" ||
		res[0].Expires != time.Unix(200, 0).UTC() || !res[1].Disabled || len(res[1].UserIDs) != 0 {
		t.Fatalf("ParseIndex = %+v", res)
	}
	for _, bad := range []string{"info:2:1\n", "uid:x\n", "pub:\n"} {
		if _, err := ParseIndex(bad); err == nil {
			t.Errorf("ParseIndex(%q) accepted", bad)
		}
	}
}

func TestHKPSend(t *testing.T) {
	s, ts := startHKP(t)
	c, _ := NewHKP(hkpURL(ts), Options{})
	key := readFixture(t, "carol.asc")
	if err := c.Send(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	if len(s.added) != 1 || s.added[0] != string(key) {
		t.Fatalf("server got %q", s.added)
	}
}

func TestHKPErrors(t *testing.T) {
	// A port nothing listens on: bind one, then close it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, _ := NewHKP("hkp://"+addr, Options{Timeout: 5 * time.Second})
	_, err = c.Get(context.Background(), joeFpr)
	if err == nil || !strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "\n") {
		t.Errorf("unreachable server: %v", err)
	}

	// A server that sends more than the bound.
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("x"), 2000))
	}))
	defer big.Close()
	c, _ = NewHKP(hkpURL(big), Options{MaxResponse: 1000})
	if _, err := c.Get(context.Background(), joeFpr); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized response: %v, want ErrTooLarge", err)
	}

	// A server that never answers.
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hang }))
	defer slow.Close()
	defer close(hang)
	c, _ = NewHKP(hkpURL(slow), Options{Timeout: 200 * time.Millisecond})
	if _, err := c.Get(context.Background(), joeFpr); err == nil || !strings.Contains(err.Error(), "Timeout") {
		t.Errorf("silent server: %v, want a timeout", err)
	}

	// Server errors name the status.
	fail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer fail.Close()
	c, _ = NewHKP(hkpURL(fail), Options{})
	if err := c.Send(context.Background(), []byte("k")); err == nil || !strings.Contains(err.Error(), "HTTP 503 Service Unavailable") {
		t.Errorf("503: %v", err)
	}
}

// TestHKPImportStripsThirdParty fetches a key certified by another key and
// imports it as keys from a server are imported (gpg's self-sigs-only):
// the ring keeps the self-signatures and drops the certifications.
func TestHKPImportStripsThirdParty(t *testing.T) {
	_, ts := startHKP(t)
	c, _ := NewHKP(hkpURL(ts), Options{})
	data, err := c.Get(context.Background(), joeFpr)
	if err != nil {
		t.Fatal(err)
	}
	if n := foreignSigs(t, data, joeKeyID); n != 2 {
		t.Fatalf("fixture has %d third-party signatures, want 2", n)
	}
	ring, err := keyring.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.ImportWith(bytes.NewReader(data), keyring.ImportOptions{SelfSigsOnly: true}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ring.Export(&out, []string{joeFpr}, false, true); err != nil {
		t.Fatal(err)
	}
	if n := foreignSigs(t, out.Bytes(), joeKeyID); n != 0 {
		t.Errorf("the ring kept %d third-party signatures", n)
	}
}

// foreignSigs counts the signatures in an armored key not issued by keyID.
func foreignSigs(t *testing.T, armored []byte, keyID string) int {
	t.Helper()
	blk, err := armor.Decode(bytes.NewReader(armored))
	if err != nil {
		t.Fatal(err)
	}
	r := packet.NewReader(blk.Body)
	n := 0
	for {
		p, err := r.Next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := p.(*packet.Signature); ok && fmt.Sprintf("%016X", *s.IssuerKeyId) != keyID {
			n++
		}
	}
}

func TestKeyTerm(t *testing.T) {
	for in, want := range map[string]string{
		"0x" + strings.ToLower(joeKeyID):                     joeKeyID,
		"9167 21A6 C099 E6BA 852F  AF80 E94E 6073 46A6 81E2": joeFpr,
	} {
		if got, err := KeyTerm(in); err != nil || got != want {
			t.Errorf("KeyTerm(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := KeyTerm("joe@example.org"); err == nil {
		t.Error("KeyTerm took an address")
	}
}
