package keyring

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/ProtonMail/go-crypto/openpgp/packet"

	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// Certifications by other keys are what the web of trust is made of
// (trust.go), and what a certificate-flooding attack appends by the
// hundred thousand. A certificate keeps them, each once, within bounds
// of their own: at most maxCertifications of them and maxCertificationBytes
// in all. At the bound, certifications by keys the ring holds are kept
// first (only they can make a key valid), then the others in the order
// the certificate holds them, so what was stored comes before what an
// import adds to a user ID; the rest are dropped, and the import says how
// many. Ten flooded certificates cost a ring 10 MiB, not gigabytes.
const (
	maxCertifications     = 1000
	maxCertificationBytes = 1 << 20
)

// ImportOptions say which signatures by other keys an import keeps.
type ImportOptions struct {
	// SelfSigsOnly drops every certification by another key, gpg's
	// self-sigs-only: the rule for keys from keyservers and the Web Key
	// Directory, where anyone may have added them.
	SelfSigsOnly bool
	// LocalSigs keeps certifications marked non-exportable, gpg's
	// import-local-sigs; without it they are dropped, as gpg drops
	// them: they were never meant to leave the ring that made them.
	LocalSigs bool
	// Named, for key data a key server served: only the keys whose
	// primary key or a subkey has a fingerprint ending in these hex
	// digits (upper case: a key ID or a fingerprint) are imported, and
	// none is an error (ErrNotServed).
	Named string
	// Address, for key data a Web Key Directory served: only the keys
	// with a user ID whose address is this one (lower case, as
	// keyserver.AddressTerm gives it) are imported, with only those
	// user IDs, and none is an error (ErrNotServed).
	Address string
	// Origin is where the keys come from (gpg's --key-origin, or the
	// keyserver or Web Key Directory they were fetched from): recorded
	// with a key new to the ring and its user IDs, and with a known key
	// the import changed, as gpg records it (see insertOrigin).
	Origin Origin
}

// isCertification reports whether t is a user ID certification or its
// revocation (RFC 9580 section 5.2.1), what other keys may sign.
func isCertification(t byte) bool { return t >= 0x10 && t <= 0x13 || t == sigCertRevocation }

// primaryID is what tells a key's own signatures from others'.
type primaryID struct {
	fpr   []byte
	keyID uint64
}

func primaryOf(b *block) (primaryID, error) {
	pk, _, err := parseKey(b.primary.pkt)
	if err != nil {
		return primaryID{}, err
	}
	return primaryID{pk.Fingerprint, pk.KeyId}, nil
}

// issued reports whether s names the key as its issuer, or names no
// issuer at all (go-crypto then checks it against the primary key).
func (id primaryID) issued(s *pgppacket.Signature) bool {
	if s.IssuerFingerprint != nil {
		return bytes.Equal(s.IssuerFingerprint, id.fpr)
	}
	return s.IssuerKeyID == 0 || s.IssuerKeyID == id.keyID
}

// thirdParty reports whether p, on a user ID, is a certification by
// another key.
func (id primaryID) thirdParty(p rawPacket) bool {
	s, err := pgppacket.ParseSignature(p.body, -1)
	return err == nil && isCertification(s.SigType) && !id.issued(s)
}

// filterSignatures keeps of b's signatures, each once, those the ring
// stores: the key's own, key and subkey revocations (a designated revoker
// may have made them), and certifications of its user IDs by other keys
// as opt allows. Certifications by other keys on the primary key or a
// subkey mean nothing and are dropped, as are signatures that do not
// parse.
func filterSignatures(b *block, opt ImportOptions) error {
	id, err := primaryOf(b)
	if err != nil {
		return err
	}
	for _, c := range b.components() {
		onUID := c.pkt.tag == tagUserID || c.pkt.tag == tagUserAttr
		c.sigs = filterSigs(c.sigs, func(p rawPacket) bool {
			s, err := pgppacket.ParseSignature(p.body, -1)
			switch {
			case err != nil:
				return false
			case s.SigType == sigKeyRevocation || s.SigType == sigSubkeyRevocation:
				return true
			case id.issued(s):
				return true
			case !onUID || !isCertification(s.SigType) || opt.SelfSigsOnly:
				return false
			}
			return !s.Local || opt.LocalSigs
		})
	}
	return nil
}

// filterSigs returns the signatures keep accepts, each once: a byte-equal
// copy of a signature adds nothing and is only a cost.
func filterSigs(sigs []rawPacket, keep func(rawPacket) bool) []rawPacket {
	out := sigs[:0:0]
	seen := map[string]bool{}
	for _, s := range sigs {
		if seen[string(s.body)] || !keep(s) {
			continue
		}
		seen[string(s.body)] = true
		out = append(out, s)
	}
	return out
}

