package keyring

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/clock"
)

// revocsDir is where Generate leaves a revocation certificate for each
// key it makes, named FINGERPRINT.rev, as gpg does.
const revocsDir = "openpgp-revocs.d"

// ArmorRevocation armors a revocation certificate as gpg writes one: a
// public key block holding the signature alone, with gpg's comment.
func ArmorRevocation(sig []byte) ([]byte, error) {
	var buf bytes.Buffer
	aw := armor.NewWriter(&buf, publicKeyBlock, map[string]string{"Comment": "This is a revocation certificate"})
	if _, err := aw.Write(sig); err != nil {
		return nil, err
	}
	if err := aw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeRevocationFile stores the revocation certificate rev for k in the
// home's openpgp-revocs.d. As in gpg's file, a colon stands before the
// armor's first line, so that importing the file by mistake does
// nothing (an armor line must start a line); removing it makes the
// certificate importable.
func writeRevocationFile(home string, k *Key, rev []byte) error {
	dir := filepath.Join(home, revocsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("keyring: creating %s: %w", dir, err)
	}
	armored, err := ArmorRevocation(rev)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("This is a revocation certificate for the OpenPGP key:\n\n")
	k.writeHuman(&b, &listCtx{}, clock.Now())
	b.WriteString(`A revocation certificate is a kind of "kill switch" to publicly
declare that a key shall not anymore be used.  It is not possible
to retract such a revocation certificate once it has been published.

Use it to revoke this key in case of a compromise or loss of
the secret key.  However, if the secret key is still accessible,
it is better to generate a new revocation certificate and give
a reason for the revocation (pgpstream --generate-revocation).

To avoid an accidental use of this file, a colon has been inserted
before the 5 dashes below.  Remove this colon with a text editor
before importing and publishing this revocation certificate.

:`)
	b.Write(armored)
	path := filepath.Join(dir, k.Fingerprint()+".rev")
	if err := writeAtomic(path, b.Bytes(), 0o600); err != nil {
		return err
	}
	return nil
}

// RevocationFile returns the path Generate stored k's revocation
// certificate at.
func (r *Ring) RevocationFile(k *Key) string {
	return filepath.Join(r.home, revocsDir, strings.ToUpper(k.Fingerprint())+".rev")
}
