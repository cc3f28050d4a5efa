package filter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

// Keys gives Decrypt what it needs to recover a session key.
type Keys interface {
	// DecryptionKeys returns the secret keys that may open p: the one it
	// names, or every decryption key for a hidden recipient.
	DecryptionKeys(p *packet.PKESK) []*gcpacket.PrivateKey
	// Unlock makes priv usable, decrypting it with a passphrase if needed.
	Unlock(priv *gcpacket.PrivateKey) error
	// Passphrase returns the passphrase for symmetric encryption, or an
	// error saying why there is none.
	Passphrase() ([]byte, error)
}

// PassphraseKeys is Keys with several passphrases to try, as the
// Stateless OpenPGP CLI takes any number of --with-password: Decrypt
// tries each, in order, against each SKESK instead of Passphrase's one.
type PassphraseKeys interface {
	Keys
	Passphrases() ([][]byte, error)
}

// DecryptOptions configure Decrypt.
type DecryptOptions struct {
	Keys Keys
	// AllowUnprotected reads Symmetrically Encrypted Data (tag 9), which
	// has no integrity protection. Off by default: such plaintext can have
	// been modified by anyone.
	AllowUnprotected bool
	// MaxDecompressed bounds the output of compressed packets (0: none).
	MaxDecompressed int64
	// Events, when set, is told what Decrypt finds, as it finds it.
	Events Events
	// Threads is how many AEAD chunks are opened at once (0: GOMAXPROCS).
	Threads int
	// Signers finds the keys that check signatures; nil checks none
	// (every signature is then reported as by an unknown key).
	Signers SignerKeys
	// LegacyLiteralHash hashes literal data that no one-pass signature
	// announced with SHA-1 and RIPEMD-160, so that a signature after it
	// (old GnuPG's literal-then-signature form, which RFC 2440 never
	// allowed) can be checked. Off, such a signature is reported as not
	// checked and no hash runs over unsigned messages.
	LegacyLiteralHash bool
	// AllowWeakDigests checks SHA-1 signatures made after SHA1Cutoff
	// instead of refusing them (gpg's --allow-weak-digest-algos).
	AllowWeakDigests bool
	// RejectHashes are hashes whose signatures prove nothing
	// (SigRejected), gpg's --weak-digest.
	RejectHashes map[packet.HashAlgo]bool
	// Time is when the verification happens, for the expiry and
	// revocation of signatures and keys; zero is clock.Now().
	Time time.Time
	// SessionKey, when set, is the session key to decrypt with (gpg's
	// --override-session-key): no PKESK or SKESK is opened. The
	// authentication rules are the same as for a recovered key.
	SessionKey *GivenSessionKey
	// Unwrap writes what the encrypted data packet holds, the packets
	// of the signed (or compressed) message inside it, as they are,
	// instead of its literal data: gpg's --unwrap, whose output a later
	// verification reads. Nothing inside is parsed, decompressed or
	// verified; the encryption's integrity check is made as always. A
	// message that is not encrypted is read as without Unwrap.
	Unwrap bool
	// UnwrapArmor writes the unwrapped packets as an armored PGP
	// MESSAGE (gpg's --unwrap --armor).
	UnwrapArmor bool
}

// GivenSessionKey is a session key given from outside the message.
type GivenSessionKey struct {
	// Cipher is the cipher of SEIPD v1 and SED data. The AEAD packets
	// name their own; a given Cipher must then match it.
	Cipher packet.CipherAlgo
	Key    []byte
}

// MaxNesting bounds how deep packets may nest (compressed inside
// compressed ...): real messages nest one or two levels; deeper nesting is
// only ever an attack on the parser's stack or on the decompressor.
const MaxNesting = 4

// Events receives what Decrypt learns. Every method is called at most
// once per message except Warning and Signature.
type Events interface {
	PKESK(p *packet.PKESK) // each session key packet as it is read, before any is tried (gpg's ENC_TO)
	SKESK(s *packet.SKESK)
	SessionKey(s SessionKeyInfo) // the session key was recovered; decryption starts
	Literal(l packet.Literal)
	Verified() // the integrity check (MDC or final AEAD tag) passed
	// Signature reports one signature's check, once per signature, after
	// the whole message has been read and authenticated.
	Signature(r SignatureResult)
	Warning(w Warning)
}

