package filter

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/internal/chunk"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// Format is the encrypted data packet Encrypt writes.
type Format int

const (
	SEIPDv1 Format = iota // CFB + MDC, what every OpenPGP peer reads
	SEIPDv2               // RFC 9580 AEAD
	AEADv1                // LibrePGP OCB Encrypted Data (tag 20), what GnuPG 2.4 writes
	SED                   // Symmetrically Encrypted Data (tag 9), no integrity: read only
	// Auto is for EncryptOptions only: the format is chosen from what
	// the recipients announce (EncryptOptions.Negotiate). It is not the
	// zero value: a caller that names no format gets SEIPD v1.
	Auto
)

func (f Format) String() string {
	switch f {
	case SEIPDv1:
		return "SEIPD v1"
	case SEIPDv2:
		return "SEIPD v2"
	case AEADv1:
		return "AEAD (tag 20)"
	case SED:
		return "SED"
	case Auto:
		return "negotiated"
	}
	return "unknown format"
}

// Recipient is a public key to encrypt the session key to.
type Recipient struct {
	Pub    *gcpacket.PublicKey
	Hidden bool // write a wildcard key ID (gpg's --hidden-recipient)
	// Features is what the recipient's certificate announces, for
	// Format Auto (keyring.Recipient.Features gives it).
	Features Features
}

// EncryptOptions configure Encrypt.
type EncryptOptions struct {
	Recipients []Recipient
	Passphrase []byte // non-nil: also (or only) encrypt to this passphrase
	S2KCount   int    // iterated S2K byte count; 0 for packet.S2KCount
	Cipher     packet.CipherAlgo
	Format     Format          // the data packet; Auto to negotiate it (see Negotiate)
	ForceAEAD  bool            // with Auto: AEAD whatever the recipients announce (gpg 2.4's --force-ocb)
	AEAD       packet.AEADAlgo // SEIPDv2 and AEADv1; 0 for OCB
	ChunkByte  byte            // AEAD chunk size is 2^(ChunkByte+6), at most 16
	Threads    int             // AEAD chunks sealed at once (0: GOMAXPROCS)
	Compress   packet.CompressionAlgo
	Level      int // compression level, 1..9; 0 for the default
	Armor      bool
	Literal    packet.Literal
	// Signers, when set, sign the plaintext inside the encryption: one-pass
	// signature packets, the literal data, then the signatures.
	Signers  []Signer
	SignTime time.Time // signature creation time; zero for now
	// TextSignatures makes the signatures text signatures (see
	// SignOptions.Text).
	TextSignatures bool
	// Passphrases are further passphrases the message is encrypted to,
	// one SKESK each, after Passphrase's.
	Passphrases [][]byte
	// SessionKey, when set, is given the session key once it is made,
	// before anything is written (for the Stateless OpenPGP CLI's
	// --session-key-out).
	SessionKey func(SessionKeyInfo)
}

// ChunkSize is the partial-length chunk pgpstream writes: large, so a
// stream of unknown length costs one header byte per 512 KiB, and a power
// of two as the format requires.
const ChunkSize = 512 << 10

// Encrypt reads plaintext from in and writes an encrypted message to out.
//
// The encode chain, from the input down:
//
//	literal packet (partial lengths)   in --ReadFrom--> chunk buffer
//	[compressed packet + deflate]      chunk --> compressor --> chunk buffer
//	SEIPD v1: CFB + MDC                chunk --encrypt--> SEIPD chunk buffer
//	[armor]                            SEIPD chunk --> base64 --> out
//
// Copies per byte without compression or armor: three, of which two are
// the kernel's (read, write) and one is the encryption itself.
//
// The result says what was written; on an error, as much as was.
func Encrypt(in io.Reader, out io.Writer, opt EncryptOptions) (*EncryptResult, error) {
	res := &EncryptResult{}
	n, err := encrypt(in, out, opt, res)
	res.Bytes = n
	return res, err
}

// EncryptResult is what Encrypt wrote: the data packet's format, cipher
// and AEAD mode, and the session key packets, parsed back from what went
// out (an SKESK's S2K, with its salt, is the one the message carries).
type EncryptResult struct {
	Bytes  int64 // plaintext read
	Format Format
	Cipher packet.CipherAlgo
	AEAD   packet.AEADAlgo // SEIPDv2 and AEADv1; 0 for SEIPD v1
	PKESKs []*packet.PKESK // one per recipient, in order
	SKESKs []*packet.SKESK // one per passphrase, in order
}

