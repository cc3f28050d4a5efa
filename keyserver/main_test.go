package keyserver

import (
	"context"
	"fmt"
	"net"
	"os"
	"sync"
	"testing"

	"github.com/pgpstream/pgpstream/internal/testhook"
)

// TestMain routes every connection the clients make through a resolver
// of the tests' own: a host a test has not mapped to a loopback server
// fails to resolve, so no test reaches DNS or any other address.
func TestMain(m *testing.M) {
	testhook.Cheap()
	testhook.Dial = testDial
	os.Exit(m.Run())
}

var (
	hostsMu sync.Mutex
	hosts   = map[string]string{} // host name -> 127.0.0.1:PORT
)

// mapHost sends connections to host (any port) to addr, a loopback
// listener, until the test ends.
func mapHost(t *testing.T, host, addr string) {
	hostsMu.Lock()
	hosts[host] = addr
	hostsMu.Unlock()
	t.Cleanup(func() {
		hostsMu.Lock()
		delete(hosts, host)
		hostsMu.Unlock()
	})
}

func testDial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	hostsMu.Lock()
	to, ok := hosts[host]
	hostsMu.Unlock()
	if !ok {
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return nil, &net.DNSError{Err: "no such host (test resolver)", Name: host, IsNotFound: true}
		}
		to = addr
	}
	if th, _, _ := net.SplitHostPort(to); !net.ParseIP(th).IsLoopback() {
		return nil, fmt.Errorf("test resolver: %s is not a loopback address", to)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, to)
}