// SessionKeyInfo says how a message is encrypted and what opened it.
type SessionKeyInfo struct {
	Format Format            // the encrypted data packet
	AEAD   packet.AEADAlgo   // SEIPDv2 and AEADv1; 0 otherwise
	Cipher packet.CipherAlgo // the data packet's cipher
	// The session key came from exactly one of PKESK (opened with the
	// secret key Key) or SKESK (opened with the passphrase).
	PKESK *packet.PKESK
	Key   *gcpacket.PrivateKey
	SKESK *packet.SKESK
	// Given is set when the key was DecryptOptions.SessionKey.
	Given bool
	// SessionKey is the session key itself (gpg's --show-session-key).
	SessionKey []byte
}

// Mode names the encryption as a person reads it: "SEIPD v1",
// "SEIPD v2 OCB", "AEAD (tag 20) EAX", "SED (no integrity protection)".
func (s SessionKeyInfo) Mode() string {
	switch s.Format {
	case SEIPDv2, AEADv1:
		return s.Format.String() + " " + s.AEAD.String()
	case SED:
		return "SED (no integrity protection)"
	}
	return s.Format.String()
}

// From names where the session key came from: "PKESK v3 to <key ID>",
// "SKESK v4".
func (s SessionKeyInfo) From() string {
	switch {
	case s.PKESK != nil && s.Key != nil:
		return fmt.Sprintf("PKESK v%d to %016X", s.PKESK.Version, s.Key.KeyId)
	case s.SKESK != nil:
		return fmt.Sprintf("SKESK v%d", s.SKESK.Version)
	case s.Given:
		return "the given session key"
	}
	return "nowhere"
}

// ReleasesAuthenticated reports whether f releases plaintext only after
// authenticating it: the AEAD packets, chunk by chunk. SEIPD v1 releases
// plaintext that only the MDC at the end will vouch for; SED has nothing
// to vouch for it at all.
func (f Format) ReleasesAuthenticated() bool {
	return f == SEIPDv2 || f == AEADv1
}

// WarningKind names a warning, so a caller can choose which to show
// without reading its text.
type WarningKind int

const (
	WarnNotEncrypted WarningKind = iota + 1 // a signed or plain message, read with nothing to decrypt
	WarnUnprotected                         // SED: nothing checks the plaintext's integrity
)

// Warning is something the user should know that does not stop Decrypt.
type Warning struct {
	Kind WarningKind
	Msg  string
}

func (w Warning) String() string { return w.Msg }

var (
	warnNotEncrypted = Warning{WarnNotEncrypted, "the message is not encrypted"}
	warnUnprotected  = Warning{WarnUnprotected, "the message has no integrity protection: its contents may have been modified"}
)

// Result describes a decrypted message. Its SessionKeyInfo is the zero
// value when the message was not encrypted.
type Result struct {
	Encrypted bool
	SessionKeyInfo
	Literal packet.Literal
	Bytes   int64 // literal data written
	// Signatures are the signatures found, in the order they were read.
	Signatures []SignatureResult
	// Hashes lists every signature hash that ran over the literal data,
	// in the order they were started (the MDC's SHA-1 is not one of them).
	Hashes []packet.HashAlgo
}

type nopEvents struct{}

func (nopEvents) PKESK(*packet.PKESK)       {}
func (nopEvents) SKESK(*packet.SKESK)       {}
func (nopEvents) SessionKey(SessionKeyInfo) {}
func (nopEvents) Literal(packet.Literal)    {}
func (nopEvents) Verified()                 {}
func (nopEvents) Signature(SignatureResult) {}
func (nopEvents) Warning(Warning)           {}

// maxSmallPacket bounds the packets parsed in memory (session keys,
// signatures): the largest real ones, post-quantum PKESKs, are under 2 KiB.
const maxSmallPacket = 64 << 10

