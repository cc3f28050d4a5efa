package keyring

import (
	"fmt"
	"time"

	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// SHA1SelfSigCutoff is when SHA-1 stops being accepted for the
// signatures that make a key valid: user ID self-certifications, subkey
// bindings and direct-key signatures made at or after it are ignored
// (RFC 9580 section 9.5 says SHA-1 MUST NOT be used to make new
// signatures; Sequoia's standard policy stops accepting SHA-1 where only
// second-preimage resistance is needed, as for self-signatures, on the
// same date). Older SHA-1 self-signatures still count, so keys made by
// GnuPG before 2.1 keep working. Revocations are honoured whatever their
// hash: ignoring one would bring a revoked key back.
var SHA1SelfSigCutoff = time.Date(2023, 2, 1, 0, 0, 0, 0, time.UTC)

// Signature types (RFC 9580 section 5.2.1) the key policy tells apart.
const (
	sigSubkeyBinding    = 0x18
	sigKeyRevocation    = 0x20
	sigSubkeyRevocation = 0x28
	sigCertRevocation   = 0x30
)

func isRevocation(t byte) bool {
	return t == sigKeyRevocation || t == sigSubkeyRevocation || t == sigCertRevocation
}

// Bounds on one certificate as stored. Real certificates have tens of
// packets and a few kilobytes; a photo ID can reach a few hundred
// kilobytes. A certificate beyond either bound is refused on import:
// every later command would pay to read it. Certifications by other keys
// have bounds of their own (certs.go), well inside these.
const (
	maxCertPackets = 10000
	maxCertBytes   = 4 << 20
)

// checkBounds refuses a certificate larger than the bounds above.
func checkBounds(b *block) error {
	n, size := 0, 0
	for _, c := range b.components() {
		n += 1 + len(c.sigs)
		size += len(c.pkt.body)
		for _, s := range c.sigs {
			size += len(s.body)
		}
	}
	if n > maxCertPackets {
		return fmt.Errorf("certificate has %d packets (at most %d allowed)", n, maxCertPackets)
	}
	if size > maxCertBytes {
		return fmt.Errorf("certificate has %d bytes (at most %d MiB allowed)", size, maxCertBytes>>20)
	}
	return nil
}

// policyView returns b as go-crypto should judge it: with SHA-1
// signatures made at or after SHA1SelfSigCutoff (revocations excepted)
// failing verification, unless allowWeak. They are damaged in place (the
// last octet of the signature value flipped) rather than dropped, because
// go-crypto refuses a v4 certificate with no signed user ID outright, and
// a key whose only self-signatures are weak should read as a key without
// valid user IDs, not break the ring. b itself is left whole, so the
// choice can be undone with the flag.
func policyView(b *block, allowWeak bool) *block {
	if allowWeak {
		return b
	}
	weak := func(p rawPacket) bool {
		s, err := pgppacket.ParseSignature(p.body, -1)
		return err == nil && s.Hash == pgppacket.HashSHA1 && !isRevocation(s.SigType) && !s.Created.Before(SHA1SelfSigCutoff)
	}
	var nb *block
	for i, c := range b.components() {
		for j, s := range c.sigs {
			if !weak(s) || len(s.body) == 0 {
				continue
			}
			if nb == nil {
				nb = b.clone()
			}
			body := append([]byte(nil), s.body...)
			body[len(body)-1] ^= 1
			nb.components()[i].sigs[j] = rawPacket{tag: s.tag, body: body}
		}
	}
	if nb == nil {
		return b
	}
	return nb
}
