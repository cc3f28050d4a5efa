package inspect

// The decoders of the session key, one-pass signature and signature
// bodies as inspect had them before package packet decoded those bodies
// for it, kept as the oracle of TestDecodersMatchLegacy and
// FuzzDecodersMatchLegacy: the listing lines and the report built from
// packet's decoders must stay what these gave. Nothing outside the tests
// calls them.

import (
	"encoding/json"
	"testing"

	"encoding/binary"
	"fmt"

	"github.com/pgpstream/pgpstream/packet"
)

func legacyDescribePKESK(b []byte) []string {
	if len(b) < 1 {
		return []string{":pubkey enc packet: [too short]"}
	}
	switch b[0] {
	case 3:
		if len(b) < 10 {
			return []string{":pubkey enc packet: [too short]"}
		}
		out := []string{fmt.Sprintf(":pubkey enc packet: version 3, algo %d, keyid %016X", b[9], binary.BigEndian.Uint64(b[1:9]))}
		return append(out, legacyEncData(b[9], b[10:])...)
	case 6:
		// GnuPG 2.2 knows no v6 PKESK; said in the same shape.
		if len(b) < 2 || len(b) < 2+int(b[1])+1 {
			return []string{":pubkey enc packet: [too short]"}
		}
		n := int(b[1])
		fpr := ""
		if n > 0 {
			fpr = hexUpper(b[3 : 2+n])
		}
		algo := b[2+n]
		return append([]string{fmt.Sprintf(":pubkey enc packet: version 6, algo %d, fpr %s", algo, fpr)}, legacyEncData(algo, b[3+n:])...)
	}
	return []string{":pubkey enc packet: [unknown version]"}
}

func legacyEncData(algo byte, b []byte) []string {
	var out []string
	switch algo {
	case algoRSA, algoRSAEncrypt:
		if bits, _, ok := legacyMpiBits(b); ok {
			out = append(out, fmt.Sprintf("data: [%d bits]", bits))
		}
	case algoElgamal, algoElgamalOld:
		for i := 0; i < 2; i++ {
			bits, rest, ok := legacyMpiBits(b)
			if !ok {
				break
			}
			out = append(out, fmt.Sprintf("data: [%d bits]", bits))
			b = rest
		}
	case algoECDH:
		bits, rest, ok := legacyMpiBits(b)
		if !ok {
			break
		}
		out = append(out, fmt.Sprintf("data: [%d bits]", bits))
		if w, _, ok := sizedBody(rest); ok {
			out = append(out, fmt.Sprintf("data: [%d bits]", 8*(1+len(w))))
		}
	default:
		out = append(out, fmt.Sprintf("unsupported algorithm %d", algo))
	}
	return out
}

func legacyS2kCount(c byte) uint32 { return (16 + uint32(c&15)) << ((c >> 4) + 6) }

func legacyDescribeSKESK(b []byte) []string {
	if len(b) < 4 {
		return []string{":symkey enc packet: [too short]"}
	}
	v := b[0]
	switch v {
	case 4, 5:
		cipher := b[1]
		rest := b[2:]
		aead := byte(0)
		if v == 5 {
			aead, rest = b[2], b[3:]
		}
		return legacyDescribeS2KESK(v, cipher, aead, rest)
	case 6:
		// count, cipher, aead, S2K length, S2K
		if len(b) < 5 {
			return []string{":symkey enc packet: [too short]"}
		}
		cipher, aead, n := b[2], b[3], int(b[4])
		if len(b) < 5+n || n < 1 {
			return []string{":symkey enc packet: [too short]"}
		}
		s2k := b[5 : 5+n]
		line := fmt.Sprintf(":symkey enc packet: version 6, cipher %d, aead %d,s2k %d", cipher, aead, s2k[0])
		out := []string{line}
		if s2k[0] == 4 && len(s2k) == 20 {
			out = append(out, fmt.Sprintf("salt %s, passes %d, parallelism %d, memory 2^%d KiB", hexUpper(s2k[1:17]), s2k[17], s2k[18], s2k[19]))
		} else if len(s2k) >= 2 {
			out[0] += fmt.Sprintf(", hash %d", s2k[1])
			if (s2k[0] == 1 || s2k[0] == 3) && len(s2k) >= 10 {
				l := "salt " + hexUpper(s2k[2:10])
				if s2k[0] == 3 && len(s2k) >= 11 {
					l += fmt.Sprintf(", count %d (%d)", legacyS2kCount(s2k[10]), s2k[10])
				}
				out = append(out, l)
			}
		}
		return out
	}
	return []string{":symkey enc packet: [unknown version]"}
}