type decryptor struct {
	opt      DecryptOptions
	out      io.Writer
	res      *Result
	pkesks   []*packet.PKESK
	skesks   []*packet.SKESK
	literals int
	// unwrapped is set once an encrypted packet's contents were
	// written whole (DecryptOptions.Unwrap).
	unwrapped bool
	// complete is set once the message's data packet (encrypted,
	// literal or compressed) has been read: see continues.
	complete  bool
	onePasses int  // one-pass signature packets read
	armored   bool // the packets are an armored block's, for offsets in errors
	warned    map[WarningKind]bool
	sigs      verifier
	// accept, while set, vets a session key before sessionKey returns
	// it (see there).
	accept func(key []byte, c packet.CipherAlgo) bool
}

func (d *decryptor) warn(w Warning) {
	if d.warned == nil {
		d.warned = map[WarningKind]bool{}
	}
	if !d.warned[w.Kind] {
		d.warned[w.Kind] = true
		d.opt.Events.Warning(w)
	}
}

// begin records how the message is encrypted, and with which key, and
// announces it.
func (d *decryptor) begin(s SessionKeyInfo, key []byte) {
	s.SessionKey = key
	d.res.Encrypted, d.res.SessionKeyInfo = true, s
	d.opt.Events.SessionKey(s)
}

// top walks the outer packets of one message: session keys, then one
// encrypted packet; or a plain message's packets. It stops at the end of
// the input or before the first packet that is not part of the message.
func (d *decryptor) top(r iobuf.Reader) error {
	seen := 0
	for {
		if d.complete && !d.continues(r) {
			return d.ended(seen)
		}
		h, err := packet.ReadHeader(r)
		if err == io.EOF {
			return d.ended(seen)
		}
		if err != nil {
			return err
		}
		seen++
		body := packet.NewBody(r, h)
		switch h.Tag {
		case packet.TagPKESK:
			b, err := body.ReadAll(maxSmallPacket)
			if err != nil {
				return err
			}
			p, err := packet.ParsePKESK(b, h.Offset)
			if err != nil {
				return err
			}
			d.pkesks = append(d.pkesks, p)
			d.opt.Events.PKESK(p)
		case packet.TagSKESK:
			b, err := body.ReadAll(maxSmallPacket)
			if err != nil {
				return err
			}
			s, err := packet.ParseSKESK(b, h.Offset)
			if err != nil {
				return err
			}
			d.skesks = append(d.skesks, s)
			d.opt.Events.SKESK(s)
		case packet.TagMarker, packet.TagPadding:
			if err := body.Discard(); err != nil {
				return err
			}
		case packet.TagSEIPD:
			if err := d.seipd(body, h); err != nil {
				return err
			}
			d.complete = true
		case packet.TagAEAD:
			if err := d.aead(body, h); err != nil {
				return err
			}
			d.complete = true
		case packet.TagSED:
			if err := d.sed(body, h); err != nil {
				return err
			}
			d.complete = true
		case packet.TagLiteral, packet.TagCompressed, packet.TagOnePassSignature, packet.TagSignature:
			if len(d.pkesks)+len(d.skesks) > 0 {
				return &packet.StructuralError{Packet: h.Tag.String(), Offset: h.Offset, Msg: "unencrypted data next to encrypted data"}
			}
			d.warn(warnNotEncrypted)
			// A plain (signed or compressed) message: its packets are
			// read like the contents of an encrypted one.
			if err := d.plainPacket(r, h, body, 0); err != nil {
				return err
			}
			if h.Tag == packet.TagLiteral || h.Tag == packet.TagCompressed {
				d.complete = true
			}
		case packet.TagPublicKey, packet.TagSecretKey:
			return fmt.Errorf("the input is a key, not a message (use --import)")
		default:
			return &packet.StructuralError{Packet: h.Tag.String(), Offset: h.Offset, Msg: "unexpected packet in a message"}
		}
	}
}

