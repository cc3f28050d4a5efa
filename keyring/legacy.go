package keyring

import (
	"bytes"
	"crypto/dsa" //nolint:staticcheck // OpenPGP's DSA (algorithm 17), which gpg 2.2 still makes
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/elgamal"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	v2 "github.com/ProtonMail/go-crypto/openpgp/v2"
)

// The DSA and Elgamal keys gpg 2.2 still makes when a parameter file or
// --quick-add-key asks for them (python-gnupg's own tests make DSA keys
// with Elgamal subkeys), which go-crypto reads and uses but does not
// generate. They are v4 only: RFC 9580 forbids them in v6 keys.

// legacyAlgo reads "dsa", "dsaN", "elg", "elgN" (N the size in bits)
// and returns the algorithm and the size, gpg's default when none is given.
func legacyAlgo(name string) (packet.PublicKeyAlgorithm, int, bool) {
	a := strings.ToLower(name)
	var algo packet.PublicKeyAlgorithm
	switch {
	case strings.HasPrefix(a, "dsa"):
		algo, a = packet.PubKeyAlgoDSA, a[3:]
	case strings.HasPrefix(a, "elg"):
		algo, a = packet.PubKeyAlgoElGamal, a[3:]
	default:
		return 0, 0, false
	}
	if a == "" {
		// gpg's defaults: DSA 2048, Elgamal 3072.
		if algo == packet.PubKeyAlgoElGamal {
			return algo, 3072, true
		}
		return algo, 2048, true
	}
	bits, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, false
	}
	return algo, bits, true
}

// newLegacyKey makes a DSA or Elgamal key of the given size, created at now.
func newLegacyKey(algo packet.PublicKeyAlgorithm, bits int, now time.Time) (*packet.PrivateKey, error) {
	switch algo {
	case packet.PubKeyAlgoDSA:
		// FIPS 186-4's sizes, which are gpg's: a 160-bit q for 1024
		// bits, 224 for 2048, 256 for 3072.
		var sizes dsa.ParameterSizes
		switch bits {
		case 1024:
			sizes = dsa.L1024N160
		case 2048:
			sizes = dsa.L2048N224
		case 3072:
			sizes = dsa.L3072N256
		default:
			return nil, fmt.Errorf("keyring: %w (DSA keys have 1024, 2048 or 3072 bits, not %d)", ErrUnknownAlgo, bits)
		}
		k := new(dsa.PrivateKey)
		if err := dsa.GenerateParameters(&k.Parameters, rand.Reader, sizes); err != nil {
			return nil, err
		}
		if err := dsa.GenerateKey(k, rand.Reader); err != nil {
			return nil, err
		}
		return packet.NewDSAPrivateKey(now, k), nil
	case packet.PubKeyAlgoElGamal:
		if bits < 1024 || bits > 4096 {
			return nil, fmt.Errorf("keyring: %w (Elgamal keys have 1024 to 4096 bits, not %d)", ErrUnknownAlgo, bits)
		}
		k, err := newElGamal(bits)
		if err != nil {
			return nil, err
		}
		return packet.NewElGamalPrivateKey(now, k), nil
	}
	return nil, fmt.Errorf("keyring: %w (%v)", ErrUnknownAlgo, algo)
}

// elgQBits is the size of the prime factors of p-1 and (times 3/2) of
// the secret exponent, for a p of the given size: Wiener's table, as
// libgcrypt has it.
func elgQBits(bits int) int {
	table := []struct{ p, q int }{
		{512, 119}, {768, 145}, {1024, 165}, {1280, 183}, {1536, 198}, {1792, 212},
		{2048, 225}, {2304, 237}, {2560, 249}, {2816, 259}, {3072, 269}, {3328, 279},
		{3584, 288}, {3840, 296}, {4096, 305},
	}
	for _, e := range table {
		if bits <= e.p {
			return e.q
		}
	}
	return 305
}

