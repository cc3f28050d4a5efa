package keyring

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/agent"
)

func TestAppendMPI(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "0000"}, {"00", "0000"}, {"01", "000101"}, {"0080", "000880"}, {"00ff01", "0010ff01"}, {"40aa", "000f40aa"},
	} {
		in, _ := hex.DecodeString(c.in)
		if got := hex.EncodeToString(appendMPI(nil, in)); got != c.want {
			t.Errorf("appendMPI(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestAgentKeyParams: the public parameters of a key packet are checked
// against the agent's before its secret ones are written beside them, and
// algorithms gpg 2.2 does not export are refused by name.
func TestAgentKeyParams(t *testing.T) {
	h := func(s string) []byte { b, _ := hex.DecodeString(s); return b }
	head := "04" + "00000001"
	ed := h(head + "16" + "09" + "2b06010401da470f01" + "000f" + "40aa")
	ecdh := h(head + "12" + "0a" + "2b060104019755010501" + "000f" + "40bb" + "03010807")
	rsa := h(head + "01" + "0010" + "ff01" + "0002" + "03")
	for _, c := range []struct {
		name string
		body []byte
		tk   agent.TransferKey
		err  string
	}{
		{"ed25519", ed, agent.TransferKey{Algo: "ecc", Curve: "Ed25519", Public: [][]byte{h("40aa")}}, ""},
		{"cv25519", ecdh, agent.TransferKey{Algo: "ecc", Curve: "Curve25519", Public: [][]byte{h("0040bb")}}, ""},
		{"rsa", rsa, agent.TransferKey{Algo: "rsa", Public: [][]byte{h("00ff01"), h("03")}}, ""},
		{"other curve", ed, agent.TransferKey{Algo: "ecc", Curve: "NIST P-256", Public: [][]byte{h("40aa")}}, "curve NIST P-256"},
		{"unknown curve", ed, agent.TransferKey{Algo: "ecc", Curve: "Ed9", Public: [][]byte{h("40aa")}}, `no OID known for curve "Ed9"`},
		{"other point", ed, agent.TransferKey{Algo: "ecc", Curve: "Ed25519", Public: [][]byte{h("40ab")}}, "public parameter 1 differs"},
		{"other algorithm", rsa, agent.TransferKey{Algo: "dsa", Public: [][]byte{h("ff01")}}, "dsa key"},
		{"x25519", h(head + "19" + "aa"), agent.TransferKey{}, "algorithm 25"},
		{"v6", h("06" + "00000001" + "1b"), agent.TransferKey{}, "version 6"},
		{"truncated", h(head + "01" + "0010" + "ff"), agent.TransferKey{}, "truncated"},
	} {
		p, err := openPGPParams(c.body)
		if err == nil {
			err = p.match(&c.tk)
		}
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
	if !bytes.Equal(h("40bb"), func() []byte { p, _ := openPGPParams(ecdh); return p.values[0] }()) {
		t.Errorf("the ECDH point is not read before its KDF parameters")
	}
}