// ended checks a message that ended after seen packets.
func (d *decryptor) ended(seen int) error {
	if seen == 0 {
		return errors.New("no OpenPGP packets found in the input")
	}
	if d.literals == 0 && !d.unwrapped {
		return errors.New("no encrypted data or literal data found: nothing to decrypt")
	}
	return nil
}

// continues reports whether the packet r is at, after the message's
// data, still belongs to the message. Markers and padding do, being
// ignored anywhere. A signature does while a one-pass packet waits for
// it (RFC 9580 §10.3 closes each with one signature after the data), and
// in old GnuPG's literal-then-signature form, which has nothing before
// the data; any other signature begins the next message.
func (d *decryptor) continues(r iobuf.Reader) bool {
	buf, _ := r.Peek(6) // the longest header
	h, more, err := packet.ParseHeader(buf, -1)
	if err != nil || more > 0 {
		return false
	}
	switch h.Tag {
	case packet.TagMarker, packet.TagPadding:
		return true
	case packet.TagSignature:
		return !d.res.Encrypted && (len(d.sigs.ops) > 0 || d.onePasses == 0 && len(d.sigs.pre) == 0)
	}
	return false
}

// seipd decrypts a SEIPD packet.
func (d *decryptor) seipd(body *packet.Body, h packet.Header) error {
	s, err := packet.ReadSEIPD(body, h.Offset)
	if err != nil {
		return err
	}
	switch s.Version {
	case 1:
		d.accept = func(key []byte, c packet.CipherAlgo) bool { return quickCheck(body, c, key) }
		key, c, info, err := d.sessionKey(false)
		d.accept = nil
		if err != nil {
			return err
		}
		info.Format, info.Cipher = SEIPDv1, c
		d.begin(info, key)
		m, err := NewMDCReader(body, c, key)
		if err != nil {
			return err
		}
		return d.inside(m, body)
	case 2:
		return d.seipdV2(body, s)
	}
	return &packet.UnsupportedError{Packet: "SEIPD", Offset: h.Offset, What: "version"}
}

// inside reads the decrypted packets from plain and checks that the
// encrypted packet ended where its contents did, with its integrity check
// passed.
func (d *decryptor) inside(plain iobuf.Reader, body *packet.Body) error {
	if d.opt.Unwrap {
		if err := d.unwrap(plain); err != nil {
			return err
		}
		d.opt.Events.Verified()
		return nil
	}
	err := d.plainPackets(plain, 1)
	if err != nil {
		if errors.Is(err, ErrAuthentication) {
			return ErrAuthentication
		}
		var we writeError
		if errors.As(err, &we) {
			return we.err
		}
		if errors.Is(err, ErrTooMuchOutput) {
			// A limit the user set, not a property of the data.
			return err
		}
		// Something inside did not parse. Finish the integrity check
		// first: tampering must be reported as tampering, and a parse
		// error in authenticated data as one generic error.
		if derr := iobuf.Discard(plain); derr != nil {
			// The encrypted packet itself is broken: truncated, or
			// failed its check. Neither depends on the plaintext.
			return derr
		}
		return ErrMalformed
	}
	if buf, err := plain.Peek(1); len(buf) > 0 || !errors.Is(err, io.EOF) {
		if err != nil && !errors.Is(err, io.EOF) {
			if errors.Is(err, ErrAuthentication) {
				return ErrAuthentication
			}
			return err
		}
		if derr := iobuf.Discard(plain); derr != nil {
			return derr
		}
		return ErrMalformed
	}
	if d.literals == 0 {
		// Authenticated, but with nothing to decrypt to.
		return ErrMalformed
	}
	d.opt.Events.Verified()
	return nil
}