// newElGamal makes an Elgamal key the way libgcrypt does: p is a
// Lim-Lee prime, p = 2*q1*...*qn + 1 with every qi a prime of about
// elgQBits bits, so that p-1 has no small factor but 2; g generates the
// whole group (g^((p-1)/f) != 1 for every prime factor f of p-1); the
// secret x has 3/2 elgQBits bits.
func newElGamal(bits int) (*elgamal.PrivateKey, error) {
	qbits := elgQBits(bits)
	n := (bits - 1) / qbits // factors of qbits; the last one fills the rest
	one, two := big.NewInt(1), big.NewInt(2)
	for {
		factors := make([]*big.Int, 0, n)
		prod := new(big.Int).Set(two)
		for i := 0; i < n-1; i++ {
			q, err := rand.Prime(rand.Reader, qbits)
			if err != nil {
				return nil, err
			}
			factors = append(factors, q)
			prod.Mul(prod, q)
		}
		last := bits - prod.BitLen()
		if last < qbits/2 {
			continue
		}
		var p *big.Int
		var q *big.Int
		for try := 0; try < 4000 && p == nil; try++ {
			var err error
			if q, err = rand.Prime(rand.Reader, last); err != nil {
				return nil, err
			}
			c := new(big.Int).Mul(prod, q)
			c.Add(c, one)
			if c.BitLen() == bits && c.ProbablyPrime(32) {
				p = c
			}
		}
		if p == nil {
			continue
		}
		factors = append(factors, q)
		pm1 := new(big.Int).Sub(p, one)
		distinct := append([]*big.Int{two}, factors...)
		g := big.NewInt(3)
		for ; ; g.Add(g, one) {
			ok := true
			for _, f := range distinct {
				e := new(big.Int).Div(pm1, f)
				if new(big.Int).Exp(g, e, p).Cmp(one) == 0 {
					ok = false
					break
				}
			}
			if ok {
				break
			}
		}
		xbits := qbits * 3 / 2
		if xbits >= bits {
			xbits = bits - 1
		}
		x, err := rand.Int(rand.Reader, new(big.Int).Lsh(one, uint(xbits)))
		if err != nil {
			return nil, err
		}
		x.SetBit(x, xbits-1, 1)
		k := &elgamal.PrivateKey{PublicKey: elgamal.PublicKey{P: p, G: g}, X: x}
		k.Y = new(big.Int).Exp(g, x, p)
		return k, nil
	}
}

// swapPrimary puts priv in place of e's primary key (one go-crypto made
// to build the entity around) and signs e's user IDs and subkeys again.
func swapPrimary(e *v2.Entity, priv *packet.PrivateKey, cfg *packet.Config) error {
	e.PrimaryKey, e.PrivateKey = &priv.PublicKey, priv
	for _, id := range e.Identities {
		for _, sc := range id.SelfCertifications {
			reissue(sc.Packet, priv)
			if err := sc.Packet.SignUserId(id.Name, e.PrimaryKey, priv, cfg); err != nil {
				return fmt.Errorf("keyring: signing new key: %w", err)
			}
		}
	}
	for i := range e.Subkeys {
		sub := &e.Subkeys[i]
		for _, b := range sub.Bindings {
			reissue(b.Packet, priv)
			if err := b.Packet.SignKey(sub.PublicKey, priv, cfg); err != nil {
				return fmt.Errorf("keyring: signing new subkey: %w", err)
			}
		}
	}
	return nil
}

// swapSubkey puts priv in place of sub's key, and signs its binding (and
// the back signature of a signing subkey) again with primary.
func swapSubkey(sub *v2.Subkey, primary *packet.PrivateKey, priv *packet.PrivateKey, cfg *packet.Config) error {
	priv.IsSubkey, priv.PublicKey.IsSubkey = true, true
	sub.PublicKey, sub.PrivateKey = &priv.PublicKey, priv
	for _, b := range sub.Bindings {
		if emb := b.Packet.EmbeddedSignature; emb != nil {
			reissue(emb, priv)
			if err := emb.CrossSignKey(sub.PublicKey, &primary.PublicKey, priv, cfg); err != nil {
				return fmt.Errorf("keyring: signing new subkey: %w", err)
			}
		}
		reissue(b.Packet, primary)
		if err := b.Packet.SignKey(sub.PublicKey, primary, cfg); err != nil {
			return fmt.Errorf("keyring: signing new subkey: %w", err)
		}
	}
	return nil
}

// reissue makes sig one that signer makes.
func reissue(sig *packet.Signature, signer *packet.PrivateKey) {
	sig.PubKeyAlgo = signer.PubKeyAlgo
	id := signer.KeyId
	sig.IssuerKeyId = &id
}

