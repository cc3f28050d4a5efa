package keybox

import (
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/pgpstream/pgpstream/packet"
)

// Writing follows what gpg 2.2 and 2.4 write for v4 keys
// (kbx/keybox-blob.c): a version 1 OpenPGP blob whose index lists the
// fingerprint of the primary key and of each subkey, with the key ID
// offset pointing at the fingerprint's last eight bytes; the user ID
// packets' bodies by offset and length into the keyblock; one zero
// status word per signature packet (gpg stopped using them in 2.1.20);
// no serial number, ownertrust, validity or reserved space; the keyblock;
// and the SHA-1 of all before it. A file is the 32-byte header blob
// followed by such blobs. The file's lock, its temporary name and its
// rename are the caller's (gpg's dotlock on pubring.kbx).

// ErrUnsupportedKey is wrapped when a keyblock holds a key a version 1
// blob cannot index: a v5 or v6 key, whose 32-byte fingerprint needs the
// version 2 blob that gpg 2.2 does not read, or a v3 key.
var ErrUnsupportedKey = errors.New("a key a version 1 keybox blob cannot hold")

// HeaderBlob is the first blob of a new keybox, as gpg writes it: flag
// bit 1 (the file holds OpenPGP blobs), the magic, and the creation and
// last maintenance times, both now.
func HeaderBlob(now uint32) []byte {
	h := make([]byte, headerBlobLen)
	binary.BigEndian.PutUint32(h, headerBlobLen)
	h[4], h[5] = typeHeader, 1
	binary.BigEndian.PutUint16(h[6:], 2)
	copy(h[8:], "KBXf")
	binary.BigEndian.PutUint32(h[16:], now)
	binary.BigEndian.PutUint32(h[20:], now)
	return h
}

// index is what a keyblock's blob lists besides the keyblock itself, as
// scanKeyblock finds it: the bodies of the key packets (primary first),
// the user IDs' bodies by offset and length, the number of signatures,
// and the lengths of the index and of the whole blob.
type index struct {
	keys        [][]byte
	uids        []uidSpan
	nsigs       int
	head, total int
}

type uidSpan struct{ off, n int }

// Sizes of the index's entries as gpg writes them.
const keyInfo, uidInfo, sigInfo = 20 + 4 + 2 + 2, 4 + 4 + 2 + 1 + 1, 4

// scanKeyblock walks keyblock's packets once and says what its blob's
// index holds, or why a version 1 blob cannot hold it: the one place
// that decides, so that CheckKeyblock and EncodeBlob cannot disagree.
func scanKeyblock(keyblock []byte) (index, error) {
	var ix index
	for rest := keyblock; len(rest) > 0; {
		off := len(keyblock) - len(rest)
		h, body, r, err := packet.SplitPacket(rest, int64(off))
		if err != nil {
			return ix, fmt.Errorf("keybox: keyblock: %w", err)
		}
		bodyOff := len(keyblock) - len(r) - len(body)
		switch {
		case off == 0 && h.Tag != packet.TagPublicKey:
			return ix, fmt.Errorf("keybox: keyblock begins with a %s packet, not a public key", h.Tag)
		case off != 0 && h.Tag == packet.TagPublicKey:
			return ix, errors.New("keybox: keyblock holds a second primary key")
		case h.Tag == packet.TagPublicSubkey && len(body) > 0 && body[0] == '#':
			// gpg's old comment packets, which its own reader skips
		case h.Tag == packet.TagPublicKey || h.Tag == packet.TagPublicSubkey:
			if !v4KeyBody(body) {
				v := 0
				if len(body) > 0 {
					v = int(body[0])
				}
				return ix, fmt.Errorf("keybox: a version %d key: %w", v, ErrUnsupportedKey)
			}
			ix.keys = append(ix.keys, body)
		case h.Tag == packet.TagUserID:
			ix.uids = append(ix.uids, uidSpan{bodyOff, len(body)})
		case h.Tag == packet.TagSignature:
			ix.nsigs++
		}
		rest = r
	}
	if len(ix.keys) == 0 {
		return ix, errors.New("keybox: empty keyblock")
	}
	ix.head = 4 + 1 + 1 + 2 + 4 + 4 + 2 + 2 + len(ix.keys)*keyInfo + 2 + 2 + 2 + len(ix.uids)*uidInfo + 2 + 2 + ix.nsigs*sigInfo + 1 + 1 + 2 + 4 + 4 + 4 + 4
	ix.total = ix.head + len(keyblock) + checksumLen
	if ix.total > maxBlobLen {
		return ix, fmt.Errorf("keybox: a blob of %d bytes is over gpg's limit of %d", ix.total, maxBlobLen)
	}
	return ix, nil
}

