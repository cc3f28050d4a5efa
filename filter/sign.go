package filter

import (
	"errors"
	"fmt"
	"hash"
	"io"
	"time"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// Signer is a secret key to sign with and the hash to sign over.
type Signer struct {
	Key  *gcpacket.PrivateKey // unlocked; a v4 key makes v4 signatures, a v6 key v6 ones
	Hash packet.HashAlgo      // 0: the key's minimum (HashFor); one the key cannot sign with is a *HashError
	// Made, when set, is given each signature once it is made (for
	// gpg's SIG_CREATED status line).
	Made func(sig *gcpacket.Signature)
	// SignError, when set, says why the last signature by a key whose
	// secret half is elsewhere (gpg-agent) failed, or nil.
	SignError func() error
	// Notations and PolicyURI go in the hashed area of each signature
	// (RFC 9580 §5.2.3.24 and §5.2.3.28), gpg's --set-notation and
	// --sig-policy-url.
	Notations []*gcpacket.Notation
	PolicyURI string
}

// SignOptions configure Sign and DetachSign.
type SignOptions struct {
	Signers  []Signer
	Compress packet.CompressionAlgo // Sign only
	Level    int
	Armor    bool
	Literal  packet.Literal // Sign only
	Time     time.Time      // signature creation time; zero for now
	// Text makes text signatures (type 0x01, RFC 9580 §5.2.1.2): the
	// data is hashed with every line ending as CR LF, so the signature
	// holds whatever line endings the text travels with. The data
	// itself is written as given.
	Text bool
	// NotDashEscaped (ClearSign only) writes the text as it is, with
	// GnuPG's NotDashEscaped header: see the note on the framework in
	// clearsign.go.
	NotDashEscaped bool
}

// signing makes the signatures of one message. It hashes the plaintext
// as it is read, in the blocks the literal writer reads it in, so signing
// costs one pass of each hash and no copy.
type signing struct {
	signers []Signer
	sigs    []*gcpacket.Signature
	hashes  []hash.Hash
	writers []io.Writer // each hash, or the CR LF canonicalizer in front of it
	configs []*gcpacket.Config
	text    bool
}

// newSigning starts the signatures of signers at now; text makes them
// text signatures.
func newSigning(signers []Signer, now time.Time, text bool) (*signing, error) {
	if now.IsZero() {
		now = clock.Now()
	}
	now = now.Truncate(time.Second)
	s := &signing{signers: signers, text: text}
	sigType := gcpacket.SigTypeBinary
	if text {
		sigType = gcpacket.SigTypeText
	}
	for _, sg := range signers {
		k := sg.Key
		if k == nil || k.Dummy() {
			return nil, errors.New("signing: no secret key material")
		}
		if k.Encrypted {
			return nil, fmt.Errorf("signing: key %X is locked", k.Fingerprint)
		}
		algo, err := HashFor(&k.PublicKey, sg.Hash)
		if err != nil {
			return nil, fmt.Errorf("signing with %X: %w", k.Fingerprint, err)
		}
		if !algo.Supported() || algo == packet.HashRIPEMD160 {
			return nil, fmt.Errorf("signing: pgpstream does not sign with %v", algo)
		}
		// go-crypto salts v4 signatures with a notation sized by the
		// hash, a guard against fault attacks on deterministic EdDSA;
		// it has no salt size for SHA-1, so SHA-1 signs without one.
		// DSA and ECDSA draw a fresh nonce for each signature and Go's
		// RSA checks each signature it makes, so those keys sign as gpg
		// does, with no notation a reader would not expect (GPGME's
		// t-sig-notation checks that a signature holds only its own).
		eddsa := k.PubKeyAlgo == gcpacket.PubKeyAlgoEdDSA || k.PubKeyAlgo == gcpacket.PubKeyAlgoEd25519 || k.PubKeyAlgo == gcpacket.PubKeyAlgoEd448
		salted := algo.SaltSize() > 0 && eddsa
		cfg := &gcpacket.Config{Time: func() time.Time { return now }, NonDeterministicSignaturesViaNotation: &salted}
		id := k.KeyId
		sig := &gcpacket.Signature{
			Version:           k.Version,
			SigType:           sigType,
			PubKeyAlgo:        k.PubKeyAlgo,
			Hash:              algo.Crypto(),
			CreationTime:      now,
			IssuerKeyId:       &id,
			IssuerFingerprint: k.Fingerprint,
			Notations:         append([]*gcpacket.Notation(nil), sg.Notations...),
			PolicyURI:         sg.PolicyURI,
		}
		// PrepareSign starts the hash with the salt for v6.
		h, err := sig.PrepareSign(cfg)
		if err != nil {
			return nil, fmt.Errorf("signing with %X: %w", k.Fingerprint, err)
		}
		s.sigs = append(s.sigs, sig)
		s.hashes = append(s.hashes, h)
		var w io.Writer = h
		if text {
			w = &crlfWriter{w: h}
		}
		s.writers = append(s.writers, w)
		s.configs = append(s.configs, cfg)
	}
	return s, nil
}

// writeOnePass writes the one-pass signature packets. The signatures come
// out in the reverse order, so the first signer's one-pass packet is
// written last, next to the data, with the "last" flag set as GnuPG does.
func (s *signing) writeOnePass(w io.Writer) error {
	var buf []byte
	for i := len(s.sigs) - 1; i >= 0; i-- {
		k := s.signers[i].Key
		sigType := packet.SigBinary
		if s.text {
			sigType = packet.SigText
		}
		o := &packet.OnePassSignature{
			Version:    3,
			SigType:    sigType,
			Hash:       packet.HashAlgoOf(s.sigs[i].Hash),
			PubKeyAlgo: uint8(k.PubKeyAlgo),
			KeyID:      k.KeyId,
			Last:       i == 0,
		}
		if k.Version == 6 {
			o.Version, o.Salt, o.Fingerprint = 6, s.sigs[i].Salt(), k.Fingerprint
		}
		body := o.Append(nil)
		buf = packet.AppendHeader(buf, packet.TagOnePassSignature, int64(len(body)))
		buf = append(buf, body...)
	}
	_, err := w.Write(buf)
	return err
}

// Write hashes p. It never fails.
func (s *signing) Write(p []byte) (int, error) {
	for _, w := range s.writers {
		w.Write(p)
	}
	return len(p), nil
}

// reader returns in with everything read from it hashed.
func (s *signing) reader(in io.Reader) io.Reader { return &hashingReader{r: in, s: s} }

type hashingReader struct {
	r io.Reader
	s *signing
}

func (h *hashingReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.s.Write(p[:n])
	return n, err
}

// writeSignatures signs the hashes and writes the signature packets, first
// signer first.
func (s *signing) writeSignatures(w io.Writer) error {
	for i, sig := range s.sigs {
		if ds, ok := s.signers[i].Key.PrivateKey.(DigestSigner); ok && s.signers[i].Key.PubKeyAlgo == gcpacket.PubKeyAlgoDSA {
			pkt, signed, err := signDigest(sig, s.hashes[i], s.signers[i].Key, s.configs[i], ds)
			if err != nil {
				return fmt.Errorf("signing with %X: %w", s.signers[i].Key.Fingerprint, err)
			}
			if _, err := w.Write(pkt); err != nil {
				return err
			}
			if s.signers[i].Made != nil {
				s.signers[i].Made(signed)
			}
			continue
		}
		err := sig.Sign(s.hashes[i], s.signers[i].Key, s.configs[i])
		if err == nil && s.signers[i].SignError != nil {
			// go-crypto drops a crypto.Signer's error for RSA and
			// EdDSA; a key held elsewhere (gpg-agent) reports it here.
			err = s.signers[i].SignError()
		}
		if err != nil {
			return fmt.Errorf("signing with %X: %w", s.signers[i].Key.Fingerprint, err)
		}
		if err := sig.Serialize(w); err != nil {
			return err
		}
		if s.signers[i].Made != nil {
			s.signers[i].Made(sig)
		}
	}
	return nil
}

// Sign writes a signed, unencrypted message: one-pass signature packets,
// the literal data (compressed if asked), then the signatures.
func Sign(in io.Reader, out io.Writer, opt SignOptions) (int64, error) {
	if len(opt.Signers) == 0 {
		return 0, errors.New("no signing key")
	}
	return writeMessage(in, out, opt)
}

// Store writes a message that is neither encrypted nor signed: the
// literal data, compressed if asked (gpg's --store). opt.Signers must be
// empty.
func Store(in io.Reader, out io.Writer, opt SignOptions) (int64, error) {
	if len(opt.Signers) > 0 {
		return 0, errors.New("filter: Store signs nothing; use Sign")
	}
	return writeMessage(in, out, opt)
}

// writeMessage writes the unencrypted message of Sign and Store.
func writeMessage(in io.Reader, out io.Writer, opt SignOptions) (int64, error) {
	var aw io.WriteCloser
	w := out
	if opt.Armor {
		aw = armor.NewWriter(out, armor.Message, nil)
		w = aw
	}
	// Small packets (one-pass, signatures) go out through a buffer; the
	// literal data's chunks pass through it without a copy.
	bw := iobuf.NewWriter(w, 64<<10)
	n, err := writePlaintext(in, bw, EncryptOptions{
		Signers: opt.Signers, SignTime: opt.Time, TextSignatures: opt.Text,
		Compress: opt.Compress, Level: opt.Level, Literal: opt.Literal,
	})
	if err != nil {
		return n, err
	}
	if err := bw.Flush(); err != nil {
		return n, err
	}
	if aw != nil {
		if err := aw.Close(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// DetachSign writes detached signatures over in: the signature packets
// alone, armored as "PGP SIGNATURE" if asked.
func DetachSign(in io.Reader, out io.Writer, opt SignOptions) (int64, error) {
	if len(opt.Signers) == 0 {
		return 0, errors.New("no signing key")
	}
	s, err := newSigning(opt.Signers, opt.Time, opt.Text)
	if err != nil {
		return 0, err
	}
	var total int64
	buf := make([]byte, iobuf.DefaultSize)
	for {
		n, err := in.Read(buf)
		s.Write(buf[:n])
		total += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return total, readError{err}
		}
	}
	var aw io.WriteCloser
	if opt.Armor {
		aw = armor.NewWriter(out, armor.Signature, nil)
		out = aw
	}
	if err := s.writeSignatures(out); err != nil {
		return total, err
	}
	if aw != nil {
		return total, aw.Close()
	}
	return total, nil
}