// SKESKS2K is the S2K specifier's type and hash octets (RFC 9580
// §3.7.1) of the SKESKs Encrypt writes with opt: Argon2 (type 4, no hash)
// for SEIPD v2 (as negotiated, for Format Auto), else iterated and salted
// SHA-256 (type 3, hash 8). It is known before anything is written, for a
// caller that names the S2K before it asks for the passphrase (gpg's
// NEED_PASSPHRASE_SYM).
func (opt EncryptOptions) SKESKS2K() (mode, hash byte) {
	if f, _ := opt.Negotiate(); f == SEIPDv2 {
		return 4, 0
	}
	return 3, byte(packet.HashSHA256)
}

// writeESK writes one session key packet, made by write, to out, and
// keeps it parsed in res. Such a packet is small: it is made in a
// buffer, read back, and sent on.
func writeESK(out io.Writer, res *EncryptResult, write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	h, body, _, err := packet.SplitPacket(b.Bytes(), 0)
	if err != nil {
		return err
	}
	switch h.Tag {
	case packet.TagPKESK:
		p, err := packet.ParsePKESK(body, 0)
		if err != nil {
			return err
		}
		res.PKESKs = append(res.PKESKs, p)
	case packet.TagSKESK:
		s, err := packet.ParseSKESK(body, 0)
		if err != nil {
			return err
		}
		res.SKESKs = append(res.SKESKs, s)
	}
	_, err = out.Write(b.Bytes())
	return err
}

func encrypt(in io.Reader, out io.Writer, opt EncryptOptions, res *EncryptResult) (int64, error) {
	if len(opt.Recipients) == 0 && opt.Passphrase == nil && len(opt.Passphrases) == 0 {
		return 0, errors.New("no recipients and no passphrase: nothing to encrypt to")
	}
	if opt.Cipher == 0 {
		opt.Cipher = packet.CipherAES256
	}
	if !opt.Cipher.IsAES() {
		return 0, fmt.Errorf("cipher %v: pgpstream writes AES128, AES192 or AES256", opt.Cipher)
	}
	if opt.ForceAEAD && opt.Format == SEIPDv1 {
		return 0, errors.New("ForceAEAD with Format SEIPDv1: set Format to Auto, or to SEIPDv2 or AEADv1")
	}
	// From here on the format is the one written, never Auto.
	opt.Format, _ = opt.Negotiate()
	res.Format, res.Cipher, res.AEAD = opt.Format, opt.Cipher, aeadOfFormat(opt)
	var aw io.WriteCloser
	if opt.Armor {
		aw = armor.NewWriter(out, armor.Message, nil)
		out = aw
	}
	head := &headWriter{w: out}
	out = head
	sessionKey := make([]byte, opt.Cipher.KeySize())
	if _, err := rand.Read(sessionKey); err != nil {
		return 0, err
	}
	v6 := opt.Format == SEIPDv2
	for _, r := range opt.Recipients {
		err := writeESK(out, res, func(w io.Writer) error {
			return packet.WritePKESK(w, r.Pub, opt.Cipher, sessionKey, v6, r.Hidden)
		})
		if err != nil {
			return 0, fmt.Errorf("encrypting the session key to %X: %w", r.Pub.Fingerprint, err)
		}
	}
	if opt.SessionKey != nil {
		opt.SessionKey(SessionKeyInfo{Format: opt.Format, AEAD: aeadOfFormat(opt), Cipher: opt.Cipher, SessionKey: sessionKey})
	}
	passphrases := opt.Passphrases
	if opt.Passphrase != nil {
		passphrases = append([][]byte{opt.Passphrase}, passphrases...)
	}
	for _, pass := range passphrases {
		err := writeESK(out, res, func(w io.Writer) error {
			if opt.Format == AEADv1 {
				// LibrePGP pairs tag 20 with SKESK v5, wrapped in the packet's mode.
				return packet.WriteSKESKv5(w, opt.Cipher, aeadMode(opt), sessionKey, pass, opt.S2KCount)
			}
			return packet.WriteSKESK(w, opt.Cipher, sessionKey, pass, v6, opt.S2KCount)
		})
		if err != nil {
			return 0, err
		}
	}
	var enc io.WriteCloser
	switch opt.Format {
	case SEIPDv1:
		w, err := NewMDCWriter(packet.NewPartialWriter(out, packet.TagSEIPD, ChunkSize), opt.Cipher, sessionKey)
		if err != nil {
			return 0, err
		}
		enc = w
	default:
		setup, err := newAEADSetup(opt, sessionKey)
		if err != nil {
			return 0, err
		}
		if opt.Compress == packet.CompressNone && len(opt.Signers) == 0 {
			// Nothing inside but the literal packet: sealed in place.
			n, err := sealPlain(in, out, opt, setup)
			if !errors.Is(err, chunk.ErrNoPieces) {
				return n, finishEncrypt(err, head, aw)
			}
		}
		w, err := newAEADWriter(out, setup, opt.Threads)
		if err != nil {
			return 0, err
		}
		enc = w
	}
	n, err := writePlaintext(in, enc, opt)
	if err != nil {
		return n, err
	}
	if err := enc.Close(); err != nil {
		return n, err
	}
	return n, finishEncrypt(nil, head, aw)
}

