package packet

import (
	"bytes"
	"testing"

	"github.com/pgpstream/pgpstream/internal/testhook"
)

// TestS2KCostDefault checks that a SKESK is written with GnuPG's full
// iteration count unless a test lowered it, and with the lowered count when
// one did (the hook the CLI and keyring tests use).
func TestS2KCostDefault(t *testing.T) {
	key := bytes.Repeat([]byte{1}, 16)
	countOctet := func() byte {
		var b bytes.Buffer
		if err := WriteSKESK(&b, CipherAES128, key, []byte("pw"), false, 0); err != nil {
			t.Fatal(err)
		}
		// header (2), version, cipher, S2K type 3, hash, 8 salt octets, count
		return b.Bytes()[2+4+8]
	}
	if testhook.S2KCount != 0 || testhook.Argon2 != nil {
		t.Fatal("the cost hook is set in this package's tests; this test checks the release default")
	}
	if c := countOctet(); c != 0xff { // 65011712, S2KCount
		t.Fatalf("default count octet 0x%02x, want 0xff", c)
	}
	testhook.Cheap()
	defer func() { testhook.S2KCount, testhook.Argon2 = 0, nil }()
	if c := countOctet(); c != 0x60 { // 65536
		t.Fatalf("lowered count octet 0x%02x, want 0x60", c)
	}
}
