package filter

import (
	"crypto/rand"
	"fmt"
	"io"
	"runtime"

	"github.com/pgpstream/pgpstream/packet"
)

// resolveThreads turns the Threads option into a worker count.
func resolveThreads(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// aeadMode is the mode Encrypt writes: OCB unless opt says otherwise.
func aeadMode(opt EncryptOptions) packet.AEADAlgo {
	if opt.AEAD == 0 {
		return packet.AEADOCB
	}
	return opt.AEAD
}

// seipdV2 decrypts a SEIPD v2 packet whose fixed fields s were just read.
func (d *decryptor) seipdV2(body *packet.Body, s packet.SEIPD) error {
	if err := checkChunkByte("SEIPD", s.Offset, s.ChunkByte); err != nil {
		return err
	}
	if s.AEAD.NonceSize() == 0 || s.Cipher.BlockSize() != 16 {
		return &packet.UnsupportedError{Packet: "SEIPD", Offset: s.Offset, What: fmt.Sprintf("version 2 with %v and %v", s.Cipher, s.AEAD)}
	}
	key, c, info, err := d.sessionKey(true)
	if err != nil {
		return err
	}
	if err := checkGivenCipher(info, c, s.Cipher); err != nil {
		return err
	}
	if len(key) != s.Cipher.KeySize() {
		// A session key of the wrong size for the packet's cipher: a
		// wrong key as far as anyone outside should be able to tell.
		return ErrAuthentication
	}
	suite, err := newSEIPDv2Suite(s.Cipher, s.AEAD, s.ChunkByte, s.Salt[:], key)
	if err != nil {
		return err
	}
	info.Format, info.AEAD, info.Cipher = SEIPDv2, s.AEAD, s.Cipher
	d.begin(info, key)
	return d.insideAEAD(body, suite)
}

// aead decrypts a LibrePGP AEAD Encrypted Data packet (tag 20).
func (d *decryptor) aead(body *packet.Body, h packet.Header) error {
	a, err := packet.ReadAEADData(body, h.Offset)
	if err != nil {
		return err
	}
	key, c, info, err := d.sessionKey(false)
	if err != nil {
		return err
	}
	if err := checkGivenCipher(info, c, a.Cipher); err != nil {
		return err
	}
	// The cipher is the packet's; the PKESK's or SKESK's cipher octet is
	// not authenticated by anything and is not used.
	if len(key) != a.Cipher.KeySize() {
		return ErrAuthentication
	}
	info.Format, info.AEAD, info.Cipher = AEADv1, a.AEAD, a.Cipher
	d.begin(info, key)
	return d.insideAEAD(body, newAEADDataSuite(a, key))
}

func (d *decryptor) insideAEAD(body *packet.Body, s *aeadSuite) error {
	r, err := newAEADReader(body, s, d.opt.Threads)
	if err != nil {
		return err
	}
	defer r.Close()
	return d.inside(r, body)
}

// aeadSetup is an AEAD packet about to be written: its tag, its fixed
// fields, and the suite its chunks are sealed with.
type aeadSetup struct {
	tag   packet.Tag
	head  []byte
	suite *aeadSuite
}

// newAEADSetup chooses the fixed fields of the encrypted data packet for
// opt.Format (SEIPD v2 or tag 20): a fresh salt or IV, and the suite.
func newAEADSetup(opt EncryptOptions, key []byte) (aeadSetup, error) {
	mode := aeadMode(opt)
	if opt.ChunkByte > packet.MaxChunkByte {
		return aeadSetup{}, fmt.Errorf("AEAD chunk size octet %d: at most 16 (4 MiB chunks)", opt.ChunkByte)
	}
	switch opt.Format {
	case SEIPDv2:
		if mode.NonceSize() == 0 {
			return aeadSetup{}, fmt.Errorf("AEAD mode %v: use OCB, EAX or GCM", mode)
		}
		var salt [32]byte
		if _, err := rand.Read(salt[:]); err != nil {
			return aeadSetup{}, err
		}
		s, err := newSEIPDv2Suite(opt.Cipher, mode, opt.ChunkByte, salt[:], key)
		if err != nil {
			return aeadSetup{}, err
		}
		return aeadSetup{packet.TagSEIPD, packet.AppendSEIPDv2(nil, opt.Cipher, mode, opt.ChunkByte, &salt), s}, nil
	case AEADv1:
		if mode != packet.AEADOCB && mode != packet.AEADEAX {
			return aeadSetup{}, fmt.Errorf("AEAD mode %v: the LibrePGP AEAD packet has only OCB and EAX", mode)
		}
		a := packet.AEADData{Version: 1, Cipher: opt.Cipher, AEAD: mode, ChunkByte: opt.ChunkByte, IV: make([]byte, mode.NonceSize())}
		if _, err := rand.Read(a.IV); err != nil {
			return aeadSetup{}, err
		}
		return aeadSetup{packet.TagAEAD, a.Append(nil), newAEADDataSuite(a, key)}, nil
	}
	return aeadSetup{}, fmt.Errorf("format %v is not an AEAD format", opt.Format)
}

// newAEADWriter starts the encrypted data packet set up by a on out: the
// packet header and fixed fields, then a writer that seals the plaintext
// into chunks.
func newAEADWriter(out io.Writer, a aeadSetup, threads int) (io.WriteCloser, error) {
	pw := packet.NewPartialWriter(out, a.tag, ChunkSize)
	if _, err := pw.Write(a.head); err != nil {
		return nil, err
	}
	return newChunkWriter(pw, a.suite, threads)
}

// checkGivenCipher refuses a given session key whose cipher is not the
// AEAD packet's: that cipher is the packet's, and a key for another one
// is a mistake worth naming (0, no cipher given, takes the packet's).
func checkGivenCipher(info SessionKeyInfo, given, data packet.CipherAlgo) error {
	if info.Given && given != 0 && given != data {
		return fmt.Errorf("the given session key is for %v; the message is encrypted with %v", given, data)
	}
	return nil
}
