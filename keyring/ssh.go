package keyring

import (
	"crypto/rsa"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"github.com/ProtonMail/go-crypto/openpgp/ecdsa"
	"github.com/ProtonMail/go-crypto/openpgp/ed25519"
	"github.com/ProtonMail/go-crypto/openpgp/eddsa"
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/clock"
)

// ErrUnusable is returned (wrapped) for a key that exists but cannot do
// what was asked: revoked, expired, or without a (sub)key of the needed
// capability. Its text is gpg's.
var ErrUnusable = errors.New("Unusable public key")

// ExportSSH returns the OpenSSH public key line of the key spec names, as
// gpg's --export-ssh-key writes it: the newest valid authentication
// (sub)key, or with "ID!" exactly that (sub)key whatever its flags,
// followed by the comment "openpgp:0x" and the short key ID.
func (r *Ring) ExportSSH(spec string) (string, error) {
	m, err := parsePattern(spec)
	if err != nil {
		return "", err
	}
	k, err := r.Lookup(spec, false)
	if err != nil {
		return "", err
	}
	now := clock.Now()
	var pk *packet.PublicKey
	if m.bang {
		if m.matchPub(k.ent.PrimaryKey) {
			pk = k.ent.PrimaryKey
		}
		for i := range k.ent.Subkeys {
			if m.matchPub(k.ent.Subkeys[i].PublicKey) {
				pk = k.ent.Subkeys[i].PublicKey
			}
		}
	} else {
		usable := func(st keyState) bool {
			return !st.revoked && !st.expired && !st.invalid && st.caps&capAuth != 0
		}
		ps := k.primaryState(now)
		if ps.revoked || ps.expired || ps.invalid {
			return "", fmt.Errorf("key %q: %w", spec, ErrUnusable)
		}
		if usable(ps) {
			pk = ps.pub
		}
		for i := range k.ent.Subkeys {
			ss := k.subkeyState(&k.ent.Subkeys[i], now)
			if usable(ss) && (pk == nil || !ss.pub.CreationTime.Before(pk.CreationTime)) {
				pk = ss.pub
			}
		}
	}
	if pk == nil {
		return "", fmt.Errorf("key %q: %w (no authentication key)", spec, ErrUnusable)
	}
	blob, err := sshBlob(pk)
	if err != nil {
		return "", err
	}
	name, _ := readSSHString(blob)
	return fmt.Sprintf("%s %s openpgp:0x%08X\n", name, base64.StdEncoding.EncodeToString(blob), uint32(pk.KeyId)), nil
}

// sshBlob encodes a public key in the SSH wire format (RFC 4253 section
// 6.6, RFC 5656 section 3.1, RFC 8709 section 4).
func sshBlob(pk *packet.PublicKey) ([]byte, error) {
	var b []byte
	str := func(s []byte) {
		b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	mpint := func(n *big.Int) {
		v := n.Bytes()
		if len(v) > 0 && v[0]&0x80 != 0 {
			v = append([]byte{0}, v...)
		}
		str(v)
	}
	switch key := pk.PublicKey.(type) {
	case *rsa.PublicKey:
		str([]byte("ssh-rsa"))
		mpint(big.NewInt(int64(key.E)))
		mpint(key.N)
	case *eddsa.PublicKey:
		c, _ := pk.Curve()
		if c != packet.Curve25519 {
			return nil, fmt.Errorf("keyring: %s keys have no OpenSSH form here", c)
		}
		pt := key.X
		if len(pt) == 33 && pt[0] == 0x40 {
			pt = pt[1:]
		}
		str([]byte("ssh-ed25519"))
		str(pt)
	case *ed25519.PublicKey:
		str([]byte("ssh-ed25519"))
		str(key.Point)
	case *ecdsa.PublicKey:
		c, _ := pk.Curve()
		var name string
		switch c {
		case packet.CurveNistP256:
			name = "nistp256"
		case packet.CurveNistP384:
			name = "nistp384"
		case packet.CurveNistP521:
			name = "nistp521"
		default:
			return nil, fmt.Errorf("keyring: %s keys have no OpenSSH form", c)
		}
		str([]byte("ecdsa-sha2-" + name))
		str([]byte(name))
		str(key.MarshalPoint())
	default:
		a, _ := algoName(pk)
		return nil, fmt.Errorf("keyring: %s keys have no OpenSSH form here", a)
	}
	return b, nil
}

func readSSHString(b []byte) (string, []byte) {
	if len(b) < 4 {
		return "", nil
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return "", nil
	}
	return string(b[4 : 4+n]), b[4+n:]
}
