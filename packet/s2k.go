package packet

import (
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
)

var errSKESKv4Key = errors.New("SKESK v4: wrong passphrase or damaged packet (the session key's cipher octet)")

// iteratedS2K derives len(key) bytes from passphrase with the iterated and
// salted S2K of RFC 9580 §3.7.1.3: salt||passphrase repeated until count
// octets (at least once) go into the hash, in as many hash contexts as
// the key needs, context i preloaded with i zero octets.
//
// It is go-crypto's function fed differently: go-crypto writes salt and
// passphrase into the hash a few bytes per call, and at gpg's default count
// (65 MB) the per-call cost outweighed the hashing (0.16 s of CPU for SHA-1
// with SHA-NI, against 0.04 s for the hash itself). Here the repetition is
// laid out once in a buffer of whole salt||passphrase periods and written
// in blocks of up to s2kBlock bytes.
//
// The simple and salted S2Ks (§3.7.1.1, §3.7.1.2) are the same with no
// salt, or with count below one period: the input goes in once.
func iteratedS2K(key []byte, h HashAlgo, salt []byte, passphrase []byte, count int) error {
	if h.New() == nil {
		return fmt.Errorf("S2K hash %v: not supported", h)
	}
	period := len(salt) + len(passphrase)
	if count < period {
		count = period
	}
	if period == 0 {
		count = 0 // the simple S2K of an empty passphrase hashes nothing
	}
	reps := max(s2kBlock/max(period, 1), 1)
	block := make([]byte, 0, reps*period)
	for range reps {
		block = append(append(block, salt[:]...), passphrase...)
	}
	var zeros []byte
	for done := 0; done < len(key); {
		hh := h.New()
		hh.Write(zeros)
		for left := count; left > 0; {
			n := min(left, len(block))
			hh.Write(block[:n])
			left -= n
		}
		done += copy(key[done:], hh.Sum(nil))
		zeros = append(zeros, 0)
	}
	return nil
}

// s2kBlock is how much of the repetition goes into one hash Write: large
// enough that the call's fixed cost vanishes, small enough to stay in L2.
const s2kBlock = 64 << 10

// decryptV4Iterated recovers the session key of a version 4 SKESK whose
// S2K is simple, salted, or iterated and salted (what gpg -c writes),
// deriving the key with iteratedS2K, for every hash pgpstream knows
// (RIPEMD-160 among them, which go-crypto's S2K lacks). ok is false for
// every other S2K (Argon2, GnuPG's card stubs): go-crypto decrypts those.
func (s *SKESK) decryptV4Iterated(passphrase []byte) (key []byte, c CipherAlgo, ok bool, err error) {
	sp := s.Spec
	switch sp.Type {
	case 0, 1, 3:
	default:
		return nil, 0, false, nil
	}
	if s.Wrapped == nil { // the specifier ends early
		return nil, 0, false, nil
	}
	salt, count := sp.Salt, sp.Octets()
	kekAlgo, h := s.Cipher, sp.Hash
	if kekAlgo.KeySize() == 0 || h.New() == nil {
		return nil, 0, false, nil
	}
	kek := make([]byte, kekAlgo.KeySize())
	if err := iteratedS2K(kek, h, salt, passphrase, count); err != nil {
		return nil, 0, false, err
	}
	esk := s.Wrapped
	if len(esk) == 0 {
		// No encrypted session key: the derived key is the session key.
		return kek, kekAlgo, true, nil
	}
	blk, err := kekAlgo.NewBlock(kek)
	if err != nil {
		return nil, 0, true, err
	}
	// CFB with an IV of zeros (RFC 9580 §5.3.1): the cipher octet, then the key.
	out := make([]byte, len(esk))
	cipher.NewCFBDecrypter(blk, make([]byte, blk.BlockSize())).XORKeyStream(out, esk)
	c = CipherAlgo(out[0])
	key = out[1:]
	if c.KeySize() == 0 || len(key) != c.KeySize() {
		return nil, 0, true, errSKESKv4Key
	}
	return key, c, true, nil
}

// writeSKESKv4 writes a version 4 SKESK (RFC 9580 §5.3.1): iterated and
// salted S2K with SHA-256 over at least count octets, and sessionKey
// encrypted under the derived key (CFB, zero IV) behind its cipher octet,
// in one Write. It derives the key with iteratedS2K, as reading does.
func writeSKESKv4(w io.Writer, c CipherAlgo, sessionKey, passphrase []byte, count int) error {
	if len(sessionKey) != c.KeySize() || c.KeySize() == 0 {
		return fmt.Errorf("SKESK: a session key of %d bytes for %v", len(sessionKey), c)
	}
	var salt [8]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return err
	}
	coded := encodeS2KCount(count)
	kek := make([]byte, c.KeySize())
	if err := iteratedS2K(kek, HashSHA256, salt[:], passphrase, decodeS2KCount(coded)); err != nil {
		return err
	}
	blk, err := c.NewBlock(kek)
	if err != nil {
		return err
	}
	body := []byte{4, byte(c), 3, byte(HashSHA256)}
	body = append(body, salt[:]...)
	body = append(body, coded)
	esk := append([]byte{byte(c)}, sessionKey...)
	cipher.NewCFBEncrypter(blk, make([]byte, blk.BlockSize())).XORKeyStream(esk, esk)
	body = append(body, esk...)
	_, err = w.Write(append(AppendHeader(nil, TagSKESK, int64(len(body))), body...))
	return err
}

// decodeS2KCount is the octet count a coded count stands for.
func decodeS2KCount(c byte) int { return (16 + int(c&15)) << (c>>4 + 6) }

// encodeS2KCount is the smallest coded count of at least count octets
// (the largest, 65011712, for more).
func encodeS2KCount(count int) byte {
	for c := 0; c < 256; c++ {
		if decodeS2KCount(byte(c)) >= count {
			return byte(c)
		}
	}
	return 255
}
