package keyring

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
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
		ns, err := reprotect(k.sec, func(priv *packet.PrivateKey) error { return Unlock(priv, oldPass) }, newPass)
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

// reprotect returns a copy of the secret block sec with every secret
// (sub)key opened by unlock and protected with newPass, or left
// unprotected when newPass is empty. Stubs without secret material stay
// as they are; a block with nothing but stubs is an error wrapping
// ErrNoSecretKey.
func reprotect(sec *block, unlock func(*packet.PrivateKey) error, newPass []byte) (*block, error) {
	ns := sec.clone()
	n := 0
	for _, c := range ns.components() {
		if c.pkt.tag != tagSecretKey && c.pkt.tag != tagSecretSubkey {
			continue
		}
		_, priv, err := parseKey(c.pkt)
		if err != nil {
			return nil, err
		}
		if priv == nil || priv.Dummy() {
			continue
		}
		if err := unlock(priv); err != nil {
			return nil, err
		}
		if len(newPass) > 0 {
			if err := priv.EncryptWithConfig(newPass, lockConfig(priv.Version == 6)); err != nil {
				return nil, fmt.Errorf("protecting key %X: %w", priv.Fingerprint, err)
			}
		}
		p, err := keyPacket(func(b *bytes.Buffer) error { return priv.Serialize(b) })
		if err != nil {
			return nil, err
		}
		if p.tag != c.pkt.tag {
			return nil, fmt.Errorf("key %X changed packet type on re-protection", priv.Fingerprint)
		}
		c.pkt = p
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("no secret key material to protect: %w", ErrNoSecretKey)
	}
	return ns, nil
}
