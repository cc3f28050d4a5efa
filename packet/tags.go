package packet

import "fmt"

// Tag is an OpenPGP packet type id (RFC 9580 §5).
type Tag uint8

// Packet tags pgpstream knows by name.
const (
	TagPKESK            Tag = 1
	TagSignature        Tag = 2
	TagSKESK            Tag = 3
	TagOnePassSignature Tag = 4
	TagSecretKey        Tag = 5
	TagPublicKey        Tag = 6
	TagSecretSubkey     Tag = 7
	TagCompressed       Tag = 8
	TagSED              Tag = 9 // Symmetrically Encrypted Data: no integrity protection
	TagMarker           Tag = 10
	TagLiteral          Tag = 11
	TagTrust            Tag = 12
	TagUserID           Tag = 13
	TagPublicSubkey     Tag = 14
	TagUserAttribute    Tag = 17
	TagSEIPD            Tag = 18
	TagMDC              Tag = 19
	TagAEAD             Tag = 20 // LibrePGP OCB Encrypted Data
	TagPadding          Tag = 21
)

var tagNames = map[Tag]string{
	TagPKESK:            "public-key encrypted session key",
	TagSignature:        "signature",
	TagSKESK:            "symmetric-key encrypted session key",
	TagOnePassSignature: "one-pass signature",
	TagSecretKey:        "secret key",
	TagPublicKey:        "public key",
	TagSecretSubkey:     "secret subkey",
	TagCompressed:       "compressed data",
	TagSED:              "symmetrically encrypted data",
	TagMarker:           "marker",
	TagLiteral:          "literal data",
	TagTrust:            "trust",
	TagUserID:           "user ID",
	TagPublicSubkey:     "public subkey",
	TagUserAttribute:    "user attribute",
	TagSEIPD:            "SEIPD",
	TagMDC:              "MDC",
	TagAEAD:             "AEAD encrypted data",
	TagPadding:          "padding",
}

func (t Tag) String() string {
	if n, ok := tagNames[t]; ok {
		return n
	}
	return fmt.Sprintf("unknown (tag %d)", uint8(t))
}

// allowsPartial reports whether a packet of this tag may use partial body
// lengths: only the data packets may (RFC 9580 §4.2.1.4).
func (t Tag) allowsPartial() bool {
	switch t {
	case TagLiteral, TagCompressed, TagSED, TagSEIPD, TagAEAD:
		return true
	}
	return false
}
