// Package eax implements the EAX authenticated-encryption mode (Bellare,
// Rogaway and Wagner, 2004) with AES, as OpenPGP uses it for AEAD-encrypted
// data (RFC 9580 §5.13.3, AEAD algorithm 1): a 16-byte nonce and a 16-byte tag.
//
//	N' = OMAC_K^0(N), H' = OMAC_K^1(H), C = CTR_K(N', M),
//	tag = N' xor H' xor OMAC_K^2(C)
//
// CTR runs on the standard library's multi-block AES-CTR. OMAC (CMAC with a
// one-block tweak prefix) is a CBC-MAC, inherently one AES per block in
// sequence, so its cost is the AES latency plus whatever runs between two
// blocks: with AES-NI or the ARMv8 AES instructions it is one assembly loop
// with the round keys in registers, elsewhere a Go loop with a word-wide XOR
// and one Encrypt call per block. The tweak blocks' first encryption is done once per key.
package eax

//go:generate go run -C asm . -out ../omac_amd64.s -stubs ../omac_amd64_stubs.go -pkg eax

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"strconv"
	"unsafe"
)

const (
	blockSize = 16
	tagSize   = 16
	// NonceSize is what OpenPGP uses (RFC 9580 §5.13.3).
	NonceSize = 16
)

var errOpen = errors.New("eax: message authentication failed")

type eaxAEAD struct {
	block     cipher.Block
	nonceSize int
	// k1 and k2 are CMAC's subkeys 2·L and 4·L, L = E_K(0^128).
	k1, k2 [blockSize]byte
	// start[t] = E_K([t]_128), the OMAC state after the tweak block, and
	// empty[t] = OMAC_K^t of the empty string. Both depend only on the key.
	start, empty [3][blockSize]byte
	// mac is the assembly CBC-MAC engine, nil when the Go loop is used.
	mac *macEngine
}

// New returns AES-EAX with a 16-byte nonce and a 16-byte tag; key is 16, 24
// or 32 bytes.
func New(key []byte) (cipher.AEAD, error) { return NewWithNonceSize(key, NonceSize) }

