package keyring

import (
	pgppacket "github.com/pgpstream/pgpstream/packet"
)

// minimalBlock returns b with, for the primary key and each user ID and
// subkey, only the newest of its self-signatures, as gpg's
// export-minimal writes it; a user ID revoked after that keeps only its
// revocation. Revocations are kept (dropping one would
// bring a revoked key, user ID or subkey back), as are signatures that
// do not parse, which b's reader ignores anyway.
func minimalBlock(b *block) *block {
	nb := b.clone()
	for _, c := range nb.components() {
		newest := -1
		var newestAt int64
		for i, s := range c.sigs {
			sig, err := pgppacket.ParseSignature(s.body, -1)
			if err != nil || isRevocation(byte(sig.SigType)) {
				continue
			}
			if t := sig.Created.Unix(); newest < 0 || t >= newestAt {
				newest, newestAt = i, t
			}
		}
		if c.pkt.tag == tagUserID || c.pkt.tag == tagUserAttr {
			// Of a revoked user ID gpg keeps the revocation alone.
			for _, s := range c.sigs {
				if sig, err := pgppacket.ParseSignature(s.body, -1); err == nil && isRevocation(byte(sig.SigType)) && sig.Created.Unix() >= newestAt {
					newest = -1
				}
			}
		}
		out := c.sigs[:0:0]
		for i, s := range c.sigs {
			sig, err := pgppacket.ParseSignature(s.body, -1)
			if i == newest || err == nil && isRevocation(byte(sig.SigType)) {
				out = append(out, s)
			}
		}
		c.sigs = out
	}
	return nb
}