func legacyDescribeS2KESK(v, cipher, aead byte, rest []byte) []string {
	if len(rest) < 2 {
		return []string{":symkey enc packet: [too short]"}
	}
	mode, hash := rest[0], rest[1]
	rest = rest[2:]
	minlen := 0
	switch mode {
	case 0:
	case 1:
		minlen = 8
	case 3:
		minlen = 9
	default:
		return []string{":symkey enc packet: [unknown S2K mode]"}
	}
	if len(rest) < minlen {
		return []string{":symkey enc packet: [too short]"}
	}
	line := fmt.Sprintf(":symkey enc packet: version %d, cipher %d, aead %d,s2k %d, hash %d", v, cipher, aead, mode, hash)
	if sk := len(rest) - minlen; sk > 0 {
		if aead != 0 {
			line += fmt.Sprintf(", encrypted seskey %d bytes", sk)
		} else {
			line += fmt.Sprintf(", seskey %d bits", (sk-1)*8)
		}
	}
	out := []string{line}
	if mode == 1 || mode == 3 {
		l := "salt " + hexUpper(rest[:8])
		if mode == 3 {
			l += fmt.Sprintf(", count %d (%d)", legacyS2kCount(rest[8]), rest[8])
		}
		out = append(out, l)
	}
	return out
}

func legacyDescribeOnePass(b []byte) []string {
	if len(b) < 1 {
		return []string{":onepass_sig packet: [too short]"}
	}
	switch b[0] {
	case 3:
		if len(b) < 13 {
			return []string{":onepass_sig packet: [too short]"}
		}
		return []string{
			fmt.Sprintf(":onepass_sig packet: keyid %016X", binary.BigEndian.Uint64(b[4:12])),
			fmt.Sprintf("version 3, sigclass 0x%02x, digest %d, pubkey %d, last=%d", b[1], b[2], b[3], b[12]),
		}
	case 6:
		// type, hash, algo, salt length, salt, 32-octet fingerprint, last
		if len(b) < 5 || len(b) < 5+int(b[4])+33 {
			return []string{":onepass_sig packet: [too short]"}
		}
		n := int(b[4])
		fpr := b[5+n : 5+n+32]
		return []string{
			fmt.Sprintf(":onepass_sig packet: fpr %s", hexUpper(fpr)),
			fmt.Sprintf("version 6, sigclass 0x%02x, digest %d, pubkey %d, last=%d", b[1], b[2], b[3], b[5+n+32]),
		}
	}
	return []string{":onepass_sig packet: [unknown version]"}
}

func legacyDescribeSignature(b []byte) []string {
	if len(b) < 16 {
		return []string{":signature packet: [too short]"}
	}
	v := b[0]
	switch v {
	case 2, 3:
		// version, 5 (md5len), class, time, keyid, algo, hash, 2 octets, MPIs
		if len(b) < 19 {
			return []string{":signature packet: [too short]"}
		}
		algo := b[15]
		out := []string{
			fmt.Sprintf(":signature packet: algo %d, keyid %016X", algo, binary.BigEndian.Uint64(b[7:15])),
			fmt.Sprintf("version %d, created %d, md5len %d, sigclass 0x%02x", v, binary.BigEndian.Uint32(b[3:7]), b[1], b[2]),
			fmt.Sprintf("digest algo %d, begin of digest %02x %02x", b[16], b[17], b[18]),
		}
		return append(out, legacySigData(algo, b[19:])...)
	case 4, 6:
	default:
		return []string{":signature packet: [unknown version]"}
	}
	class, algo, hash := b[1], b[2], b[3]
	rest := b[4:]
	areaLen := func() ([]byte, bool) {
		n := 2
		if v == 6 {
			n = 4
		}
		if len(rest) < n {
			return nil, false
		}
		var l int
		if n == 2 {
			l = int(binary.BigEndian.Uint16(rest))
		} else {
			l = int(binary.BigEndian.Uint32(rest))
		}
		if len(rest) < n+l {
			return nil, false
		}
		a := rest[n : n+l]
		rest = rest[n+l:]
		return a, true
	}
	hashedArea, ok1 := areaLen()
	unhashedArea, ok2 := areaLen()
	if !ok1 || !ok2 || len(rest) < 2 {
		return []string{":signature packet: [too short]"}
	}
	start := rest[:2]
	rest = rest[2:]
	hashed, _ := splitSubpackets(hashedArea)
	unhashed, _ := splitSubpackets(unhashedArea)
	var created uint32
	for _, sp := range hashed {
		if sp.Type == 2 && len(sp.Data) >= 4 && created == 0 {
			created = binary.BigEndian.Uint32(sp.Data)
		}
	}
	keyid, _ := legacyIssuerOf(hashed, unhashed)
	out := []string{
		fmt.Sprintf(":signature packet: algo %d, keyid %016X", algo, keyid),
		fmt.Sprintf("version %d, created %d, md5len 0, sigclass 0x%02x", v, created, class),
		fmt.Sprintf("digest algo %d, begin of digest %02x %02x", hash, start[0], start[1]),
	}
	for _, sp := range hashed {
		out = append(out, describeSubpacket(sp, true))
	}
	for _, sp := range unhashed {
		out = append(out, describeSubpacket(sp, false))
	}
	if v == 6 {
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return append(out, "[too short]")
		}
		out = append(out, "salt "+hexUpper(rest[1:1+int(rest[0])]))
		rest = rest[1+int(rest[0]):]
	}
	return append(out, legacySigData(algo, rest)...)
}

