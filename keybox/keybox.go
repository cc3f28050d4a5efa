// Package keybox reads and writes GnuPG's keybox file, pubring.kbx,
// where gpg 2.1 and later keep the public keys of a home directory.
//
// A keybox is a sequence of blobs. The first is a header blob (type 1,
// magic "KBXf"); each OpenPGP blob (type 2) holds one transferable
// public key exactly as OpenPGP packets, the keyblock, together with an
// index gpg searches without parsing it: the fingerprint and key ID of
// the primary key and each subkey, and the offsets of the user IDs. A
// blob ends in a SHA-1 checksum over everything before it (keyboxes
// from before GnuPG 2.1 wrote an MD5 one, left-padded with four zero
// bytes). X.509 blobs (gpgsm's certificates), empty blobs (what gpg
// leaves where it deleted a key) and ephemeral blobs (kept while
// searching a key server) hold no key of the home and are skipped.
//
// The format is described in GnuPG's kbx/keybox-blob.c. All integers are
// big-endian; every offset counts from the start of its blob.
//
// Writing (write.go) encodes blobs as gpg does, byte for byte.
package keybox

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/pgpstream/pgpstream/internal/bounded"
	"github.com/pgpstream/pgpstream/packet"
)

// Blob types (byte 4 of every blob).
const (
	typeEmpty   = 0
	typeHeader  = 1
	typeOpenPGP = 2
	typeX509    = 3
)

// Blob flags.
const (
	flagSecret    = 1 << 0 // never set by gpg 2.1+: secret keys live in the agent
	flagEphemeral = 1 << 1
)

// Sizes of the fixed parts, from keybox-blob.c.
const (
	headerBlobLen = 32     // the first blob as gpg writes it
	minBlobLen    = 4 + 4  // length, type, version, flags
	checksumLen   = 20     // SHA-1 at the end of a blob
	keyInfoMin    = 20 + 8 // fingerprint, key ID offset, flags, RFU
	uidInfoMin    = 4 + 4 + 4
	maxBlobLen    = 5 << 20 // gpg refuses blobs over 5 MB (keybox-file.c)
)

// ErrMalformed is wrapped by every error about the bytes of a keybox.
var ErrMalformed = errors.New("malformed keybox")

// FormatError says where a keybox is malformed.
type FormatError struct {
	Offset int64 // of the blob in the file
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("keybox: blob at offset %d: %s", e.Offset, e.Msg)
}
func (e *FormatError) Unwrap() error { return ErrMalformed }

// Header is the first blob of a keybox.
type Header struct {
	Version     byte
	Flags       uint16 // bit 1: used for OpenPGP blobs
	Created     uint32 // file creation time, Unix seconds
	Maintenance uint32 // last maintenance run, Unix seconds
}

// Key is one key of a blob's index: the primary key first, then the
// subkeys in keyblock order.
type Key struct {
	// Fingerprint is the v4 fingerprint (20 bytes); a v3 key's 16-byte
	// fingerprint is stored left-padded with zeroes.
	Fingerprint [20]byte
	KeyID       uint64
	Flags       uint16
}

// UserID is one user ID of a blob's index.
type UserID struct {
	Name     []byte // the user ID packet's body, as stored in the keyblock
	Flags    uint16
	Validity byte
}

// Blob is one OpenPGP blob.
type Blob struct {
	Offset   int64 // in the file
	Version  byte
	Flags    uint16
	Keys     []Key
	UserIDs  []UserID
	Sigs     []uint32 // per signature: expiry or status (unused by gpg since 2.1.20)
	Created  uint32   // when the blob was written, Unix seconds
	Keyblock []byte   // the OpenPGP packets, gpg's ring-trust packets included
}

// File is a parsed keybox.
type File struct {
	Header Header
	Blobs  []*Blob // OpenPGP blobs only, in file order
	// Skipped counts blobs that hold no key of this home: empty
	// (deleted), X.509 and ephemeral blobs.
	Skipped int
}