// unwrap writes the decrypted packets of plain, as they are, up to the
// end of the encrypted packet, where its integrity check is made: the
// MDC of SEIPD v1 and SED's nothing at the end, each AEAD chunk's tag
// before the chunk is released. So for SEIPD v1, as for its literal
// data, what is written is authenticated only when this returns nil:
// the caller holds it back until then. Copies per byte: none beyond the
// decryption's, the output is handed the decrypted buffers (+ 1 for
// the armor's base64).
func (d *decryptor) unwrap(plain iobuf.Reader) error {
	out := d.out
	var aw *armor.Writer
	if d.opt.UnwrapArmor {
		aw = armor.NewWriter(markWrites{out}, "PGP MESSAGE", nil)
		out = aw
	}
	n, err := copyOut(out, plain)
	d.res.Bytes = n
	if err == nil && aw != nil {
		err = aw.Close()
	}
	if err != nil {
		var we writeError
		switch {
		case errors.As(err, &we):
			return we.err
		case errors.Is(err, ErrAuthentication):
			return ErrAuthentication
		}
		return err
	}
	d.unwrapped = true
	return nil
}

// writeError marks a failure of the output, so it is not mistaken for bad input.
type writeError struct{ err error }

func (w writeError) Error() string { return w.err.Error() }
func (w writeError) Unwrap() error { return w.err }

// plainPackets reads the packets of a plaintext stream: literal data,
// compressed data, signatures.
func (d *decryptor) plainPackets(r iobuf.Reader, depth int) error {
	for {
		h, err := packet.ReadHeader(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := d.plainPacket(r, h, packet.NewBody(r, h), depth); err != nil {
			return err
		}
	}
}

func (d *decryptor) plainPacket(r iobuf.Reader, h packet.Header, body *packet.Body, depth int) error {
	switch h.Tag {
	case packet.TagLiteral:
		if d.literals++; d.literals > 1 {
			return &packet.StructuralError{Packet: "literal data", Offset: h.Offset, Msg: "a second literal data packet; a message has one"}
		}
		l, err := packet.ReadLiteral(body, h.Offset)
		if err != nil {
			return err
		}
		l.Length = -1
		if h.Kind == packet.Definite {
			l.Length = h.Length - int64(6+len(l.FileName)) // format, name length, name, time
		}
		d.res.Literal = l
		d.opt.Events.Literal(l)
		out := d.out
		var text *textWriter
		if l.Format == 't' || l.Format == 'u' {
			text = &textWriter{dst: out}
			out = text
		}
		// Signatures hash the data as sent, before line endings change.
		n, err := copyOut(d.sigs.literal(out), body)
		d.res.Bytes = n
		if err == nil && text != nil {
			if ferr := text.flush(); ferr != nil {
				err = writeError{ferr}
			}
		}
		return err
	case packet.TagCompressed:
		if depth >= MaxNesting {
			return &packet.StructuralError{Packet: "compressed data", Offset: h.Offset, Msg: fmt.Sprintf("packets nested more than %d deep", MaxNesting)}
		}
		buf, err := body.Peek(1)
		if len(buf) < 1 {
			if err == nil || errors.Is(err, io.EOF) {
				err = &packet.TruncatedError{Packet: "compressed data", Offset: h.Offset, Want: "the algorithm octet"}
			}
			return err
		}
		algo := packet.CompressionAlgo(buf[0])
		body.Consume(1)
		dc, err := NewDecompressor(body, algo, d.opt.MaxDecompressed)
		if err != nil {
			return err
		}
		defer dc.Close()
		if err := d.plainPackets(dc, depth+1); err != nil {
			return err
		}
		// Whatever follows the compressed stream inside its packet is
		// not part of it; read it off so the next packet starts right.
		if err := body.Discard(); err != nil {
			return err
		}
		if n := afterStream(dc); n > 0 && depth == 0 && h.Kind == packet.Indeterminate {
			// A packet of indeterminate length runs to the end of the
			// input (gpg -s writes one), so whatever was appended to
			// the message ends up in it, and would be dropped unseen.
			return &TrailingError{What: fmt.Sprintf("%d bytes after the compressed data that runs to the end of the input", n),
				Offset: offsetOf(r) - n, InArmor: d.armored}
		}
		return nil
	case packet.TagOnePassSignature:
		d.onePasses++
		return d.sigs.onePass(body, h)
	case packet.TagSignature:
		return d.sigs.signature(body, h)
	case packet.TagMarker, packet.TagPadding:
		return body.Discard()
	}
	return &packet.StructuralError{Packet: h.Tag.String(), Offset: h.Offset, Msg: "unexpected packet inside a message"}
}

// afterStream is how many bytes of a compressed packet's body followed
// its compressed stream.
func afterStream(dc Decompressor) int64 {
	if l, ok := dc.(*limitReader); ok {
		dc = l.Decompressor
	}
	if s, ok := dc.(*stream); ok {
		return s.dropped
	}
	return 0
}

// offsetOf is how far r is into its stream, -1 when it cannot tell.
func offsetOf(r iobuf.Reader) int64 {
	if b, ok := r.(interface{ Offset() int64 }); ok {
		return b.Offset()
	}
	return -1
}

// copyOut streams a literal body to out, marking write failures so they
// are reported as such.
func copyOut(out io.Writer, body iobuf.Reader) (int64, error) {
	if ow, ok := out.(iobuf.OwnedWriter); ok {
		// A writer on its own goroutine is lent the verified buffers.
		return iobuf.WriteTo(body, ownedMarks{markWrites{out}, ow})
	}
	return iobuf.WriteTo(body, markWrites{out})
}

// ownedMarks is markWrites for an output that takes lent buffers.
type ownedMarks struct {
	markWrites
	ow iobuf.OwnedWriter
}

func (m ownedMarks) WriteOwned(p []byte, release func()) error {
	if err := m.ow.WriteOwned(p, release); err != nil {
		return writeError{err}
	}
	return nil
}

func (m ownedMarks) Wait() error {
	if err := m.ow.Wait(); err != nil {
		return writeError{err}
	}
	return nil
}

// markWrites wraps the output's errors in writeError.
type markWrites struct{ w io.Writer }

func (m markWrites) Write(p []byte) (int, error) {
	n, err := m.w.Write(p)
	if err != nil {
		err = writeError{err}
	}
	return n, err
}

// inputReader buffers a message's input. A regular file is read ahead
// on a goroutine of its own when there is a second core, so that the
// kernel's copies out of the page cache overlap the decryption; other
// inputs (pipes, terminals, sockets) are read only as far as the message
// needs, as gpg reads them.
func inputReader(in io.Reader) iobuf.Reader {
	if f, ok := in.(*os.File); ok && runtime.GOMAXPROCS(0) > 1 {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			return iobuf.NewAhead(f)
		}
	}
	return iobuf.NewReader(in, iobuf.DefaultSize)
}

