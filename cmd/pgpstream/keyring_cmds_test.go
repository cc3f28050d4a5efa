package main

import (
	"bytes"
	"crypto"
	"crypto/dsa"
	crand "crypto/rand"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/elgamal"
	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"
	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"

	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// Commands for the keyring scripts: they build the hostile certificates
// and check the file properties the scripts cannot see otherwise.
func init() {
	// appenduid IN OUT UID: append a user ID packet with no signature to
	// the certificate IN, as anyone holding a copy of it can.
	scriptCmds["appenduid"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 3 {
			ts.Fatalf("usage: appenduid IN OUT UID")
		}
		b := keyBytes(ts, args[0])
		b = packet.AppendPacket(b, packet.TagUserID, []byte(args[2]))
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), b, 0o644))
	}
	// dropsigs IN OUT: copy the key IN without its signature packets, as
	// PGP exports a key whose user ID it never self-signed and whose
	// subkey it never bound. Each packet keeps its header's format (gpg
	// writes old-format key packets).
	scriptCmds["dropsigs"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: dropsigs IN OUT")
		}
		r := iobuf.NewReader(bytes.NewReader(keyBytes(ts, args[0])), 0)
		var out []byte
		n := 0
		for {
			h, err := packet.ReadHeader(r)
			if err == io.EOF {
				break
			}
			ts.Check(err)
			body, err := packet.NewBody(r, h).ReadAll(16 << 20)
			ts.Check(err)
			if h.Tag == packet.TagSignature {
				n++
				continue
			}
			if h.NewFormat {
				out = packet.AppendHeader(out, h.Tag, int64(len(body)))
			} else {
				out = packet.AppendOldHeader(out, h.Tag, int64(len(body)))
			}
			out = append(out, body...)
		}
		if n == 0 {
			ts.Fatalf("dropsigs: no signature in %s", args[0])
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), out, 0o600))
	}
	// flood IN OUT N third|self: add N certifications to the first user ID
	// of the certificate IN. "third" makes real signatures by a fresh key
	// (a certificate-flooding attack); "self" makes N distinct copies of
	// the certificate's own self-signature with a damaged MPI, which claim
	// the key itself as issuer.
	scriptCmds["flood"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 4 {
			ts.Fatalf("usage: flood IN OUT N third|self")
		}
		n, err := strconv.Atoi(args[2])
		ts.Check(err)
		pkts := splitPackets(ts, keyBytes(ts, args[0]))
		var out []byte
		var pub *gcpacket.PublicKey
		done := false
		for i, p := range pkts {
			out = append(out, p...)
			h, body, _, err := packet.SplitPacket(p, 0)
			ts.Check(err)
			switch h.Tag {
			case packet.TagPublicKey, packet.TagSecretKey:
				pk, err := gcpacket.Read(bytes.NewReader(p))
				ts.Check(err)
				switch k := pk.(type) {
				case *gcpacket.PublicKey:
					pub = k
				case *gcpacket.PrivateKey:
					pub = &k.PublicKey
				}
			case packet.TagUserID:
				if done {
					continue
				}
				done = true
				// The user ID's own signature comes next.
				_, self, _, err := packet.SplitPacket(pkts[i+1], 0)
				ts.Check(err)
				switch args[3] {
				case "third":
					out = append(out, thirdPartySigs(ts, pub, string(body), n)...)
				case "self":
					for j := 0; j < n; j++ {
						s := append([]byte(nil), self...)
						s[len(s)-1] ^= byte(j)
						s[len(s)-2] ^= byte(j >> 8)
						s[len(s)-3] ^= byte(j >> 16)
						out = packet.AppendPacket(out, packet.TagSignature, s)
					}
				default:
					ts.Fatalf("flood: third or self, not %q", args[3])
				}
			}
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), out, 0o644))
	}
	// argon2bomb IN OUT: set the Argon2 memory exponent of every v6 secret
	// key packet in IN to 31 (2^31 KiB, 2 TiB), the largest the encoding
	// allows.
	scriptCmds["argon2bomb"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: argon2bomb IN OUT")
		}
		var out []byte
		n := 0
		for _, p := range splitPackets(ts, keyBytes(ts, args[0])) {
			h, body, _, err := packet.SplitPacket(p, 0)
			ts.Check(err)
			if h.Tag == packet.TagSecretKey || h.Tag == packet.TagSecretSubkey {
				k, err := gcpacket.Read(bytes.NewReader(p))
				ts.Check(err)
				var pb bytes.Buffer
				ts.Check(k.(*gcpacket.PrivateKey).PublicKey.Serialize(&pb))
				_, pubBody, _, err := packet.SplitPacket(pb.Bytes(), 0)
				ts.Check(err)
				// v6, usage 253: count, cipher, AEAD mode, S2K length,
				// then S2K type 4, 16 salt octets, passes, parallelism,
				// memory exponent.
				s := append([]byte(nil), body...)
				at := len(pubBody)
				if s[at] != 253 || s[at+5] != 4 {
					ts.Fatalf("argon2bomb: key is not Argon2-protected (usage %d)", s[at])
				}
				s[at+5+19] = 31
				body = s
				n++
			}
			out = packet.AppendPacket(out, h.Tag, body)
		}
		if n == 0 {
			ts.Fatalf("argon2bomb: no secret key in %s", args[0])
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), out, 0o600))
	}
	// sha1key OUT UID DATE: a secret key (v4, Ed25519) whose self-signatures
	// use SHA-1, made at DATE (YYYY-MM-DD).
	scriptCmds["sha1key"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 3 {
			ts.Fatalf("usage: sha1key OUT UID DATE")
		}
		at, err := time.Parse("2006-01-02", args[2])
		ts.Check(err)
		cfg := &gcpacket.Config{
			Algorithm: gcpacket.PubKeyAlgoEdDSA, Curve: gcpacket.Curve25519,
			DefaultHash: crypto.SHA256, Time: func() time.Time { return at },
		}
		name, mail, _ := strings.Cut(strings.TrimSuffix(args[1], ">"), " <")
		e, err := v2.NewEntity(name, "", mail, cfg)
		ts.Check(err)
		// go-crypto will not make SHA-1 signatures, so its self-signatures
		// are replaced by ones made here.
		priv, sub := e.PrivateKey, e.Subkeys[0].PrivateKey
		noSalt := false
		cfg.NonDeterministicSignaturesViaNotation = &noSalt // its salt size is defined for SHA-2 only
		newSig := func(t gcpacket.SignatureType) *gcpacket.Signature {
			return &gcpacket.Signature{
				Version: 4, SigType: t, PubKeyAlgo: priv.PubKeyAlgo, Hash: crypto.SHA1,
				CreationTime: at, IssuerKeyId: &priv.KeyId, IssuerKeyVersion: 4, IssuerFingerprint: priv.Fingerprint,
				FlagsValid: true,
			}
		}
		var buf bytes.Buffer
		ts.Check(priv.Serialize(&buf))
		uid := gcpacket.NewUserId(name, "", mail)
		ts.Check(uid.Serialize(&buf))
		cert := newSig(gcpacket.SigTypePositiveCert)
		cert.FlagCertify, cert.FlagSign = true, true
		ts.Check(cert.SignUserId(uid.Id, &priv.PublicKey, priv, cfg))
		ts.Check(cert.Serialize(&buf))
		ts.Check(sub.Serialize(&buf))
		bind := newSig(gcpacket.SigTypeSubkeyBinding)
		bind.FlagEncryptCommunications, bind.FlagEncryptStorage = true, true
		ts.Check(bind.SignKey(&sub.PublicKey, priv, cfg))
		ts.Check(bind.Serialize(&buf))
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), buf.Bytes(), 0o600))
	}
	// v3binding OUT UID DATE: a certificate as PGP 5 made them, dated
	// DATE (YYYY-MM-DD): a DSA primary key (1024 bits) whose user ID's
	// self-signature (v4, SHA-1) has no key flags, and an Elgamal
	// encryption subkey, made 8 seconds later, bound by a v3 signature
	// (RFC 4880 section 5.2.2), which go-crypto neither makes nor reads.
	// The Elgamal group is the DSA key's (p, g), which encryption does
	// not mind and which spares a search for a safe prime.
	scriptCmds["v3binding"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 3 {
			ts.Fatalf("usage: v3binding OUT UID DATE")
		}
		at, err := time.Parse("2006-01-02", args[2])
		ts.Check(err)
		var dk dsa.PrivateKey
		ts.Check(dsa.GenerateParameters(&dk.Parameters, crand.Reader, dsa.L1024N160))
		ts.Check(dsa.GenerateKey(&dk, crand.Reader))
		priv := gcpacket.NewDSAPrivateKey(at, &dk)
		x, err := crand.Int(crand.Reader, dk.Q)
		ts.Check(err)
		x.Add(x, big.NewInt(1))
		eg := &elgamal.PublicKey{G: dk.G, P: dk.P, Y: new(big.Int).Exp(dk.G, x, dk.P)}
		sub := gcpacket.NewElGamalPublicKey(at.Add(8*time.Second), eg)
		sub.IsSubkey = true

		var buf bytes.Buffer
		ts.Check(priv.PublicKey.Serialize(&buf))
		name, mail, _ := strings.Cut(strings.TrimSuffix(args[1], ">"), " <")
		uid := gcpacket.NewUserId(name, "", mail)
		ts.Check(uid.Serialize(&buf))
		noSalt := false
		cfg := &gcpacket.Config{Time: func() time.Time { return at }, NonDeterministicSignaturesViaNotation: &noSalt}
		cert := &gcpacket.Signature{
			Version: 4, SigType: gcpacket.SigTypePositiveCert, PubKeyAlgo: gcpacket.PubKeyAlgoDSA, Hash: crypto.SHA1,
			CreationTime: at, IssuerKeyId: &priv.KeyId,
		}
		ts.Check(cert.SignUserId(uid.Id, &priv.PublicKey, priv, cfg))
		ts.Check(cert.Serialize(&buf))
		ts.Check(sub.Serialize(&buf))

		// The v3 binding: SHA-1 over both keys, then the signature type
		// and creation time (the five hashed octets).
		when := sub.CreationTime
		h := sha1.New()
		ts.Check(priv.PublicKey.SerializeForHash(h))
		ts.Check(sub.SerializeForHash(h))
		trailer := binary.BigEndian.AppendUint32([]byte{byte(gcpacket.SigTypeSubkeyBinding)}, uint32(when.Unix()))
		h.Write(trailer)
		digest := h.Sum(nil)
		r, sv, err := dsa.Sign(crand.Reader, &dk, digest)
		ts.Check(err)
		body := append([]byte{3, 5}, trailer...)
		body = binary.BigEndian.AppendUint64(body, priv.KeyId)
		body = append(body, byte(gcpacket.PubKeyAlgoDSA), 2, digest[0], digest[1]) // 2: SHA-1
		for _, n := range []*big.Int{r, sv} {
			body = binary.BigEndian.AppendUint16(body, uint16(n.BitLen()))
			body = append(body, n.Bytes()...)
		}
		buf.Write(packet.AppendHeader(nil, packet.Tag(2), int64(len(body))))
		buf.Write(body)
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), buf.Bytes(), 0o600))
	}
	// genkeys DIR N [NAME]: N certificates with their secret keys,
	// DIR/k1.pgp ... DIR/kN.pgp, each a different key, with user IDs
	// "NAME i <NAMEi@example.org>" (NAME: "Key").
	scriptCmds["genkeys"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 && len(args) != 3 {
			ts.Fatalf("usage: genkeys DIR N [NAME]")
		}
		name := "Key"
		if len(args) == 3 {
			name = args[2]
		}
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		dir := ts.MkAbs(args[0])
		ts.Check(os.MkdirAll(dir, 0o700))
		cfg := &gcpacket.Config{Algorithm: gcpacket.PubKeyAlgoEdDSA, Curve: gcpacket.Curve25519, DefaultHash: crypto.SHA256}
		for i := 1; i <= n; i++ {
			e, err := v2.NewEntity(fmt.Sprintf("%s %d", name, i), "", fmt.Sprintf("%s%d@example.org", strings.ToLower(name), i), cfg)
			ts.Check(err)
			var buf bytes.Buffer
			ts.Check(e.SerializePrivateWithoutSigning(&buf, nil))
			ts.Check(os.WriteFile(filepath.Join(dir, fmt.Sprintf("k%d.pgp", i)), buf.Bytes(), 0o600))
		}
	}
	// waitfile FILE: wait up to 10 seconds for FILE to exist.
	scriptCmds["waitfile"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: waitfile FILE")
		}
		for i := 0; i < 1000; i++ {
			if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		ts.Fatalf("%s did not appear", args[0])
	}
	// killrandom N ARGS...: run pgpstream ARGS once to time it, then N
	// times more, each killed with SIGKILL at a random moment within
	// that time. After each, the home must still list (public and
	// secret) and every key listed with a secret part must have one in
	// the public listing and back: no user ID containing "kill" may be
	// public without its secret.
	scriptCmds["killrandom"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 {
			ts.Fatalf("usage: killrandom N ARGS...")
		}
		n, err := strconv.Atoi(args[0])
		ts.Check(err)
		cmd := func(a ...string) *exec.Cmd {
			c := exec.Command("pgpstream", a...)
			c.Dir = ts.Getenv("WORK")
			c.Env = append(os.Environ(), "PATH="+ts.Getenv("PATH"), "PGPSTREAM_HOME="+ts.Getenv("PGPSTREAM_HOME"))
			return c
		}
		start := time.Now()
		if out, err := cmd(args[1:]...).CombinedOutput(); err != nil {
			ts.Fatalf("pgpstream %v: %v\n%s", args[1:], err, out)
		}
		d := time.Since(start)
		killed := 0
		for i := 0; i < n; i++ {
			c := cmd(args[1:]...)
			ts.Check(c.Start())
			time.Sleep(time.Duration(rand.Int64N(int64(d))))
			if c.Process.Signal(syscall.SIGKILL) == nil {
				killed++
			}
			c.Wait()
			counts := map[string]int{}
			for _, flag := range []string{"--list-keys", "--list-secret-keys"} {
				out, err := cmd(flag, "--with-colons").CombinedOutput()
				if err != nil {
					ts.Fatalf("round %d: the home no longer lists: %v\n%s", i, err, out)
				}
				for _, line := range strings.Split(string(out), "\n") {
					if f := strings.Split(line, ":"); f[0] == "uid" && strings.Contains(f[9], "kill") {
						counts[flag]++
					}
				}
			}
			if counts["--list-keys"] != counts["--list-secret-keys"] {
				ts.Fatalf("round %d: %d public keys but %d secret keys with a \"kill\" user ID", i, counts["--list-keys"], counts["--list-secret-keys"])
			}
		}
		ts.Logf("%d runs, %d killed (each within %v)", n, killed, d)
	}
	// filemode FILE MODE: the file's permission bits are MODE (octal).
	scriptCmds["filemode"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: filemode FILE MODE")
		}
		want, err := strconv.ParseUint(args[1], 8, 32)
		ts.Check(err)
		fi, err := os.Stat(ts.MkAbs(args[0]))
		ts.Check(err)
		if got := fi.Mode().Perm(); (uint64(got) == want) == neg {
			ts.Fatalf("%s has mode %#o, want %s%#o", args[0], got, map[bool]string{true: "not ", false: ""}[neg], want)
		}
	}
	// maxsize FILE N: the file has at most N bytes.
	scriptCmds["maxsize"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: maxsize FILE N")
		}
		n, err := strconv.ParseInt(args[1], 10, 64)
		ts.Check(err)
		fi, err := os.Stat(ts.MkAbs(args[0]))
		ts.Check(err)
		if (fi.Size() <= n) == neg {
			ts.Fatalf("%s has %d bytes (bound %d, negated %v)", args[0], fi.Size(), n, neg)
		}
	}
}

