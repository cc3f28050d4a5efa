package keyring

import (
	"bytes"
	"fmt"
	"io"

	"github.com/pgpstream/pgpstream/armor"
)

// Export writes the matching keys (all without patterns), as transferable
// public keys or, with secret, transferable secret keys; armored or binary.
func (r *Ring) Export(w io.Writer, patterns []string, secret, armored bool) error {
	return r.export(w, patterns, secret, armored, ExportOptions{})
}

// ExportOptions are gpg's --export-options pgpstream has.
type ExportOptions struct {
	// Minimal: of each user ID's and subkey's self-signatures only the
	// newest, and no certifications by other keys (export-minimal).
	Minimal bool
	// LocalSigs: non-exportable certifications too (export-local-sigs).
	LocalSigs bool
	// SubkeysOnly: with secret, the primary key's secret part is left
	// out and the primary written as a GNU dummy stub, as gpg's
	// --export-secret-subkeys does: the subkeys keep their secrets, so
	// a key imported from it decrypts and signs with its subkeys but
	// cannot certify.
	SubkeysOnly bool
}

// ExportWith is Export with gpg's export options.
func (r *Ring) ExportWith(w io.Writer, patterns []string, secret, armored bool, opt ExportOptions) error {
	return r.export(w, patterns, secret, armored, opt)
}

// ExportMinimal is Export with gpg's export-minimal option: of each user
// ID's and subkey's self-signatures only the newest is written (see
// minimalBlock).
func (r *Ring) ExportMinimal(w io.Writer, patterns []string, secret, armored bool) error {
	return r.export(w, patterns, secret, armored, ExportOptions{Minimal: true})
}

func (r *Ring) export(w io.Writer, patterns []string, secret, armored bool, opt ExportOptions) error {
	keys, err := r.Select(patterns, secret)
	if err != nil {
		return err
	}
	var blocks []*block
	for _, k := range keys {
		b := k.pub
		if secret {
			if k.sec == nil {
				b, err = k.agentSecretBlock(opt.SubkeysOnly)
			} else if b, err = k.secretExportBlock(); err == nil && opt.SubkeysOnly {
				b.primary.pkt = gnuDummyPacket(k.pub.primary.pkt, tagSecretKey)
			}
			if err != nil {
				return err
			}
		}
		if !opt.LocalSigs {
			b = exportable(b)
		}
		if opt.Minimal {
			b = minimalBlock(ownView(b))
		}
		blocks = append(blocks, b)
	}
	return writeBlocks(w, blocks, secret, armored)
}

// writeBlocks writes transferable keys, binary or in one armor block of
// the kind secret says.
func writeBlocks(w io.Writer, blocks []*block, secret, armored bool) error {
	var buf bytes.Buffer
	v6 := false
	for _, b := range blocks {
		v6 = v6 || len(b.primary.pkt.body) > 0 && b.primary.pkt.body[0] == 6 // the key version
		buf.Write(b.bytes())
	}
	if !armored {
		_, err := w.Write(buf.Bytes())
		return err
	}
	typ := publicKeyBlock
	if secret {
		typ = privateKeyBlock
	}
	// RFC 9580 section 6.1: no CRC-24 with v6 keys; older readers may
	// still want it on v4 data, and it costs nothing there.
	aw := armor.NewWriter(w, typ, nil)
	aw.OmitChecksum = v6
	if _, err := aw.Write(buf.Bytes()); err != nil {
		return err
	}
	return aw.Close()
}

// secretExportBlock is the public certificate, which has every merged
// user ID and signature, with the key packets replaced by their secret
// forms where the secret ring has them.
func (k *Key) secretExportBlock() (*block, error) {
	secPkts := map[string]rawPacket{}
	for _, c := range k.sec.components() {
		if c.pkt.tag != tagSecretKey && c.pkt.tag != tagSecretSubkey {
			continue
		}
		fp, err := fingerprintOf(c.pkt)
		if err != nil {
			return nil, err
		}
		secPkts[string(fp)] = c.pkt
	}
	b := k.pub.clone()
	fp, err := fingerprintOf(b.primary.pkt)
	if err != nil {
		return nil, err
	}
	p, ok := secPkts[string(fp)]
	if !ok {
		return nil, fmt.Errorf("keyring: secret ring entry for %s lacks the primary secret key", k.Fingerprint())
	}
	b.primary.pkt = p
	for i := range b.subs {
		fp, err := fingerprintOf(b.subs[i].pkt)
		if err != nil {
			return nil, err
		}
		if p, ok := secPkts[string(fp)]; ok {
			b.subs[i].pkt = p
		}
	}
	return b, nil
}

// gnuDummyPacket is the secret form of the key packet pub without its
// secret: GnuPG's S2K extension (usage 255, cipher 0, mode 101, hash 0,
// "GNU", 1), which gpg writes for a key whose secret is elsewhere
// (g10/build-packet.c, do_key, for S2K mode 1001).
func gnuDummyPacket(pub rawPacket, tag byte) rawPacket {
	body := append([]byte(nil), pub.body...)
	body = append(body, 0xff, 0, 101, 0, 'G', 'N', 'U', 1)
	return secretKeyPacket(pub, tag, body)
}
