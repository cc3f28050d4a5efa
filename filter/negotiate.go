package filter

import "github.com/pgpstream/pgpstream/packet"

// Features is what a recipient's certificate announces it reads: the
// features subpacket of its self-signature (RFC 9580 §5.2.3.32). A
// version 6 key reads SEIPD v2 whatever it announces (RFC 9580 §5.13.2);
// Encrypt counts that from the recipient's Pub.
type Features struct {
	SEIPDv2      bool // 0x08: RFC 9580's SEIPD v2
	LibrePGPAEAD bool // 0x02: LibrePGP's AEAD Encrypted Data packet (tag 20), which GnuPG 2.4 writes
}

// readsSEIPDv2 reports whether r reads SEIPD v2: a version 6 key, or one
// that announces the feature.
func (r Recipient) readsSEIPDv2() bool {
	return r.Features.SEIPDv2 || (r.Pub != nil && r.Pub.Version == 6)
}

// Negotiate is the data packet and AEAD mode Encrypt writes with opt (the
// mode is 0 for SEIPD v1). A Format other than Auto is taken as given.
// Auto chooses as GnuPG 2.4 does, from what the recipients announce:
//
//   - every recipient reads SEIPD v2 (all version 6 keys do): SEIPD v2;
//   - every recipient announces LibrePGP AEAD: tag 20;
//   - else, or with no recipient (a passphrase alone says nothing about
//     its reader): SEIPD v1, which every OpenPGP implementation reads.
//
// With ForceAEAD, Auto writes AEAD whoever the recipients are: SEIPD v2
// when there are recipients and every one reads it, else tag 20 (gpg
// 2.4's --force-ocb).
//
// The AEAD mode is opt.AEAD, or OCB when that is 0: for tag 20 OCB is
// what GnuPG writes and reads, and every RFC 9580 reader has it.
func (opt EncryptOptions) Negotiate() (Format, packet.AEADAlgo) {
	f := opt.Format
	if f == Auto {
		f = negotiate(opt.Recipients, opt.ForceAEAD)
	}
	if f == SEIPDv1 {
		return f, 0
	}
	return f, aeadMode(opt)
}

// negotiate is Format Auto's choice for the recipients rs.
func negotiate(rs []Recipient, forceAEAD bool) Format {
	v2, librepgp := len(rs) > 0, len(rs) > 0
	for _, r := range rs {
		v2 = v2 && r.readsSEIPDv2()
		librepgp = librepgp && r.Features.LibrePGPAEAD
	}
	switch {
	case v2:
		return SEIPDv2
	case librepgp || forceAEAD:
		return AEADv1
	}
	return SEIPDv1
}