// CheckKeyblock returns the error EncodeBlob would return for keyblock,
// nil when it would encode it, without building the blob: one walk over
// the packets, no fingerprint hashed and nothing of keyblock copied. It answers whether
// gpg 2.2 and 2.4 can keep the key in their keybox (a v4 key within gpg's
// blob size; not a v5 or v6 key).
func CheckKeyblock(keyblock []byte) error {
	_, err := scanKeyblock(keyblock)
	return err
}

// EncodeBlob is the OpenPGP blob for one transferable public key:
// keyblock holds its packets as gpg keeps them (ring trust packets
// included, which gpg reads back as its own), created is the blob's
// creation time.
func EncodeBlob(keyblock []byte, created uint32) ([]byte, error) {
	ix, err := scanKeyblock(keyblock)
	if err != nil {
		return nil, err
	}
	head, total := ix.head, ix.total
	b := make([]byte, 0, total)
	be := binary.BigEndian
	b = be.AppendUint32(b, uint32(total))
	b = append(b, typeOpenPGP, 1)
	b = be.AppendUint16(b, 0) // flags: not ephemeral
	b = be.AppendUint32(b, uint32(head))
	b = be.AppendUint32(b, uint32(len(keyblock)))
	b = be.AppendUint16(b, uint16(len(ix.keys)))
	b = be.AppendUint16(b, keyInfo)
	for _, body := range ix.keys {
		b = append(b, v4Fingerprint(body)...)
		// The key ID is the fingerprint's last eight bytes, eight
		// bytes back from this field.
		b = be.AppendUint32(b, uint32(len(b)-8))
		b = be.AppendUint16(b, 0) // key flags
		b = be.AppendUint16(b, 0) // reserved
	}
	b = be.AppendUint16(b, 0) // serial number: X.509 only
	b = be.AppendUint16(b, uint16(len(ix.uids)))
	b = be.AppendUint16(b, uidInfo)
	for _, u := range ix.uids {
		b = be.AppendUint32(b, uint32(head+u.off))
		b = be.AppendUint32(b, uint32(u.n))
		b = be.AppendUint16(b, 0) // flags
		b = append(b, 0, 0)       // validity, reserved
	}
	b = be.AppendUint16(b, uint16(ix.nsigs))
	b = be.AppendUint16(b, sigInfo)
	b = append(b, make([]byte, ix.nsigs*sigInfo)...)
	b = append(b, 0, 0, 0, 0) // ownertrust, all-validity, reserved
	b = be.AppendUint32(b, 0) // recheck after
	b = be.AppendUint32(b, 0) // newest timestamp
	b = be.AppendUint32(b, created)
	b = be.AppendUint32(b, 0) // reserved space
	if len(b) != head {
		panic("keybox: blob index length miscounted")
	}
	b = append(b, keyblock...)
	sum := sha1.Sum(b)
	return append(b, sum[:]...), nil
}

// RawBlob is one blob of a file as stored, for a writer that keeps the
// blobs it does not change byte for byte: gpgsm's X.509 certificates
// share pubring.kbx with gpg's keys.
type RawBlob struct {
	Offset int64
	Type   byte   // 1 header, 2 OpenPGP, 3 X.509, 0 empty
	Data   []byte // the whole blob, its checksum included
	// Fingerprint is an OpenPGP blob's primary key fingerprint from its
	// index (version 1 blobs: 20 bytes), nil for other blobs.
	Fingerprint []byte
}

// Split cuts a keybox into its blobs, checking what Parse checks; a
// file Parse finds damaged is an error here, since a writer must not
// drop what follows the damage.
func Split(data []byte) ([]RawBlob, error) {
	if _, err := Parse(data); err != nil {
		return nil, err
	}
	var out []RawBlob
	for off := 0; off < len(data); {
		n := int(binary.BigEndian.Uint32(data[off:]))
		raw := data[off : off+n : off+n]
		rb := RawBlob{Offset: int64(off), Type: raw[4], Data: raw}
		if rb.Type == typeOpenPGP && raw[5] == 1 && n >= 20+28 {
			rb.Fingerprint = raw[20:40]
		}
		out = append(out, rb)
		off += n
	}
	return out, nil
}