// replaceLegacy puts in place the keys GenOptions asks for that go-crypto
// does not make as asked: a DSA primary key, an Elgamal subkey, or an RSA
// subkey of another size than the primary key's.
func replaceLegacy(e *v2.Entity, opt GenOptions, cfg *packet.Config) error {
	now := e.PrimaryKey.CreationTime
	if algo, bits, ok := legacyAlgo(opt.Algo); ok && algo == packet.PubKeyAlgoDSA {
		priv, err := newLegacyKey(algo, bits, now)
		if err != nil {
			return err
		}
		if err := swapPrimary(e, priv, cfg); err != nil {
			return err
		}
	}
	sub := strings.ToLower(opt.Subkey)
	if sub == "" || sub == "none" || len(e.Subkeys) == 0 {
		return nil
	}
	var priv *packet.PrivateKey
	if bits, ok := rsaBits(sub); ok {
		k, err := rsa.GenerateKey(rand.Reader, bits)
		if err != nil {
			return err
		}
		priv = packet.NewRSAPrivateKey(now, k)
	} else if algo, bits, ok := legacyAlgo(sub); ok && algo == packet.PubKeyAlgoElGamal {
		var err error
		if priv, err = newLegacyKey(algo, bits, now); err != nil {
			return err
		}
	} else {
		return fmt.Errorf("keyring: Key generation failed: %w (subkey %q; expected rsaN or elgN)", ErrUnknownAlgo, opt.Subkey)
	}
	return swapSubkey(&e.Subkeys[0], e.PrivateKey, priv, cfg)
}

// setOnlyUserID gives e, made with one user ID, the user ID uid instead.
func setOnlyUserID(e *v2.Entity, uid string) {
	for name, id := range e.Identities {
		delete(e.Identities, name)
		id.Name = uid
		id.UserId = &packet.UserId{Id: uid}
		e.Identities[uid] = id
	}
}

// deleteSubkeys removes, for each "FPR!" in specs that names a subkey,
// that subkey alone, as gpg does: from the secret part when secret is
// set (the public subkey stays), else from the certificate, which is
// refused while the secret subkey is still there. It returns how many it
// removed and the specs left for whole keys.
func (r *Ring) deleteSubkeys(specs []string, secret bool) (int, []string, error) {
	n := 0
	var rest []string
	for _, spec := range specs {
		b, bang, ok := parseHexID(strings.TrimSpace(spec))
		if !ok || !bang || (len(b) != 20 && len(b) != 32) {
			rest = append(rest, spec)
			continue
		}
		k, idx := r.bySubkeyFingerprint(b)
		if k == nil {
			rest = append(rest, spec) // a primary key's "FPR!" is refused, as any other form
			continue
		}
		if !r.writableInGnuPG(k) {
			return n, nil, k.inGnuPGError("delete it with gpg")
		}
		secIdx := -1
		if k.sec != nil {
			secIdx = subIndex(k.sec, b)
		}
		switch {
		case secret && secIdx < 0:
			return n, nil, noKey(spec, true)
		case secret:
			k.sec.subs = append(k.sec.subs[:secIdx:secIdx], k.sec.subs[secIdx+1:]...)
		case secIdx >= 0:
			return n, nil, hasSecretError(strings.ToUpper(fmt.Sprintf("%x", b)))
		default:
			k.pub.subs = append(k.pub.subs[:idx:idx], k.pub.subs[idx+1:]...)
		}
		if err := k.refresh(); err != nil {
			return n, nil, err
		}
		n++
	}
	return n, rest, nil
}

// bySubkeyFingerprint finds the key with the subkey whose fingerprint is
// fpr, and the subkey's index in its certificate.
func (r *Ring) bySubkeyFingerprint(fpr []byte) (*Key, int) {
	for _, k := range r.keys {
		if i := subIndex(k.pub, fpr); i >= 0 {
			return k, i
		}
	}
	return nil, -1
}

// subIndex is the index of the subkey of b with fingerprint fpr, or -1.
func subIndex(b *block, fpr []byte) int {
	for i, c := range b.subs {
		if pk, _, err := parseKey(c.pkt); err == nil && bytes.Equal(pk.Fingerprint, fpr) {
			return i
		}
	}
	return -1
}
