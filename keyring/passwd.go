package keyring

import (
	"errors"
	"fmt"
)

// ChangePassphrase re-protects every secret (sub)key of the key with full
// fingerprint fpr: each is opened with oldPass (ignored for a key that
// is not protected) and protected with newPass, or left unprotected when
// newPass is empty. Only the secret key packets change; the certificate,
// its signatures and the public ring stay byte for byte as they were.
//
// A key whose secret parts gpg-agent holds has its passphrase changed by
// the agent (PASSWD), as gpg --passwd does.
func (r *Ring) ChangePassphrase(fpr string, oldPass, newPass []byte) error {
	if handled, err := r.agentPasswd(fpr, oldPass, newPass); handled {
		return err
	}
	return r.update(secretFirst, func() (bool, error) {
		k, err := r.editableKey(fpr)
		if err != nil {
			return false, err
		}
		ns, err := reprotect(k.sec, oldPass, newPass)
		if errors.Is(err, ErrNoSecretKey) {
			return false, fmt.Errorf("keyring: key %s: %w", k.Fingerprint(), err)
		}
		if err != nil {
			return false, err
		}
		nk, err := r.newKey(k.pub, ns)
		if err != nil {
			return false, err
		}
		*k = *nk
		return true, nil
	})
}
