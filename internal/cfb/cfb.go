// Package cfb implements the CFB mode used by OpenPGP's version 1
// Symmetrically Encrypted Integrity Protected Data packet (RFC 9580 §5.13.1,
// §5.13.2): plain CFB with full-block feedback and an all-zero IV, without
// the "resync" step of the legacy Symmetrically Encrypted Data packet.
//
// Decryption is parallel (P_i = C_i xor E(C_{i-1}) and every C is known), so
// the AES engine (AES-NI on amd64, the ARMv8 AES instructions on arm64)
// encrypts eight ciphertext blocks per pass, sixteen with VAES. Encryption
// is a chain (C_i = P_i xor E(C_{i-1})) and can go no faster than one AES
// latency per block; the engine runs that chain in one assembly loop.
package cfb

//go:generate go run -C asm . -out ../cfb_amd64.s -stubs ../cfb_amd64_stubs.go -pkg cfb

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"strconv"
	"unsafe"
)

// Stream is like cipher.Stream: XORKeyStream may be called with any lengths,
// not only whole blocks, and the state carries across calls. dst and src may
// overlap only exactly (in place).
type Stream interface {
	XORKeyStream(dst, src []byte)
}

// engine processes whole blocks; stream does the partial-block bookkeeping
// around it, once per call rather than once per block.
type engine interface {
	// encBlocks and decBlocks run CFB over the whole blocks of src, chaining
	// from iv and leaving the last ciphertext block in iv.
	encBlocks(iv, dst, src []byte)
	decBlocks(iv, dst, src []byte)
	// encrypt is one raw block encryption, for partial blocks.
	encrypt(dst, src []byte)
}

// NewEncrypter returns a CFB encrypter for any block cipher (CAST5, 3DES,
// Twofish, Camellia, AES, ...). It panics if len(iv) is not the block size.
func NewEncrypter(block cipher.Block, iv []byte) Stream {
	return newStream(newGoEngine(block), block.BlockSize(), iv, false)
}

// NewDecrypter returns a CFB decrypter for any block cipher. It panics if
// len(iv) is not the block size.
func NewDecrypter(block cipher.Block, iv []byte) Stream {
	return newStream(newGoEngine(block), block.BlockSize(), iv, true)
}

// NewAESEncrypter returns an AES-CFB encrypter on the fastest engine this
// CPU offers (see Implementation). The key is 16, 24 or 32 bytes.
func NewAESEncrypter(key, iv []byte) (Stream, error) { return newAES(key, iv, false, true) }

// NewAESDecrypter is NewAESEncrypter's inverse.
func NewAESDecrypter(key, iv []byte) (Stream, error) { return newAES(key, iv, true, true) }

// NewAESEncrypterPureGo returns the pure-Go AES-CFB encrypter whatever the
// CPU offers, so tests and benchmarks can compare both engines.
func NewAESEncrypterPureGo(key, iv []byte) (Stream, error) { return newAES(key, iv, false, false) }

// NewAESDecrypterPureGo is NewAESEncrypterPureGo's inverse.
func NewAESDecrypterPureGo(key, iv []byte) (Stream, error) { return newAES(key, iv, true, false) }