// finishEncrypt sends what the head writer still gathers (a short
// message) and ends the armor, after a packet that ended with err.
func finishEncrypt(err error, head *headWriter, aw io.WriteCloser) error {
	if err != nil {
		return err
	}
	if err := head.flush(); err != nil {
		return err
	}
	if aw != nil {
		return aw.Close()
	}
	return nil
}

// headWriter gathers the small writes that open a message (the session
// key packets, written a field at a time, and packet headers) and sends
// them out with the first large write, so a message starts with one
// write(2) instead of six small ones. It copies once, the first write
// only; after that it passes writes through.
type headWriter struct {
	w       io.Writer
	v       iobuf.VectorWriter
	head    []byte
	started bool
}

// headMax is how much is gathered before it goes out anyway.
const headMax = 4 << 10

func (h *headWriter) Write(p []byte) (int, error) {
	if h.started {
		return h.w.Write(p)
	}
	if len(h.head)+len(p) < headMax {
		h.head = append(h.head, p...)
		return len(p), nil
	}
	h.started = true
	buf := make([]byte, 0, len(h.head)+len(p))
	buf = append(append(buf, h.head...), p...)
	k := len(h.head)
	h.head = nil
	n, err := h.w.Write(buf)
	return max(n-k, 0), err
}

// WriteVectors implements iobuf.VectorWriter: what is gathered goes out
// in front of the first vectors, in the same writev(2).
func (h *headWriter) WriteVectors(bufs [][]byte) (int64, error) {
	if h.v == nil {
		h.v = iobuf.Vectors(h.w)
	}
	if h.started {
		return h.v.WriteVectors(bufs)
	}
	h.started = true
	k := int64(len(h.head))
	n, err := h.v.WriteVectors(append([][]byte{h.head}, bufs...))
	h.head = nil
	return max(n-k, 0), err
}

// flush writes what is still gathered (a message shorter than headMax).
func (h *headWriter) flush() error {
	if h.started || len(h.head) == 0 {
		return nil
	}
	h.started = true
	_, err := h.w.Write(h.head)
	h.head = nil
	return err
}

// writePlaintext writes the literal packet, compressed if asked, into enc.
func writePlaintext(in io.Reader, enc io.Writer, opt EncryptOptions) (int64, error) {
	dst := enc
	var comp, compPkt io.WriteCloser
	if opt.Compress != packet.CompressNone {
		pw := packet.NewPartialWriter(enc, packet.TagCompressed, ChunkSize)
		if _, err := pw.Write([]byte{byte(opt.Compress)}); err != nil {
			return 0, err
		}
		level := opt.Level
		if level == 0 {
			level = 6
		}
		c, err := NewCompressor(pw, opt.Compress, level)
		if err != nil {
			return 0, err
		}
		comp, compPkt, dst = c, pw, c
	}
	var sg *signing
	if len(opt.Signers) > 0 {
		var err error
		if sg, err = newSigning(opt.Signers, opt.SignTime, opt.TextSignatures); err != nil {
			return 0, err
		}
		if err := sg.writeOnePass(dst); err != nil {
			return 0, err
		}
		in = sg.reader(in) // hashes the chunks ReadFrom reads, in place
	}
	if ow, ok := dst.(ownedWriter); ok && sg == nil && runtime.GOMAXPROCS(0) > 1 {
		// Nothing between the literal packet and the encryption:
		// read ahead and lend the chunks (see writeLiteralAhead).
		return writeLiteralAhead(in, ow, opt.Literal.Append(nil), ChunkSize)
	}
	lit := packet.NewPartialWriter(dst, packet.TagLiteral, ChunkSize)
	if _, err := lit.Write(opt.Literal.Append(nil)); err != nil {
		return 0, err
	}
	n, err := lit.ReadFrom(in)
	if err != nil {
		return n, readError{err}
	}
	if err := lit.Close(); err != nil {
		return n, err
	}
	if sg != nil {
		if err := sg.writeSignatures(dst); err != nil {
			return n, err
		}
	}
	if comp != nil {
		if err := comp.Close(); err != nil {
			return n, err
		}
		if err := compPkt.Close(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// readError marks a failure reading the plaintext input.
type readError struct{ err error }

func (r readError) Error() string { return "reading the input: " + r.err.Error() }
func (r readError) Unwrap() error { return r.err }

// aeadOfFormat is the AEAD mode of the data packet opt.Format writes, 0
// for SEIPD v1.
func aeadOfFormat(opt EncryptOptions) packet.AEADAlgo {
	if opt.Format == SEIPDv1 {
		return 0
	}
	return aeadMode(opt)
}
