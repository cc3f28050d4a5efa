package main

import (
	"bufio"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"

	"golang.org/x/crypto/ripemd160"
)

// mdAlgo is a digest --print-md and --print-mds know, with gpg's name and
// OpenPGP's number (RFC 9580 §9.5).
type mdAlgo struct {
	name string
	id   int
	new  func() hash.Hash
}

// mdAlgos are gpg 2.2's --print-mds list, in its order.
var mdAlgos = []mdAlgo{
	{"MD5", 1, md5.New},
	{"SHA1", 2, sha1.New},
	{"RMD160", 3, ripemd160.New},
	{"SHA224", 11, sha256.New224},
	{"SHA256", 8, sha256.New},
	{"SHA384", 9, sha512.New384},
	{"SHA512", 10, sha512.New},
}

func mdAlgoNamed(name string) (mdAlgo, bool) {
	n := strings.ToUpper(name)
	switch n {
	case "RIPEMD160":
		n = "RMD160"
	case "SHA-1", "SHA-256", "SHA-384", "SHA-512", "SHA-224":
		n = strings.ReplaceAll(n, "-", "")
	}
	for _, a := range mdAlgos {
		if a.name == n || strconv.Itoa(a.id) == n {
			return a, true
		}
	}
	return mdAlgo{}, false
}

// cmdPrintMD is --print-md ALGO [FILE...] and (all set) --print-mds
// [FILE...]: each file's digest, or standard input's, in gpg's layout.
func cmdPrintMD(st *state, o *options, all bool) error {
	args := o.args
	algos := mdAlgos
	if !all {
		if len(args) == 0 {
			return usagef("--print-md takes a digest algorithm (MD5, SHA1, RMD160, SHA224, SHA256, SHA384, SHA512) and files")
		}
		a, ok := mdAlgoNamed(args[0])
		if !ok {
			return usagef("--print-md: unknown digest algorithm %q", args[0])
		}
		algos, args = []mdAlgo{a}, args[1:]
	}
	w := bufio.NewWriter(st.stdout)
	digest := func(name string, r io.Reader) error {
		hs := make([]hash.Hash, len(algos))
		ws := make([]io.Writer, len(algos))
		for i, a := range algos {
			hs[i] = a.new()
			ws[i] = hs[i]
		}
		if _, err := io.Copy(io.MultiWriter(ws...), r); err != nil {
			return err
		}
		for i, a := range algos {
			writeDigest(w, name, a, hs[i].Sum(nil), all, o.withColons)
		}
		return nil
	}
	if len(args) == 0 {
		if err := digest("", st.stdin); err != nil {
			return err
		}
	}
	for _, name := range args {
		r, _, done, err := openArg(st, o, name)
		if err != nil {
			return err
		}
		err = digest(name, r)
		done()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return w.Flush()
}

// writeDigest writes one digest as gpg does: with --with-colons
// "FILE:ALGO:HEX:", else the hex in groups (bytes for MD5, 2 bytes with a
// gap in the middle for the 20-byte digests, 4 bytes otherwise) after
// "FILE:" and, for --print-mds, the algorithm's name, wrapped at 80
// columns under the first group.
func writeDigest(w *bufio.Writer, name string, a mdAlgo, sum []byte, withName, colons bool) {
	if colons {
		fmt.Fprintf(w, "%s:%d:%X:\n", name, a.id, sum)
		return
	}
	prefix := ""
	if name != "" {
		prefix = name + ":"
	}
	if withName {
		if prefix != "" {
			prefix += " "
		}
		prefix += fmt.Sprintf("%6s =", a.name)
	}
	w.WriteString(prefix)
	col := len(prefix)
	switch len(sum) {
	case 16:
		for i, b := range sum {
			if i > 0 || prefix != "" {
				w.WriteByte(' ')
			}
			if i == 8 {
				w.WriteByte(' ')
			}
			fmt.Fprintf(w, "%02X", b)
		}
	case 20:
		for i := 0; i < len(sum); i += 2 {
			if i > 0 || prefix != "" {
				w.WriteByte(' ')
			}
			if i == 10 {
				w.WriteByte(' ')
			}
			fmt.Fprintf(w, "%02X%02X", sum[i], sum[i+1])
		}
	default:
		for i := 0; i < len(sum); i += 4 {
			sep := i > 0 || prefix != ""
			if sep && col+9 > 80 {
				w.WriteByte('\n')
				w.WriteString(strings.Repeat(" ", len(prefix)))
				col = len(prefix)
			}
			if sep {
				w.WriteByte(' ')
				col++
			}
			fmt.Fprintf(w, "%X", sum[i:i+4])
			col += 8
		}
	}
	w.WriteByte('\n')
}

// cmdGenRandom is --gen-random LEVEL [COUNT]: COUNT random bytes from the
// system's generator (every level is the same source here), base64 with
// --armor; without COUNT or with 0, bytes until the reader goes away, as
// in gpg.
func cmdGenRandom(st *state, o *options) error {
	if len(o.args) < 1 || len(o.args) > 2 {
		return usagef("--gen-random takes a quality level (0, 1 or 2) and a byte count")
	}
	if l, err := strconv.Atoi(o.args[0]); err != nil || l < 0 || l > 2 {
		return usagef("--gen-random: the level must be 0, 1 or 2, not %q", o.args[0])
	}
	count := int64(0)
	if len(o.args) == 2 {
		n, err := strconv.ParseInt(o.args[1], 10, 64)
		if err != nil || n < 0 {
			return usagef("--gen-random: want a byte count, not %q", o.args[1])
		}
		count = n
	}
	var src io.Reader = rand.Reader
	if count > 0 {
		src = io.LimitReader(rand.Reader, count)
	}
	if !o.armor {
		_, err := io.Copy(st.stdout, src)
		return err
	}
	// gpg encodes each block it draws on a line of its own; a base64
	// stream with no line breaks is what clients read back.
	enc := base64.NewEncoder(base64.StdEncoding, st.stdout)
	if _, err := io.Copy(enc, src); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(st.stdout, "\n")
	return err
}