// NewWithNonceSize returns AES-EAX with the given nonce size (at least one
// byte; EAX takes any length) and a 16-byte tag.
func NewWithNonceSize(key []byte, nonceSize int) (cipher.AEAD, error) {
	switch len(key) {
	case 16, 24, 32:
	default:
		return nil, errors.New("eax: invalid AES key size " + strconv.Itoa(len(key)))
	}
	if nonceSize <= 0 {
		return nil, errors.New("eax: nonce size must be positive")
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	e := &eaxAEAD{block: b, nonceSize: nonceSize, mac: newMACEngine(key)}
	var l [blockSize]byte
	b.Encrypt(l[:], l[:])
	e.k1 = double(l)
	e.k2 = double(e.k1)
	for t := range 3 {
		var tw [blockSize]byte
		tw[blockSize-1] = byte(t)
		b.Encrypt(e.start[t][:], tw[:])
		xor16(&tw, &e.k1)
		b.Encrypt(e.empty[t][:], tw[:])
	}
	return e, nil
}

// double multiplies by x in GF(2^128) with CMAC's polynomial
// x^128 + x^7 + x^2 + x + 1, in constant time.
func double(in [blockSize]byte) [blockSize]byte {
	hi := binary.BigEndian.Uint64(in[:8])
	lo := binary.BigEndian.Uint64(in[8:])
	carry := hi >> 63
	hi = hi<<1 | lo>>63
	lo = lo<<1 ^ (0x87 & -carry)
	var out [blockSize]byte
	binary.BigEndian.PutUint64(out[:8], hi)
	binary.BigEndian.PutUint64(out[8:], lo)
	return out
}

func xor16(dst, src *[blockSize]byte) {
	binary.LittleEndian.PutUint64(dst[:8], binary.LittleEndian.Uint64(dst[:8])^binary.LittleEndian.Uint64(src[:8]))
	binary.LittleEndian.PutUint64(dst[8:], binary.LittleEndian.Uint64(dst[8:])^binary.LittleEndian.Uint64(src[8:]))
}

func (e *eaxAEAD) NonceSize() int { return e.nonceSize }
func (e *eaxAEAD) Overhead() int  { return tagSize }

// omac computes OMAC_K^t(msg) into x. x is the caller's scratch so that the
// three OMACs of one Seal or Open share a single heap block (the AES calls go
// through an interface, which makes their buffers escape).
func (e *eaxAEAD) omac(x *[blockSize]byte, t int, msg []byte) {
	if len(msg) == 0 {
		*x = e.empty[t]
		return
	}
	// n covers all blocks but the last one, which CMAC treats specially.
	n := (len(msg) - 1) &^ (blockSize - 1)
	if e.mac != nil {
		*x = e.start[t]
		if n > 0 {
			e.mac.run(x, msg[:n])
		}
		last := e.lastBlock(msg[n:])
		e.mac.run(x, last[:])
		return
	}
	// The Go loop keeps the state in two words; only the AES call sees it
	// as bytes.
	s0 := binary.LittleEndian.Uint64(e.start[t][:8])
	s1 := binary.LittleEndian.Uint64(e.start[t][8:])
	body := msg[:n]
	for i := 0; i < len(body); i += blockSize {
		m := body[i : i+blockSize]
		binary.LittleEndian.PutUint64(x[:8], s0^binary.LittleEndian.Uint64(m[:8]))
		binary.LittleEndian.PutUint64(x[8:], s1^binary.LittleEndian.Uint64(m[8:]))
		e.block.Encrypt(x[:], x[:])
		s0 = binary.LittleEndian.Uint64(x[:8])
		s1 = binary.LittleEndian.Uint64(x[8:])
	}
	last := e.lastBlock(msg[n:])
	binary.LittleEndian.PutUint64(x[:8], s0^binary.LittleEndian.Uint64(last[:8]))
	binary.LittleEndian.PutUint64(x[8:], s1^binary.LittleEndian.Uint64(last[8:]))
	e.block.Encrypt(x[:], x[:])
}

// lastBlock prepares OMAC's last 1..16 bytes: a full block is masked with
// k1, a short one is padded with 10* and masked with k2.
func (e *eaxAEAD) lastBlock(tail []byte) [blockSize]byte {
	var last [blockSize]byte
	copy(last[:], tail)
	k := &e.k1
	if len(tail) < blockSize {
		last[len(tail)] = 0x80
		k = &e.k2
	}
	xor16(&last, k)
	return last
}

// scratch holds N', H' and the running MAC of one Seal or Open.
type scratch struct {
	n, h, c [blockSize]byte
}

func (e *eaxAEAD) Seal(dst, nonce, plaintext, additionalData []byte) []byte {
	if len(nonce) != e.nonceSize {
		panic("eax: incorrect nonce length given to Seal")
	}
	ret, out := sliceForAppend(dst, len(plaintext)+tagSize)
	if inexactOverlap(out, plaintext) {
		panic("eax: invalid buffer overlap of output and input")
	}
	// Nonce and header are hashed before out is written, so they may share
	// memory with it.
	s := new(scratch)
	e.omac(&s.n, 0, nonce)
	e.omac(&s.h, 1, additionalData)
	ct := out[:len(plaintext)]
	cipher.NewCTR(e.block, s.n[:]).XORKeyStream(ct, plaintext)
	e.omac(&s.c, 2, ct)
	xor16(&s.c, &s.n)
	xor16(&s.c, &s.h)
	copy(out[len(plaintext):], s.c[:])
	return ret
}

func (e *eaxAEAD) Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error) {
	if len(nonce) != e.nonceSize {
		panic("eax: incorrect nonce length given to Open")
	}
	if len(ciphertext) < tagSize {
		return nil, errOpen
	}
	ct, tag := ciphertext[:len(ciphertext)-tagSize], ciphertext[len(ciphertext)-tagSize:]
	ret, out := sliceForAppend(dst, len(ct))
	if inexactOverlap(out, ct) {
		panic("eax: invalid buffer overlap of output and input")
	}
	s := new(scratch)
	e.omac(&s.n, 0, nonce)
	e.omac(&s.h, 1, additionalData)
	e.omac(&s.c, 2, ct)
	xor16(&s.c, &s.n)
	xor16(&s.c, &s.h)
	// EAX authenticates the ciphertext, so the tag is checked before any
	// plaintext exists: a forged message leaves dst untouched.
	if subtle.ConstantTimeCompare(s.c[:], tag) != 1 {
		return nil, errOpen
	}
	cipher.NewCTR(e.block, s.n[:]).XORKeyStream(out, ct)
	return ret, nil
}

// sliceForAppend extends in by n bytes, reallocating if needed, and returns
// the whole slice and the n-byte tail.
func sliceForAppend(in []byte, n int) (head, tail []byte) {
	if total := len(in) + n; cap(in) >= total {
		head = in[:total]
	} else {
		head = make([]byte, total)
		copy(head, in)
	}
	return head, head[len(in):]
}

func anyOverlap(x, y []byte) bool {
	if len(x) == 0 || len(y) == 0 {
		return false
	}
	xs, ys := uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&y[0]))
	return xs < ys+uintptr(len(y)) && ys < xs+uintptr(len(x))
}

// inexactOverlap allows in-place use (same start) but nothing else.
func inexactOverlap(x, y []byte) bool {
	if len(x) == 0 || len(y) == 0 || &x[0] == &y[0] {
		return false
	}
	return anyOverlap(x, y)
}