func legacyIssuerOf(hashed, unhashed []subpacket) (keyid uint64, fpr []byte) {
	for _, sp := range hashed {
		if sp.Type == 33 && len(sp.Data) == 21 && sp.Data[0] == 4 {
			keyid, fpr = binary.BigEndian.Uint64(sp.Data[13:]), sp.Data[1:]
		} else if sp.Type == 33 && len(sp.Data) == 33 && (sp.Data[0] == 5 || sp.Data[0] == 6) {
			keyid, fpr = binary.BigEndian.Uint64(sp.Data[1:]), sp.Data[1:]
		}
	}
	if keyid == 0 {
		for _, sp := range append(append([]subpacket{}, hashed...), unhashed...) {
			if sp.Type == 16 && len(sp.Data) >= 8 {
				return binary.BigEndian.Uint64(sp.Data), nil
			}
		}
	}
	return keyid, fpr
}

func legacySigIssuer(b []byte) (uint64, []byte) {
	if len(b) < 4 || (b[0] != 4 && b[0] != 6) {
		return 0, nil
	}
	n := 2
	if b[0] == 6 {
		n = 4
	}
	rest := b[4:]
	var areas [2][]subpacket
	for i := range areas {
		if len(rest) < n {
			return 0, nil
		}
		l := int(binary.BigEndian.Uint16(rest))
		if n == 4 {
			l = int(binary.BigEndian.Uint32(rest))
		}
		if len(rest) < n+l {
			return 0, nil
		}
		areas[i], _ = splitSubpackets(rest[n : n+l])
		rest = rest[n+l:]
	}
	return legacyIssuerOf(areas[0], areas[1])
}

func legacySigData(algo byte, b []byte) []string {
	switch algo {
	case algoEd25519:
		return []string{fmt.Sprintf("data: [%d bits]", 8*len(b))}
	case algoEd448:
		return []string{fmt.Sprintf("data: [%d bits]", 8*len(b))}
	}
	n := legacySigDataCount(algo)
	if n == 0 {
		return []string{fmt.Sprintf("unknown algorithm %d", algo)}
	}
	var out []string
	for i := 0; i < n; i++ {
		bits, rest, ok := legacyMpiBits(b)
		if !ok {
			break
		}
		out = append(out, fmt.Sprintf("data: [%d bits]", bits))
		b = rest
	}
	return out
}

func legacyMpiBits(b []byte) (bits int, rest []byte, ok bool) {
	if len(b) < 2 {
		return 0, b, false
	}
	n := int(binary.BigEndian.Uint16(b))
	nb := (n + 7) / 8
	if len(b) < 2+nb {
		return 0, b, false
	}
	v := b[2 : 2+nb]
	for len(v) > 0 && v[0] == 0 {
		v = v[1:]
	}
	if len(v) > 0 {
		bits = (len(v)-1)*8 + bitLen8(v[0])
	}
	return bits, b[2+nb:], true
}