func closeInput(r iobuf.Reader) {
	if a, ok := r.(*iobuf.Ahead); ok {
		a.Close()
	}
}

// openStream buffers in and, when it starts with ASCII armor, decodes it.
// An empty input is the error named by empty.
// armoredAfterText reports whether input that cannot be binary OpenPGP
// (bit 7 of its first octet is clear, RFC 9580 section 4.2) has an armor
// header line further on: gpg skips text before it, and old messages
// (GnuPG's own test files among them) carry a note above the armor. Only
// the first 32 KiB are searched, as far as gpg's first buffer reaches.
func armoredAfterText(src iobuf.Reader, head []byte) bool {
	if head[0]&0x80 != 0 {
		return false
	}
	buf, _ := src.Peek(32 << 10)
	return bytes.Contains(buf, []byte("\n-----BEGIN PGP "))
}

func openStream(in io.Reader, size int, empty string) (iobuf.Reader, error) {
	src, ok := in.(iobuf.Reader)
	if !ok {
		src = iobuf.NewReader(in, size)
	}
	head, err := src.Peek(64)
	if len(head) == 0 {
		if err == nil || errors.Is(err, io.EOF) {
			return nil, errors.New(empty)
		}
		return nil, err
	}
	if !armor.IsArmored(head) && !armoredAfterText(src, head) {
		return src, nil
	}
	ar, err := armor.NewReader(src)
	if err != nil {
		return nil, err
	}
	return iobuf.NewReader(ar, size), nil
}
