package inspect

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// The differential corpus of TestDecodersMatchLegacy: the session key,
// one-pass signature and signature bodies of every OpenPGP file in the
// repository's test data (testscript archives opened, armor removed,
// compressed data opened), every fuzz corpus entry as a body of each
// kind, seeded mutations of the real bodies, and short bodies of every
// version octet.

var diffTags = []packet.Tag{packet.TagPKESK, packet.TagSKESK, packet.TagOnePassSignature, packet.TagSignature}

type diffBody struct {
	tag  packet.Tag
	body []byte
}

// corpusFiles are the test data files, each txtar archive split into its files.
func corpusFiles(t testing.TB) [][]byte {
	var out [][]byte
	for _, root := range []string{"../testdata", "../cmd/pgpstream/testdata", "../filter/testdata"} {
		var names []string
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && !strings.Contains(p, "/testdata/fuzz/") {
				names = append(names, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(names)
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(n, ".txtar") {
				for _, f := range txtar.Parse(b).Files {
					out = append(out, f.Data)
				}
				continue
			}
			out = append(out, b)
		}
	}
	return out
}

// fuzzInputs are the []byte values of every fuzz corpus entry.
func fuzzInputs(t testing.TB) [][]byte {
	names, err := filepath.Glob("../*/testdata/fuzz/*/*")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	var out [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if q, ok := strings.CutPrefix(l, "[]byte("); ok {
				if s, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
					out = append(out, []byte(s))
				}
			}
		}
	}
	return out
}

// binaries gives the OpenPGP data in b: b itself, and each armored block.
func binaries(b []byte) [][]byte {
	out := [][]byte{b}
	for rest := b; ; {
		i := bytes.Index(rest, []byte("-----BEGIN PGP "))
		if i < 0 {
			return out
		}
		rest = rest[i:]
		ar, err := armor.NewReader(bytes.NewReader(rest))
		if err == nil {
			if d, err := io.ReadAll(ar); err == nil || len(d) > 0 {
				out = append(out, d)
			}
		}
		rest = rest[1:]
	}
}

// collect appends the bodies of the four kinds found in b, looking into
// compressed data.
func collect(dst []diffBody, b []byte, depth int) []diffBody {
	r := iobuf.NewReader(bytes.NewReader(b), 64<<10)
	for range 10000 {
		h, err := packet.ReadHeader(r)
		if err != nil {
			return dst
		}
		body := packet.NewBody(r, h)
		switch h.Tag {
		case packet.TagCompressed:
			head, _ := body.Peek(1)
			if len(head) == 1 && depth < 4 {
				algo := packet.CompressionAlgo(head[0])
				body.Consume(1)
				if dec, err := filter.NewDecompressor(body, algo, 1<<22); err == nil {
					inner, _ := io.ReadAll(io.LimitReader(dec, 1<<22))
					dec.Close()
					dst = collect(dst, inner, depth+1)
				}
			}
		case packet.TagPKESK, packet.TagSKESK, packet.TagOnePassSignature, packet.TagSignature:
			if d, err := body.ReadAll(1 << 20); err == nil {
				dst = append(dst, diffBody{h.Tag, d})
			}
		}
		if body.Discard() != nil {
			return dst
		}
	}
	return dst
}

// mutate returns a seeded mutation of b.
func mutate(rng *rand.Rand, b []byte) []byte {
	m := append([]byte(nil), b...)
	for n := 1 + rng.IntN(3); n > 0; n-- {
		switch k := rng.IntN(8); {
		case len(m) == 0 || k == 0:
			at := rng.IntN(len(m) + 1)
			m = append(m[:at], append([]byte{byte(rng.Uint32())}, m[at:]...)...)
		case k == 1:
			m = m[:rng.IntN(len(m))] // truncate
		case k == 2:
			at := rng.IntN(len(m))
			m = append(m[:at], m[at+1:]...)
		case k == 3:
			m[rng.IntN(len(m))] ^= 1 << rng.IntN(8)
		case k == 4:
			// a small value where a version, algorithm, type or length is
			m[rng.IntN(min(len(m), 24))] = byte(rng.IntN(40))
		case k == 5:
			m[rng.IntN(len(m))] = []byte{0, 1, 2, 3, 4, 5, 6, 0x7f, 0x80, 0xc0, 0xfe, 0xff}[rng.IntN(12)]
		case k == 6:
			m = append(m, make([]byte, rng.IntN(40))...)
		default:
			m[rng.IntN(len(m))] = byte(rng.Uint32())
		}
	}
	return m
}

// decodersCorpus builds the bodies.
func decodersCorpus(t testing.TB) (bodies []diffBody) {
	var real []diffBody
	for _, f := range corpusFiles(t) {
		for _, b := range binaries(f) {
			real = collect(real, b, 0)
		}
	}
	// The data has no one-pass signatures outside encryption: make the
	// one each signature would have, and take the fuzz corpus's.
	for _, d := range real {
		if d.tag != packet.TagSignature {
			continue
		}
		s, err := packet.ParseSignature(d.body, 0)
		if err != nil || (s.Version != 4 && s.Version != 6) {
			continue
		}
		o := packet.OnePassSignature{Version: 3, SigType: s.SigType, Hash: s.Hash, PubKeyAlgo: s.PubKeyAlgo, KeyID: s.IssuerKeyID, Last: true}
		if s.Version == 6 {
			o.Version, o.Salt, o.Fingerprint = 6, s.Salt, s.IssuerFingerprint
			if len(o.Fingerprint) != 32 {
				continue
			}
		}
		real = append(real, diffBody{packet.TagOnePassSignature, o.Append(nil)})
	}
	ops, _ := filepath.Glob("../packet/testdata/fuzz/FuzzOnePassSignature/*")
	for _, n := range ops {
		b, _ := os.ReadFile(n)
		for _, l := range strings.Split(string(b), "\n") {
			if q, ok := strings.CutPrefix(l, "[]byte("); ok {
				if s, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
					real = append(real, diffBody{packet.TagOnePassSignature, []byte(s)})
				}
			}
		}
	}
	bodies = append(bodies, real...)
	// Every fuzz input as a body of each kind.
	for _, in := range fuzzInputs(t) {
		for _, tag := range diffTags {
			bodies = append(bodies, diffBody{tag, in})
		}
	}
	// Seeded mutations of the real bodies, per kind.
	rng := rand.New(rand.NewPCG(1, 2))
	byTag := map[packet.Tag][][]byte{}
	for _, b := range real {
		byTag[b.tag] = append(byTag[b.tag], b.body)
	}
	for _, tag := range diffTags {
		seeds := byTag[tag]
		if len(seeds) == 0 {
			t.Fatalf("no %v bodies in the corpus", tag)
		}
		for range 30000 {
			bodies = append(bodies, diffBody{tag, mutate(rng, seeds[rng.IntN(len(seeds))])})
		}
	}
	// Short bodies of every version octet with a few octets after it.
	for _, tag := range diffTags {
		for v := range 256 {
			for n := range 8 {
				b := make([]byte, 1+n)
				b[0] = byte(v)
				for i := 1; i < len(b); i++ {
					b[i] = byte(rng.IntN(8))
				}
				bodies = append(bodies, diffBody{tag, b})
			}
		}
	}
	return bodies
}

// diffLookup answers with its arguments, so that the report shows what
// it was asked.
func diffLookup(id uint64, fp []byte) (string, bool, bool) {
	return fmt.Sprintf("%016X/%X/%v", id, fp, fp == nil), id&1 == 1, id&2 == 2
}
