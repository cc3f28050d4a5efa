package packet

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"fmt"
	"strings"

	"golang.org/x/crypto/cast5"
)

// CipherAlgo is a symmetric cipher id (RFC 9580 §9.3).
type CipherAlgo uint8

const (
	CipherIDEA        CipherAlgo = 1
	Cipher3DES        CipherAlgo = 2
	CipherCAST5       CipherAlgo = 3
	CipherBlowfish    CipherAlgo = 4
	CipherAES128      CipherAlgo = 7
	CipherAES192      CipherAlgo = 8
	CipherAES256      CipherAlgo = 9
	CipherTwofish     CipherAlgo = 10
	CipherCamellia128 CipherAlgo = 11
	CipherCamellia192 CipherAlgo = 12
	CipherCamellia256 CipherAlgo = 13
)

var cipherInfo = map[CipherAlgo]struct {
	name    string
	keySize int
	block   int
}{
	CipherIDEA:        {"IDEA", 16, 8},
	Cipher3DES:        {"3DES", 24, 8},
	CipherCAST5:       {"CAST5", 16, 8},
	CipherBlowfish:    {"BLOWFISH", 16, 8},
	CipherAES128:      {"AES128", 16, 16},
	CipherAES192:      {"AES192", 24, 16},
	CipherAES256:      {"AES256", 32, 16},
	CipherTwofish:     {"TWOFISH", 32, 16},
	CipherCamellia128: {"CAMELLIA128", 16, 16},
	CipherCamellia192: {"CAMELLIA192", 24, 16},
	CipherCamellia256: {"CAMELLIA256", 32, 16},
}

func (c CipherAlgo) String() string {
	if i, ok := cipherInfo[c]; ok {
		return i.name
	}
	return fmt.Sprintf("unknown cipher %d", uint8(c))
}

// KeySize is the key length in bytes, 0 for an unknown cipher.
func (c CipherAlgo) KeySize() int { return cipherInfo[c].keySize }

// BlockSize is the block length in bytes, 0 for an unknown cipher.
func (c CipherAlgo) BlockSize() int { return cipherInfo[c].block }

// IsAES reports whether c is one of the AES key sizes.
func (c CipherAlgo) IsAES() bool { return c >= CipherAES128 && c <= CipherAES256 }

// NewBlock returns the block cipher for key. Reading supports what
// go-crypto and the standard library provide; writing is AES only.
func (c CipherAlgo) NewBlock(key []byte) (cipher.Block, error) {
	if len(key) != c.KeySize() || c.KeySize() == 0 {
		return nil, fmt.Errorf("%v: key of %d bytes, want %d", c, len(key), c.KeySize())
	}
	switch c {
	case CipherAES128, CipherAES192, CipherAES256:
		return aes.NewCipher(key)
	case Cipher3DES:
		return des.NewTripleDESCipher(key)
	case CipherCAST5:
		return cast5.NewCipher(key)
	}
	return newOtherBlock(c, key)
}

// ParseCipherAlgo accepts gpg's spellings of --cipher-algo.
func ParseCipherAlgo(s string) (CipherAlgo, error) {
	u := strings.ToUpper(strings.ReplaceAll(s, "-", ""))
	switch u {
	case "AES":
		return CipherAES128, nil
	case "TRIPLEDES", "DES3":
		return Cipher3DES, nil
	}
	for id, i := range cipherInfo {
		if i.name == u || fmt.Sprint(uint8(id)) == u {
			return id, nil
		}
	}
	return 0, fmt.Errorf("unknown cipher %q (use AES128, AES192 or AES256)", s)
}

// AEADAlgo is an AEAD mode id (RFC 9580 §9.6).
type AEADAlgo uint8

const (
	AEADEAX AEADAlgo = 1
	AEADOCB AEADAlgo = 2
	AEADGCM AEADAlgo = 3
)

func (a AEADAlgo) String() string {
	switch a {
	case AEADEAX:
		return "EAX"
	case AEADOCB:
		return "OCB"
	case AEADGCM:
		return "GCM"
	}
	return fmt.Sprintf("unknown AEAD mode %d", uint8(a))
}

// NonceSize is the mode's nonce (IV) length (RFC 9580 §9.6).
func (a AEADAlgo) NonceSize() int {
	switch a {
	case AEADEAX:
		return 16
	case AEADOCB:
		return 15
	case AEADGCM:
		return 12
	}
	return 0
}

// ParseAEADAlgo accepts OCB, EAX and GCM in any case.
func ParseAEADAlgo(s string) (AEADAlgo, error) {
	switch strings.ToUpper(s) {
	case "EAX", "1":
		return AEADEAX, nil
	case "OCB", "2":
		return AEADOCB, nil
	case "GCM", "3":
		return AEADGCM, nil
	}
	return 0, fmt.Errorf("unknown AEAD mode %q (use OCB, EAX or GCM)", s)
}
