package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pgpstream/pgpstream/internal/testhook"
	"github.com/pgpstream/pgpstream/keyserver"
)

// testHostsEnv maps host names to loopback servers for the pgpstream
// processes a script runs: "host=127.0.0.1:PORT,...".
const testHostsEnv = "PGPSTREAM_TEST_HOSTS"

// init runs in the test binary before TestMain, in the test process and
// in every pgpstream a script starts: connections then go only to
// loopback addresses, by IP or by a name a script mapped.
func init() {
	testhook.Dial = scriptDial
	scriptCmds["hkpserve"] = hkpServe
	scriptCmds["wkdserve"] = wkdServe
}

func scriptDial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	to := ""
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		to = addr
	}
	for _, m := range strings.Split(os.Getenv(testHostsEnv), ",") {
		if h, a, ok := strings.Cut(m, "="); ok && h == host {
			to = a
		}
	}
	if to == "" {
		return nil, &net.DNSError{Err: "no such host (test resolver)", Name: host, IsNotFound: true}
	}
	if th, _, _ := net.SplitHostPort(to); !net.ParseIP(th).IsLoopback() {
		return nil, fmt.Errorf("test resolver: %s is not a loopback address", to)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, to)
}

// served is a key file a test server hands out.
type served struct {
	armored []byte
	binary  []byte
	fprs    []string // primary and subkey fingerprints, upper-case hex
	uids    []string
	emails  []string
	algo    int
	bits    int
	created int64
}

func loadServed(ts *testscript.TestScript, name string) served {
	data := readScriptFile(ts, name)
	ents, err := v2.ReadArmoredKeyRing(bytes.NewReader(data))
	ts.Check(err)
	s := served{armored: data}
	var bin bytes.Buffer
	for _, e := range ents {
		ts.Check(e.Serialize(&bin))
		s.fprs = append(s.fprs, strings.ToUpper(hex.EncodeToString(e.PrimaryKey.Fingerprint)))
		for _, sk := range e.Subkeys {
			s.fprs = append(s.fprs, strings.ToUpper(hex.EncodeToString(sk.PublicKey.Fingerprint)))
		}
		for name, id := range e.Identities {
			s.uids = append(s.uids, name)
			s.emails = append(s.emails, id.UserId.Email)
		}
		bits, _ := e.PrimaryKey.BitLength()
		s.algo, s.bits, s.created = int(e.PrimaryKey.PubKeyAlgo), int(bits), e.PrimaryKey.CreationTime.Unix()
	}
	s.binary = bin.Bytes()
	return s
}

