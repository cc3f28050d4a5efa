package keyring

import (
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/keygrip"
)

// KeygripHex is the keygrip of pk (package keygrip: libgcrypt's identifier
// for a public key, what gpg-agent files secret keys under) in upper-case
// hex, as gpg --with-keygrip prints it; "" for a key kind that has none.
func KeygripHex(pk *packet.PublicKey) string {
	g, err := keygrip.Of(pk)
	if err != nil {
		return ""
	}
	return g.String()
}