// ReadFile reads and parses the keybox at path, bounded.KeyData at most.
// As Parse does, it returns the blobs before a damaged one together with
// the error that says where.
func ReadFile(path string) (*File, error) {
	data, err := bounded.ReadFile(path, bounded.KeyData)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Parse parses a whole keybox. An empty input is an empty keybox (gpg
// creates pubring.kbx on first use). Every blob's checksum is checked.
// Parsing stops at the first blob that is not right (the file cut
// short, bytes appended, a blob changed): the error is a *FormatError
// with that blob's offset, and the File returned with it holds the
// blobs before, which a reader may use as gpg does.
func Parse(data []byte) (*File, error) {
	f := &File{}
	for off := 0; off < len(data); {
		if len(data)-off < minBlobLen {
			return f, &FormatError{int64(off), fmt.Sprintf("%d bytes left, less than a blob header", len(data)-off)}
		}
		n := int(binary.BigEndian.Uint32(data[off:]))
		switch {
		case n < minBlobLen:
			return f, &FormatError{int64(off), fmt.Sprintf("blob length %d is less than its header", n)}
		case n > maxBlobLen:
			return f, &FormatError{int64(off), fmt.Sprintf("blob length %d is over gpg's limit of %d", n, maxBlobLen)}
		case n > len(data)-off:
			return f, &FormatError{int64(off), fmt.Sprintf("blob of %d bytes, only %d left in the file", n, len(data)-off)}
		}
		raw := data[off : off+n : off+n]
		typ := raw[4]
		if off == 0 {
			if typ != typeHeader {
				return f, &FormatError{0, fmt.Sprintf("first blob is of type %d, not the header blob (1)", typ)}
			}
			h, err := parseHeader(raw)
			if err != nil {
				return f, err
			}
			f.Header = h
			off += n
			continue
		}
		switch typ {
		case typeOpenPGP:
			b, err := parseBlob(raw, int64(off))
			if err != nil {
				return f, err
			}
			if b == nil {
				f.Skipped++
			} else {
				f.Blobs = append(f.Blobs, b)
			}
		case typeEmpty, typeX509:
			f.Skipped++
		case typeHeader:
			return f, &FormatError{int64(off), "a second header blob"}
		default:
			return f, &FormatError{int64(off), fmt.Sprintf("unknown blob type %d", typ)}
		}
		off += n
	}
	return f, nil
}

func parseHeader(raw []byte) (Header, error) {
	if len(raw) < headerBlobLen {
		return Header{}, &FormatError{0, fmt.Sprintf("header blob of %d bytes, gpg writes %d", len(raw), headerBlobLen)}
	}
	if string(raw[8:12]) != "KBXf" {
		return Header{}, &FormatError{0, fmt.Sprintf("header magic %q, want \"KBXf\"", raw[8:12])}
	}
	if raw[5] != 1 {
		return Header{}, &FormatError{0, fmt.Sprintf("header blob version %d, this reader knows 1", raw[5])}
	}
	return Header{
		Version:     raw[5],
		Flags:       binary.BigEndian.Uint16(raw[6:]),
		Created:     binary.BigEndian.Uint32(raw[16:]),
		Maintenance: binary.BigEndian.Uint32(raw[20:]),
	}, nil
}

// cursor reads the big-endian fields of one blob, remembering the first
// overrun so the parser checks once per section.
type cursor struct {
	b   []byte
	pos int
	bad bool
}

func (c *cursor) take(n int) []byte {
	if c.bad || n < 0 || n > len(c.b)-c.pos {
		c.bad = true
		return nil
	}
	p := c.b[c.pos : c.pos+n]
	c.pos += n
	return p
}

func (c *cursor) u8() byte {
	if p := c.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (c *cursor) u16() int {
	if p := c.take(2); p != nil {
		return int(binary.BigEndian.Uint16(p))
	}
	return 0
}

func (c *cursor) u32() uint32 {
	if p := c.take(4); p != nil {
		return binary.BigEndian.Uint32(p)
	}
	return 0
}

// parseBlob parses one OpenPGP blob; nil, nil for one to skip.
func parseBlob(raw []byte, off int64) (*Blob, error) {
	bad := func(format string, a ...any) error { return &FormatError{off, fmt.Sprintf(format, a...)} }
	if len(raw) < minBlobLen+8+checksumLen {
		return nil, bad("OpenPGP blob of %d bytes is too short", len(raw))
	}
	if err := checkSum(raw); err != nil {
		return nil, &FormatError{off, err.Error()}
	}
	body := raw[:len(raw)-checksumLen]
	c := &cursor{b: body, pos: 5}
	b := &Blob{Offset: off, Version: c.u8(), Flags: uint16(c.u16())}
	if b.Version != 1 {
		// gpg 2.2 writes version 1 only. A later layout may widen the
		// index; the keyblock itself is what matters, but without
		// knowing the layout it cannot be found safely.
		return nil, bad("OpenPGP blob version %d, this reader knows 1", b.Version)
	}
	if b.Flags&flagEphemeral != 0 {
		return nil, nil
	}
	kbOff, kbLen := c.u32(), c.u32()
	if uint64(kbOff)+uint64(kbLen) > uint64(len(body)) {
		return nil, bad("keyblock at %d+%d runs past the blob's %d bytes", kbOff, kbLen, len(body))
	}
	b.Keyblock = body[kbOff : kbOff+kbLen : kbOff+kbLen]

	nkeys, keySize := c.u16(), c.u16()
	if c.bad {
		return nil, bad("truncated in the key index")
	}
	if nkeys == 0 {
		return nil, bad("no keys in the index (at least one is required)")
	}
	if keySize < keyInfoMin {
		return nil, bad("key information of %d bytes, at least %d required", keySize, keyInfoMin)
	}
	b.Keys = make([]Key, 0, min(nkeys, len(body)/keyInfoMin))
	for i := 0; i < nkeys; i++ {
		ki := c.take(keySize)
		if ki == nil {
			return nil, bad("truncated in key %d of %d", i+1, nkeys)
		}
		var k Key
		copy(k.Fingerprint[:], ki[:20])
		kidOff := binary.BigEndian.Uint32(ki[20:])
		k.Flags = binary.BigEndian.Uint16(ki[24:])
		if kidOff != 0 {
			if uint64(kidOff)+8 > uint64(len(body)) {
				return nil, bad("key %d's key ID offset %d is outside the blob", i+1, kidOff)
			}
			k.KeyID = binary.BigEndian.Uint64(body[kidOff:])
		}
		b.Keys = append(b.Keys, k)
	}
	c.take(c.u16()) // serial number: X.509 only
	nuids, uidSize := c.u16(), c.u16()
	if c.bad {
		return nil, bad("truncated before the user ID index")
	}
	if nuids > 0 && uidSize < uidInfoMin {
		return nil, bad("user ID information of %d bytes, at least %d required", uidSize, uidInfoMin)
	}
	for i := 0; i < nuids; i++ {
		ui := c.take(uidSize)
		if ui == nil {
			return nil, bad("truncated in user ID %d of %d", i+1, nuids)
		}
		uo, ul := binary.BigEndian.Uint32(ui), binary.BigEndian.Uint32(ui[4:])
		if uint64(uo)+uint64(ul) > uint64(len(body)) {
			return nil, bad("user ID %d at %d+%d is outside the blob", i+1, uo, ul)
		}
		b.UserIDs = append(b.UserIDs, UserID{
			Name:     body[uo : uo+ul : uo+ul],
			Flags:    binary.BigEndian.Uint16(ui[8:]),
			Validity: ui[10],
		})
	}
	nsigs, sigSize := c.u16(), c.u16()
	if nsigs > 0 && sigSize < 4 {
		return nil, bad("signature information of %d bytes, at least 4 required", sigSize)
	}
	for i := 0; i < nsigs && !c.bad; i++ {
		if si := c.take(sigSize); si != nil {
			b.Sigs = append(b.Sigs, binary.BigEndian.Uint32(si))
		}
	}
	c.take(4) // ownertrust, all-validity, RFU
	c.take(8) // recheck-after, newest timestamp
	b.Created = c.u32()
	c.take(int(c.u32())) // reserved space
	if c.bad {
		return nil, bad("truncated in its fixed fields")
	}
	if err := checkKeyblock(b); err != nil {
		return nil, &FormatError{off, err.Error()}
	}
	return b, nil
}

// checkSum checks the SHA-1 (or, for keyboxes older than GnuPG 2.1, the
// zero-padded MD5) over everything before the last 20 bytes.
func checkSum(raw []byte) error {
	data, sum := raw[:len(raw)-checksumLen], raw[len(raw)-checksumLen:]
	s := sha1.Sum(data)
	if bytes.Equal(s[:], sum) {
		return nil
	}
	if bytes.Equal(sum[:4], []byte{0, 0, 0, 0}) {
		m := md5.Sum(data)
		if bytes.Equal(m[:], sum[4:]) {
			return nil
		}
	}
	return errors.New("checksum mismatch: the blob was changed or damaged")
}

// checkKeyblock checks that the keyblock is whole OpenPGP packets and
// begins with a public key whose fingerprint is the index's first.
func checkKeyblock(b *Blob) error {
	rest := b.Keyblock
	if len(rest) == 0 {
		return errors.New("empty keyblock")
	}
	first := true
	for len(rest) > 0 {
		h, body, r, err := packet.SplitPacket(rest, int64(len(b.Keyblock)-len(rest)))
		if err != nil {
			return fmt.Errorf("keyblock: %v", err)
		}
		if first {
			if h.Tag != packet.TagPublicKey {
				return fmt.Errorf("keyblock begins with a %s packet, not a public key", h.Tag)
			}
			if fp := v4Fingerprint(body); fp != nil && !bytes.Equal(fp, b.Keys[0].Fingerprint[:]) {
				return fmt.Errorf("index fingerprint %X is not the keyblock's primary key %X", b.Keys[0].Fingerprint, fp)
			}
			first = false
		}
		rest = r
	}
	return nil
}

// v4Fingerprint is RFC 4880 §12.2's fingerprint of a v4 key packet's
// body, nil for other versions (the index pads v3 ones, and a v5/v6 key
// has a 32-byte fingerprint that version 1 blobs cannot hold).
func v4Fingerprint(body []byte) []byte {
	if !v4KeyBody(body) {
		return nil
	}
	h := sha1.New()
	h.Write([]byte{0x99, byte(len(body) >> 8), byte(len(body))})
	h.Write(body)
	return h.Sum(nil)
}

// v4KeyBody reports whether body is a key packet body v4Fingerprint
// hashes: version 4, and short enough for the two-octet length the hash
// frames it with.
func v4KeyBody(body []byte) bool {
	return len(body) > 0 && body[0] == 4 && len(body) <= 0xffff
}

// Packets returns the keyblock without gpg's ring-trust packets (tag 12),
// which are local to gpg's own keyrings: what gpg --export writes.
func (b *Blob) Packets() []byte {
	out := make([]byte, 0, len(b.Keyblock))
	rest := b.Keyblock
	for len(rest) > 0 {
		h, _, r, err := packet.SplitPacket(rest, 0)
		if err != nil {
			break // checked when the blob was parsed
		}
		if h.Tag != packet.TagTrust {
			out = append(out, rest[:len(rest)-len(r)]...)
		}
		rest = r
	}
	return out
}
