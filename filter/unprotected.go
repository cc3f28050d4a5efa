package filter

import (
	"github.com/pgpstream/pgpstream/packet"
)

// ErrUnprotected refuses Symmetrically Encrypted Data (tag 9): it has no
// integrity protection, so its plaintext may have been changed by anyone
// (and it is the vehicle of the EFAIL attacks).
type ErrUnprotected struct{ Offset int64 }

func (e ErrUnprotected) Error() string {
	return "refusing a Symmetrically Encrypted Data packet (tag 9): it has no integrity protection, so the plaintext may have been modified"
}

// sed decrypts tag 9 only when explicitly allowed, with OpenPGP's CFB
// resynchronisation (RFC 9580 §5.7).
func (d *decryptor) sed(body *packet.Body, h packet.Header) error {
	if !d.opt.AllowUnprotected {
		return ErrUnprotected{h.Offset}
	}
	key, c, info, err := d.sessionKey(false)
	if err != nil {
		return err
	}
	info.Format, info.Cipher = SED, c
	d.begin(info, key)
	d.opt.Events.Warning(warnUnprotected)
	r, err := newSEDReader(body, c, key)
	if err != nil {
		return err
	}
	if d.opt.Unwrap {
		return d.unwrap(r)
	}
	if err := d.plainPackets(r, 1); err != nil {
		return err
	}
	return nil
}
