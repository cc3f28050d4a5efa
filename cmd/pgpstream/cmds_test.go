package main

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"strconv"

	"github.com/ProtonMail/go-crypto/openpgp/s2k"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pgpstream/pgpstream/packet"
)

// scriptCmds are the commands scripts use to make and damage messages.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// flip FILE OFFSET: flip the low bit of the byte at OFFSET (negative: from the end).
	"flip": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: flip FILE OFFSET")
		}
		b := readScriptFile(ts, args[0])
		off, err := strconv.Atoi(args[1])
		ts.Check(err)
		if off < 0 {
			off += len(b)
		}
		b[off] ^= 1
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), b, 0o644))
	},
	// cut FILE N: drop the last N bytes.
	"cut": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: cut FILE N")
		}
		b := readScriptFile(ts, args[0])
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), b[:len(b)-n], 0o644))
	},
	// hexfile FILE HEX: write bytes given in hex.
	"hexfile": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: hexfile FILE HEX")
		}
		b, err := hex.DecodeString(args[1])
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), b, 0o644))
	},
	// append FILE SRC...: append the contents of SRC files to FILE.
	"append": func(ts *testscript.TestScript, neg bool, args []string) {
		var out []byte
		if b, err := os.ReadFile(ts.MkAbs(args[0])); err == nil {
			out = b
		}
		for _, a := range args[1:] {
			out = append(out, readScriptFile(ts, a)...)
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), out, 0o644))
	},
	// payload FILE N: write N bytes of a fixed pattern.
	"payload": func(ts *testscript.TestScript, neg bool, args []string) {
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		b := make([]byte, n)
		seed := sha256.Sum256([]byte(args[1]))
		for i := 0; i < n; i += 32 {
			seed = sha256.Sum256(seed[:])
			copy(b[i:], seed[:])
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), b, 0o644))
	},
	// exitcode N PROG ARGS...: run PROG as exec does and want exit status
	// N: gpg's 1 (a bad signature) and 2 (an error) mean different things
	// to its callers, which "! exec" cannot tell apart.
	"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 || neg {
			ts.Fatalf("usage: exitcode N PROG ARGS...")
		}
		want, err := strconv.Atoi(args[0])
		ts.Check(err)
		got := 0
		if err := ts.Exec(args[1], args[2:]...); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				ts.Fatalf("%s: %v", args[1], err)
			}
			got = ee.ExitCode()
		}
		if got != want {
			ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
		}
	},
	// mksed OUT PASSPHRASE IN: write a Symmetrically Encrypted Data (tag 9)
	// message, as PGP 2 era software did: SKESK v4 without an encrypted
	// session key, then CFB with resynchronisation and no MDC.
	"mksed": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 3 {
			ts.Fatalf("usage: mksed OUT PASSPHRASE IN")
		}
		plain := readScriptFile(ts, args[2])
		salt := make([]byte, 8)
		rand.Read(salt)
		key := make([]byte, 16)
		s2k.Iterated(key, sha256.New(), []byte(args[1]), salt, 65536)
		skesk := []byte{4, byte(packet.CipherAES128), 3, 8}
		skesk = append(skesk, salt...)
		skesk = append(skesk, 96) // count 65536
		msg := packet.AppendHeader(nil, packet.TagSKESK, int64(len(skesk)))
		msg = append(msg, skesk...)

		lit := packet.Literal{Format: 'b'}.Append(nil)
		lit = append(lit, plain...)
		inner := packet.AppendHeader(nil, packet.TagLiteral, int64(len(lit)))
		inner = append(inner, lit...)

		block, _ := aes.NewCipher(key)
		prefix := make([]byte, 18)
		rand.Read(prefix[:16])
		prefix[16], prefix[17] = prefix[14], prefix[15]
		ct := make([]byte, 18+len(inner))
		cipher.NewCFBEncrypter(block, make([]byte, 16)).XORKeyStream(ct[:18], prefix)
		cipher.NewCFBEncrypter(block, ct[2:18]).XORKeyStream(ct[18:], inner)
		msg = packet.AppendHeader(msg, packet.TagSED, int64(len(ct)))
		msg = append(msg, ct...)
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), msg, 0o644))
	},
}

func readScriptFile(ts *testscript.TestScript, name string) []byte {
	b, err := os.ReadFile(ts.MkAbs(name))
	ts.Check(err)
	return b
}