// hkpserve KEYFILE...: serve the armored keys over HKP on 127.0.0.1 until
// the script ends; $HKP is the server's hkp:// URL. Keys posted to
// /pks/add are appended to $WORK/hkp-added.asc and served from then on;
// every request is logged to $WORK/hkp-requests.log.
func hkpServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: hkpserve KEYFILE...")
	}
	var mu sync.Mutex
	var keys []served
	for _, a := range args {
		keys = append(keys, loadServed(ts, a))
	}
	work := ts.Getenv("WORK")
	logf := func(format string, args ...any) {
		f, err := os.OpenFile(filepath.Join(work, "hkp-requests.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, format+"\n", args...)
			f.Close()
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		logf("%s %s", r.Method, r.URL.RequestURI())
		switch r.URL.Path {
		case "/pks/add":
			if err := r.ParseForm(); err != nil || r.Method != http.MethodPost {
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
			kt := r.PostForm.Get("keytext")
			f, err := os.OpenFile(filepath.Join(work, "hkp-added.asc"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				f.WriteString(kt)
				f.Close()
			}
			return
		case "/pks/lookup":
		default:
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		search := q.Get("search")
		hexID := strings.ToUpper(strings.TrimPrefix(search, "0x"))
		var index strings.Builder
		n := 0
		for _, k := range keys {
			switch q.Get("op") {
			case "get":
				for _, f := range k.fprs {
					if strings.HasPrefix(search, "0x") && strings.HasSuffix(f, hexID) {
						w.Write(k.armored)
						return
					}
				}
			case "index":
				for _, u := range k.uids {
					if strings.Contains(strings.ToLower(u), strings.ToLower(search)) {
						n++
						fmt.Fprintf(&index, "pub:%s:%d:%d:%d::\n", k.fprs[0], k.algo, k.bits, k.created)
						for _, u := range k.uids {
							fmt.Fprintf(&index, "uid:%s:%d::\n", url.PathEscape(u), k.created)
						}
						break
					}
				}
			}
		}
		if n > 0 {
			fmt.Fprintf(w, "info:1:%d\n%s", n, index.String())
			return
		}
		http.NotFound(w, r)
	}))
	ts.Defer(srv.Close)
	ts.Setenv("HKP", "hkp://"+srv.Listener.Addr().String())
}

// wkdserve [-nosub] KEYFILE...: serve the keys in a Web Key Directory for
// their addresses' domains over HTTPS on 127.0.0.1, with a certificate of
// a CA made for the script, written to $WORK/ca.pem. The domains, and
// their openpgpkey subdomains unless -nosub, resolve to the server.
func wkdServe(ts *testscript.TestScript, neg bool, args []string) {
	sub := true
	if len(args) > 0 && args[0] == "-nosub" {
		sub, args = false, args[1:]
	}
	if neg || len(args) == 0 {
		ts.Fatalf("usage: wkdserve [-nosub] KEYFILE...")
	}
	paths := map[string][]byte{} // host+path -> binary key
	var names []string
	for _, a := range args {
		k := loadServed(ts, a)
		for _, e := range k.emails {
			at := strings.LastIndexByte(e, '@')
			local, domain := e[:at], strings.ToLower(e[at+1:])
			h := keyserver.WKDHash(local)
			paths["openpgpkey."+domain+"/.well-known/openpgpkey/"+domain+"/hu/"+h] = k.binary
			paths[domain+"/.well-known/openpgpkey/hu/"+h] = k.binary
			names = append(names, domain, "openpgpkey."+domain)
		}
	}
	cert, caPEM := scriptCA(ts, names)
	ts.Check(os.WriteFile(filepath.Join(ts.Getenv("WORK"), "ca.pem"), caPEM, 0o644))
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k, ok := paths[r.Host+r.URL.Path]; ok {
			w.Write(k)
			return
		}
		http.NotFound(w, r)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	// A client that does not trust the CA is a case the scripts test.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	ts.Defer(srv.Close)
	addr := srv.Listener.Addr().String()
	var m []string
	for _, n := range names {
		if sub || !strings.HasPrefix(n, "openpgpkey.") {
			m = append(m, n+"="+addr)
		}
	}
	ts.Setenv(testHostsEnv, strings.Join(m, ","))
}

// scriptCA makes a CA and a server certificate it signs for names.
func scriptCA(ts *testscript.TestScript, names []string) (tls.Certificate, []byte) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ts.Check(err)
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "pgpstream script CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	ts.Check(err)
	caCert, err := x509.ParseCertificate(caDER)
	ts.Check(err)
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ts.Check(err)
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &leafKey.PublicKey, caKey)
	ts.Check(err)
	return tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: leafKey},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}

func TestLocateMechanisms(t *testing.T) {
	for _, c := range []struct {
		given []string
		def   []string
		want  string
	}{
		{nil, []string{"local"}, "local"},
		{nil, []string{"local", "wkd"}, "local,wkd"},
		{[]string{"wkd"}, []string{"local"}, "local,wkd"},
		{[]string{"wkd,local"}, []string{"local"}, "wkd,local"},
		{[]string{"nodefault,wkd"}, []string{"local"}, "wkd"},
		{[]string{"wkd", "clear"}, []string{"local", "wkd"}, "local"}, // --no-auto-key-locate
		{[]string{"local wkd"}, nil, "local,wkd"},
	} {
		o := &options{net: netOpts{autoKeyLocate: c.given}}
		got, err := locateMechanisms(o, c.def)
		if err != nil || strings.Join(got, ",") != c.want {
			t.Errorf("locateMechanisms(%q, %q) = %q, %v, want %s", c.given, c.def, got, err, c.want)
		}
	}
	if _, err := locateMechanisms(&options{net: netOpts{autoKeyLocate: []string{"dane"}}}, nil); err == nil {
		t.Error("dane accepted")
	}
}