// boundCertifications drops the certifications by other keys beyond the
// bounds above and returns how many it dropped. known says whether a
// signature's issuer is a key of the ring (nil: none is).
func boundCertifications(b *block, known func(*pgppacket.Signature) bool) (int, error) {
	id, err := primaryOf(b)
	if err != nil {
		return 0, err
	}
	type cert struct {
		c, i  int
		size  int
		known bool
	}
	var certs []cert
	for ci := range b.uids {
		for si, p := range b.uids[ci].sigs {
			s, err := pgppacket.ParseSignature(p.body, -1)
			if err != nil || !isCertification(s.SigType) || id.issued(s) {
				continue
			}
			certs = append(certs, cert{ci, si, len(p.body), known != nil && known(s)})
		}
	}
	if len(certs) <= maxCertifications && sumSize(certs, func(c cert) int { return c.size }) <= maxCertificationBytes {
		return 0, nil
	}
	sort.SliceStable(certs, func(i, j int) bool { return certs[i].known && !certs[j].known })
	drop := map[[2]int]bool{}
	n, size := 0, 0
	for _, c := range certs {
		if n < maxCertifications && size+c.size <= maxCertificationBytes {
			n, size = n+1, size+c.size
			continue
		}
		drop[[2]int{c.c, c.i}] = true
	}
	for ci := range b.uids {
		out := b.uids[ci].sigs[:0:0]
		for si, p := range b.uids[ci].sigs {
			if !drop[[2]int{ci, si}] {
				out = append(out, p)
			}
		}
		b.uids[ci].sigs = out
	}
	return len(drop), nil
}

func sumSize[T any](xs []T, size func(T) int) int {
	n := 0
	for _, x := range xs {
		n += size(x)
	}
	return n
}

// tidyStored applies to a key read from a ring file what an import
// applies: rings written by hand, or by gpg, may hold certifications
// beyond the bounds, or signatures an import would have refused.
func tidyStored(b *block) error {
	if err := filterSignatures(b, ImportOptions{LocalSigs: true}); err != nil {
		return err
	}
	_, err := boundCertifications(b, nil)
	return err
}

// ownView is b without the certifications by other keys: what go-crypto
// reads to judge the key itself (its self-signatures decide what it is;
// others' say who vouches for it, which trust.go weighs). b itself is
// returned when it holds none.
func ownView(b *block) *block {
	id, err := primaryOf(b)
	if err != nil {
		return b
	}
	var nb *block
	for i := range b.uids {
		for _, p := range b.uids[i].sigs {
			if id.thirdParty(p) {
				nb = b.clone()
				break
			}
		}
		if nb != nil {
			break
		}
	}
	if nb == nil {
		return b
	}
	for i := range nb.uids {
		nb.uids[i].sigs = filterSigs(nb.uids[i].sigs, func(p rawPacket) bool { return !id.thirdParty(p) })
	}
	return nb
}

// exportable is b without its non-exportable certifications (RFC 9580
// section 5.2.3.19), which never leave the ring, as gpg keeps them in
// unless export-local-sigs; b itself when it holds none.
func exportable(b *block) *block {
	local := func(p rawPacket) bool {
		s, err := pgppacket.ParseSignature(p.body, -1)
		return err == nil && s.Local
	}
	any := false
	for _, c := range b.components() {
		for _, p := range c.sigs {
			any = any || local(p)
		}
	}
	if !any {
		return b
	}
	nb := b.clone()
	for _, c := range nb.components() {
		c.sigs = filterSigs(c.sigs, func(p rawPacket) bool { return !local(p) })
	}
	return nb
}

// readSignature parses a stored signature with go-crypto for
// verification. go-crypto refuses a non-exportable certification
// outright, so one is read with its flag set and its hashed data then put
// back as signed (RFC 9580 section 5.2.4: the hashed part of the packet
// and a trailer), which is all verification reads of it. It reads no v3
// signature either: one is read in its v4 form with the v3 trailer (see
// pgppacket.Signature.V4Body).
func readSignature(p rawPacket) (*packet.Signature, *pgppacket.Signature, error) {
	ours, err := pgppacket.ParseSignature(p.body, -1)
	if err != nil {
		return nil, nil, err
	}
	sig, err := goSignature(p, ours)
	if err != nil {
		return nil, nil, err
	}
	return sig, ours, nil
}

// goSignature is readSignature's go-crypto reading of p, which ours
// already parsed.
func goSignature(p rawPacket, ours *pgppacket.Signature) (*packet.Signature, error) {
	body := ours.V4Body()
	if ours.Local {
		body = append([]byte(nil), body...)
		body[ours.LocalAt] = 1
	}
	pk, err := packet.Read(bytes.NewReader(withHeader(rawPacket{tag: p.tag, body: body})))
	if err != nil {
		return nil, err
	}
	sig, ok := pk.(*packet.Signature)
	if !ok {
		return nil, fmt.Errorf("%w: not a signature", ErrMalformed)
	}
	switch {
	case ours.Version == 3:
		sig.HashSuffix = append([]byte(nil), ours.V3Trailer()...)
	case ours.Local:
		sig.HashSuffix = hashSuffix(p.body, ours)
	}
	return sig, nil
}

// hashSuffix is what a v4, v5 or v6 signature hashes after the signed
// data: its body up to the end of the hashed subpackets, then the
// version, 0xff and that length (eight octets in v5).
func hashSuffix(body []byte, s *pgppacket.Signature) []byte {
	n := s.HashedEnd
	out := append(append([]byte(nil), body[:n]...), byte(s.Version), 0xff)
	if s.Version == 5 {
		out = append(out, 0, 0, 0, 0)
	}
	return append(out, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}