// lockHolder is a program for scripts: lockholder FILE MARK takes
// flock(2) on FILE, creates MARK, and sleeps until killed, standing for a
// writer that dies holding the home's lock.
func lockHolder() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: lockholder FILE MARK")
		os.Exit(2)
	}
	f, err := os.OpenFile(os.Args[1], os.O_RDWR|os.O_CREATE, 0o600)
	if err == nil {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
	}
	if err == nil {
		err = os.WriteFile(os.Args[2], nil, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	time.Sleep(time.Hour)
}

// keyBytes reads a key file, armored or binary, as binary packets.
func keyBytes(ts *testscript.TestScript, name string) []byte {
	b := readScriptFile(ts, name)
	if !bytes.HasPrefix(b, []byte("-----BEGIN")) {
		return b
	}
	blk, err := armor.Decode(bytes.NewReader(b))
	ts.Check(err)
	out, err := io.ReadAll(blk.Body)
	ts.Check(err)
	return out
}

// thirdPartySigs makes n valid certifications of uid on pub by one fresh
// key, each with a different creation time.
func thirdPartySigs(ts *testscript.TestScript, pub *gcpacket.PublicKey, uid string, n int) []byte {
	cfg := &gcpacket.Config{Algorithm: gcpacket.PubKeyAlgoEdDSA, Curve: gcpacket.Curve25519, DefaultHash: crypto.SHA256}
	attacker, err := v2.NewEntity("Flooder", "", "flood@example.net", cfg)
	ts.Check(err)
	signer := attacker.PrivateKey
	var out bytes.Buffer
	base := time.Now().Add(-time.Duration(n) * time.Second)
	for i := 0; i < n; i++ {
		at := base.Add(time.Duration(i) * time.Second)
		sig := &gcpacket.Signature{
			Version:           4,
			SigType:           gcpacket.SigTypeGenericCert,
			PubKeyAlgo:        signer.PubKeyAlgo,
			Hash:              crypto.SHA256,
			CreationTime:      at,
			IssuerKeyId:       &signer.KeyId,
			IssuerKeyVersion:  4,
			IssuerFingerprint: signer.Fingerprint,
		}
		ts.Check(sig.SignUserId(uid, pub, signer, &gcpacket.Config{Time: func() time.Time { return at }}))
		ts.Check(sig.Serialize(&out))
	}
	return out.Bytes()
}
