package packet

import "fmt"

// PubKeyAlgo is a public-key algorithm id (RFC 9580 §9.1), the one list of
// their names: String is the RFC's, for pgpstream's own reports, and
// GPGName gpg's, for every place that speaks as gpg does.
type PubKeyAlgo uint8

const (
	PubKeyRSA            PubKeyAlgo = 1
	PubKeyRSAEncryptOnly PubKeyAlgo = 2 // deprecated: RSA, for encryption only
	PubKeyRSASignOnly    PubKeyAlgo = 3 // deprecated: RSA, for signing only
	PubKeyElGamal        PubKeyAlgo = 16
	PubKeyDSA            PubKeyAlgo = 17
	PubKeyECDH           PubKeyAlgo = 18
	PubKeyECDSA          PubKeyAlgo = 19
	PubKeyElGamalOld     PubKeyAlgo = 20 // reserved since RFC 4880: ElGamal that also signed
	PubKeyEdDSA          PubKeyAlgo = 22 // EdDSALegacy in RFC 9580
	PubKeyX25519         PubKeyAlgo = 25
	PubKeyX448           PubKeyAlgo = 26
	PubKeyEd25519        PubKeyAlgo = 27
	PubKeyEd448          PubKeyAlgo = 28
)

var pubKeyNames = map[PubKeyAlgo]struct{ rfc, gpg string }{
	PubKeyRSA:            {"RSA", "RSA"},
	PubKeyRSAEncryptOnly: {"RSA", "RSA"},
	PubKeyRSASignOnly:    {"RSA", "RSA"},
	PubKeyElGamal:        {"ElGamal", "ELG"},
	PubKeyDSA:            {"DSA", "DSA"},
	PubKeyECDH:           {"ECDH", "ECDH"},
	PubKeyECDSA:          {"ECDSA", "ECDSA"},
	PubKeyElGamalOld:     {"ElGamal", "ELG"},
	PubKeyEdDSA:          {"EdDSA", "EDDSA"},
	PubKeyX25519:         {"X25519", "X25519"},
	PubKeyX448:           {"X448", "X448"},
	PubKeyEd25519:        {"Ed25519", "ED25519"},
	PubKeyEd448:          {"Ed448", "ED448"},
}

// String is the algorithm's name in RFC 9580, "algorithm N" for one it
// does not name.
func (a PubKeyAlgo) String() string {
	if n, ok := pubKeyNames[a]; ok {
		return n.rfc
	}
	return fmt.Sprintf("algorithm %d", uint8(a))
}

// GPGName is gpg's name for the algorithm (libgcrypt's, as gpg prints it
// in "using RSA key", "encrypted with ECDH key", --list-config and key
// server listings), "" for one gpg does not name.
func (a PubKeyAlgo) GPGName() string { return pubKeyNames[a].gpg }