func legacySigDataCount(algo byte) int {
	switch algo {
	case algoRSA, algoRSASign, algoRSAEncrypt:
		return 1
	case algoDSA, algoECDSA, algoEdDSA, algoElgamal, algoElgamalOld:
		return 2
	}
	return 0
}

func (ins *inspector) legacyPkesk(b []byte) {
	var r Recipient
	var id uint64
	var fp []byte
	switch {
	case len(b) >= 10 && b[0] == 3:
		r.Version, r.AlgorithmID = 3, int(b[9])
		id = binary.BigEndian.Uint64(b[1:9])
		if id == 0 {
			r.Hidden = true
		} else {
			r.KeyID = fmt.Sprintf("%016X", id)
		}
	case len(b) >= 3 && b[0] == 6 && len(b) >= 3+int(b[1]):
		n := int(b[1])
		r.Version, r.AlgorithmID = 6, int(b[2+n])
		if n == 0 {
			r.Hidden = true
		} else {
			fp = b[3 : 2+n]
			r.Fingerprint = hexUpper(fp)
			if len(fp) == 32 {
				id = binary.BigEndian.Uint64(fp)
			}
		}
	default:
		ins.rep.Warnings = append(ins.rep.Warnings, "a public-key session key packet could not be read")
		return
	}
	r.Algorithm = algoName(byte(r.AlgorithmID))
	if !r.Hidden {
		r.UserID, r.Secret, r.Known = ins.lookup(id, fp)
	}
	ins.rep.Recipients = append(ins.rep.Recipients, r)
}

func (ins *inspector) legacySkesk(b []byte) {
	p := Passphrase{}
	var s2k []byte
	switch {
	case len(b) >= 4 && b[0] == 4:
		p.Version, p.Cipher, s2k = 4, cipherName(b[1]), b[2:]
		if weakCipher(b[1]) {
			ins.weakBody = true
			ins.rep.Warnings = append(ins.rep.Warnings, "a passphrase packet uses "+p.Cipher+", a cipher with 64-bit blocks")
		}
	case len(b) >= 5 && b[0] == 5:
		p.Version, p.Cipher, p.AEAD, s2k = 5, cipherName(b[1]), packet.AEADAlgo(b[2]).String(), b[3:]
	case len(b) >= 5 && b[0] == 6 && len(b) >= 5+int(b[4]):
		p.Version, p.Cipher, p.AEAD, s2k = 6, cipherName(b[2]), packet.AEADAlgo(b[3]).String(), b[5:5+int(b[4])]
	default:
		ins.rep.Warnings = append(ins.rep.Warnings, "a passphrase packet could not be read")
		return
	}
	if len(s2k) < 1 {
		return
	}
	switch s2k[0] {
	case 0:
		p.S2K = "simple"
		ins.weakS2K = true
		ins.rep.Warnings = append(ins.rep.Warnings, "a passphrase packet uses the simple S2K (no salt, one hash): the passphrase is cheap to guess")
	case 1:
		p.S2K = "salted"
		ins.weakS2K = true
		ins.rep.Warnings = append(ins.rep.Warnings, "a passphrase packet uses the salted S2K (one hash): the passphrase is cheap to guess")
	case 3:
		p.S2K = "iterated"
		if len(s2k) >= 11 {
			p.Count = legacyS2kCount(s2k[10])
		}
	case 4:
		p.S2K = "argon2"
		if len(s2k) >= 20 {
			p.Passes, p.Parallelism, p.MemoryKiB = int(s2k[17]), int(s2k[18]), int64(1)<<s2k[19]
		}
	default:
		p.S2K = fmt.Sprintf("S2K %d", s2k[0])
	}
	if s2k[0] < 4 && len(s2k) >= 2 {
		p.Hash = hashName(s2k[1])
	}
	ins.rep.Passphrases = append(ins.rep.Passphrases, p)
}

func (ins *inspector) legacyOnePass(b []byte) {
	s := Signature{OnePass: true}
	var id uint64
	var fp []byte
	switch {
	case len(b) >= 13 && b[0] == 3:
		s.Version, s.Type, s.Hash, s.Algorithm = 3, sigTypeName(b[1]), hashName(b[2]), algoName(b[3])
		id = binary.BigEndian.Uint64(b[4:12])
		s.KeyID = fmt.Sprintf("%016X", id)
	case len(b) >= 5 && b[0] == 6 && len(b) >= 5+int(b[4])+33:
		n := int(b[4])
		s.Version, s.Type, s.Hash, s.Algorithm = 6, sigTypeName(b[1]), hashName(b[2]), algoName(b[3])
		fp = b[5+n : 5+n+32]
		s.Fingerprint = hexUpper(fp)
		id = binary.BigEndian.Uint64(fp)
	default:
		return
	}
	s.UserID, _, s.Known = ins.lookup(id, fp)
	ins.rep.Signatures = append(ins.rep.Signatures, s)
}