func newAES(key, iv []byte, decrypt, fast bool) (Stream, error) {
	switch len(key) {
	case 16, 24, 32:
	default:
		return nil, errors.New("cfb: invalid AES key size " + strconv.Itoa(len(key)))
	}
	if len(iv) != aes.BlockSize {
		return nil, errors.New("cfb: IV length must equal the AES block size")
	}
	if fast {
		if e := newAESNI(key); e != nil {
			return newStream(e, aes.BlockSize, iv, decrypt), nil
		}
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return newStream(newGoEngine(b), aes.BlockSize, iv, decrypt), nil
}

type stream struct {
	eng     engine
	decrypt bool
	bs      int
	// fb is the feedback register. Between blocks (pos == 0) it holds the
	// last ciphertext block. Inside a block, fb[:pos] already holds this
	// block's ciphertext bytes and ks = E(previous ciphertext block).
	fb  []byte
	ks  []byte
	pos int
}

func newStream(e engine, bs int, iv []byte, decrypt bool) *stream {
	if len(iv) != bs {
		panic("cfb: IV length must equal the block size")
	}
	buf := make([]byte, 2*bs)
	s := &stream{eng: e, decrypt: decrypt, bs: bs, fb: buf[:bs:bs], ks: buf[bs:]}
	copy(s.fb, iv)
	return s
}

func (s *stream) XORKeyStream(dst, src []byte) {
	if len(dst) < len(src) {
		panic("cfb: output smaller than input")
	}
	dst = dst[:len(src)]
	if inexactOverlap(dst, src) {
		panic("cfb: invalid buffer overlap")
	}
	if s.pos > 0 {
		n := s.partial(dst, src)
		dst, src = dst[n:], src[n:]
	}
	if whole := len(src) - len(src)%s.bs; whole > 0 {
		if s.decrypt {
			s.eng.decBlocks(s.fb, dst[:whole], src[:whole])
		} else {
			s.eng.encBlocks(s.fb, dst[:whole], src[:whole])
		}
		dst, src = dst[whole:], src[whole:]
	}
	if len(src) > 0 {
		s.eng.encrypt(s.ks, s.fb)
		s.partial(dst, src)
	}
}

// partial handles bytes inside one block, at most bs-pos of them: the start
// of a call that continues a block, or the tail of a call.
func (s *stream) partial(dst, src []byte) int {
	n := min(len(src), s.bs-s.pos)
	fb, ks := s.fb[s.pos:s.pos+n], s.ks[s.pos:s.pos+n]
	if s.decrypt {
		// Save the ciphertext first: in place, dst overwrites it.
		copy(fb, src[:n])
		subtle.XORBytes(dst[:n], fb, ks)
	} else {
		subtle.XORBytes(dst[:n], src[:n], ks)
		copy(fb, dst[:n])
	}
	s.pos = (s.pos + n) % s.bs
	return n
}

// goEngine is the portable engine: any cipher.Block, one Encrypt call per
// block, XOR in 64-bit words.
type goEngine struct {
	b  cipher.Block
	bs int
	// ks holds the keystream of one decryption batch. Computing a whole
	// batch before XORing lets in-place decryption read every ciphertext
	// block before it is overwritten, and keeps the XOR a long word loop.
	ks []byte
}

// goBatch is the decryption batch in bytes: 32 AES blocks, small enough to
// stay in L1 beside the caller's data.
const goBatch = 512

func newGoEngine(b cipher.Block) *goEngine {
	bs := b.BlockSize()
	return &goEngine{b: b, bs: bs, ks: make([]byte, max(goBatch/bs, 1)*bs)}
}

func (e *goEngine) encrypt(dst, src []byte) { e.b.Encrypt(dst, src) }

func (e *goEngine) encBlocks(iv, dst, src []byte) {
	bs := e.bs
	for i := 0; i < len(src); i += bs {
		e.b.Encrypt(iv, iv)
		xorWords(iv, iv, src[i:i+bs])
		copy(dst[i:i+bs], iv)
	}
}

func (e *goEngine) decBlocks(iv, dst, src []byte) {
	bs := e.bs
	for len(src) > 0 {
		n := min(len(src), len(e.ks))
		ks := e.ks[:n]
		e.b.Encrypt(ks[:bs], iv)
		for i := bs; i < n; i += bs {
			e.b.Encrypt(ks[i:i+bs], src[i-bs:i])
		}
		copy(iv, src[n-bs:n])
		xorWords(dst[:n], src[:n], ks)
		dst, src = dst[n:], src[n:]
	}
}

// xorWords sets dst = a xor b, eight bytes at a time. len(a) == len(b) ==
// len(dst); a block size that is not a multiple of 8 leaves a short tail
// for subtle.XORBytes.
func xorWords(dst, a, b []byte) {
	n := len(a) &^ 7
	aw, bw, dw := a[:n], b[:n], dst[:n]
	for i := 0; i < n; i += 8 {
		binary.LittleEndian.PutUint64(dw[i:], binary.LittleEndian.Uint64(aw[i:])^binary.LittleEndian.Uint64(bw[i:]))
	}
	if n < len(a) {
		subtle.XORBytes(dst[n:], a[n:], b[n:])
	}
}

// inexactOverlap reports whether x and y share memory other than by starting
// at the same address; CFB cannot work on such buffers.
func inexactOverlap(x, y []byte) bool {
	if len(x) == 0 || len(y) == 0 || &x[0] == &y[0] {
		return false
	}
	xs, ys := uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&y[0]))
	return xs < ys+uintptr(len(y)) && ys < xs+uintptr(len(x))
}