func (ins *inspector) legacySignature(b []byte) {
	if len(b) < 4 {
		return
	}
	ins.sigs++
	s := Signature{Version: int(b[0])}
	var id uint64
	var fp []byte
	switch b[0] {
	case 3:
		if len(b) < 17 {
			return
		}
		s.Type, s.Algorithm, s.Hash = sigTypeName(b[2]), algoName(b[15]), hashName(b[16])
		id = binary.BigEndian.Uint64(b[7:15])
	case 4, 6:
		s.Type, s.Algorithm, s.Hash = sigTypeName(b[1]), algoName(b[2]), hashName(b[3])
		id, fp = legacySigIssuer(b)
		if len(fp) > 0 {
			s.Fingerprint = hexUpper(fp)
		}
	default:
		return
	}
	if id != 0 {
		s.KeyID = fmt.Sprintf("%016X", id)
	}
	// Key files carry many signatures; only a message's are listed.
	if !ins.keys {
		s.UserID, _, s.Known = ins.lookup(id, fp)
		ins.rep.Signatures = append(ins.rep.Signatures, s)
	}
}

// decodeBoth gives what the listing and the report make of one body,
// with inspect's decoders (legacy false) or the oracle's.
func decodeBoth(tag packet.Tag, b []byte, legacy bool) string {
	var lines []string
	ins := &inspector{rep: &Report{}, lookup: diffLookup}
	switch tag {
	case packet.TagPKESK:
		if legacy {
			lines = legacyDescribePKESK(b)
			ins.legacyPkesk(b)
		} else {
			lines = describePKESK(b)
			ins.pkesk(b)
		}
	case packet.TagSKESK:
		if legacy {
			lines = legacyDescribeSKESK(b)
			ins.legacySkesk(b)
		} else {
			lines = describeSKESK(b)
			ins.skesk(b)
		}
	case packet.TagOnePassSignature:
		if legacy {
			lines = legacyDescribeOnePass(b)
			ins.legacyOnePass(b)
		} else {
			lines = describeOnePass(b)
			ins.onePass(b)
		}
	case packet.TagSignature:
		if legacy {
			lines = legacyDescribeSignature(b)
			ins.legacySignature(b)
		} else {
			lines = describeSignature(b)
			ins.signature(b)
		}
	}
	j, _ := json.Marshal(ins.rep)
	return fmt.Sprintf("%q\n%s\nweak S2K %v, weak body %v, signatures %d", lines, j, ins.weakS2K, ins.weakBody, ins.sigs)
}

// TestDecodersMatchLegacy holds the listing and the report to the
// oracle over the differential corpus.
func TestDecodersMatchLegacy(t *testing.T) {
	bodies := decodersCorpus(t)
	bad := 0
	for _, d := range bodies {
		if got, want := decodeBoth(d.tag, d.body, false), decodeBoth(d.tag, d.body, true); got != want {
			if bad++; bad <= 5 {
				t.Errorf("%v %x:\ngot  %s\nwant %s", d.tag, d.body, got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d bodies differ", bad, len(bodies))
	}
}

func FuzzDecodersMatchLegacy(f *testing.F) {
	for _, tag := range diffTags {
		f.Add(byte(tag), []byte{3, 1, 2, 3, 4, 5, 6, 7, 8, 1, 0, 8, 0xff})
		f.Add(byte(tag), []byte{6, 0, 1, 4, 9, 3, 8, 1, 2, 3, 4, 5, 6, 7, 8, 96})
		f.Add(byte(tag), []byte{4, 0, 1, 8, 0, 6, 5, 2, 0, 0, 0, 1, 0, 0, 1, 2, 0, 1, 0})
	}
	f.Fuzz(func(t *testing.T, tag byte, b []byte) {
		tg := diffTags[int(tag)%len(diffTags)]
		if got, want := decodeBoth(tg, b, false), decodeBoth(tg, b, true); got != want {
			t.Errorf("%v %x:\ngot  %s\nwant %s", tg, b, got, want)
		}
	})
}
