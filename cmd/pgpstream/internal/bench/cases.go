package bench

import (
	"bytes"
	"crypto/cipher"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"hash"
	"io"
	"sync"

	"github.com/ProtonMail/go-crypto/openpgp"
	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"
	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // OpenPGP still names it

	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/packet"
)

// Group names a table of the bench command.
type Group string

const (
	Cipher  Group = "cipher"  // every mode: CFB and the AEAD modes
	AEAD    Group = "aead"    // the AEAD modes only
	Hash    Group = "hash"    // the digests OpenPGP uses
	Message Group = "message" // filter.Encrypt / filter.Decrypt in memory
)

// Groups are the groups a bare "bench" runs (AEAD is part of Cipher).
var Groups = []Group{Cipher, Hash, Message}

// Case is one row: an algorithm, a mode and how to set it up.
type Case struct {
	Group Group
	Algo  string // "AES-128", "SHA-256", "SEIPD v1"
	Mode  string // "CFB enc", "OCB auth", "" for hashes
	Impl  func() string
	// Setup prepares buffers and keys for sizes up to max and returns the
	// operation to time. An error wrapping ErrSkip leaves the row out.
	Setup func(max int) (Op, error)
	Sizes Sizes // zero: DefaultSizes
}

// ErrSkip marks a case this build cannot run.
var ErrSkip = errors.New("not available in this build")

// Result is one measured row.
type Result struct {
	Case
	NsPerByte float64
	Impl      string
}

var aesKeys = []struct {
	name string
	size int
}{{"AES-128", 16}, {"AES-192", 24}, {"AES-256", 32}}

// Cases lists every row in table order.
func Cases() []Case {
	var out []Case
	for _, k := range aesKeys {
		out = append(out, cipherCases(k.name, k.size)...)
	}
	for _, h := range []struct {
		name string
		new  func() hash.Hash
	}{
		{"SHA-1", sha1.New}, {"SHA-256", sha256.New}, {"SHA-512", sha512.New}, {"RIPEMD-160", ripemd160.New},
	} {
		out = append(out, hashCase(h.name, h.new))
	}
	out = append(out, messageCases()...)
	return out
}

func cipherCases(algo string, keySize int) []Case {
	key := bytes.Repeat([]byte{0x42}, keySize)
	iv := make([]byte, 16)
	stream := func(mode string, mk func(key, iv []byte) (cipher.Stream, error)) Case {
		return Case{Group: Cipher, Algo: algo, Mode: mode, Impl: cfbImplementation, Setup: func(max int) (Op, error) {
			s, err := mk(key, iv)
			if err != nil {
				return nil, err
			}
			buf := make([]byte, max)
			return func(n int) { s.XORKeyStream(buf[:n], buf[:n]) }, nil
		}}
	}
	cases := []Case{
		stream("CFB enc", newCFBEncrypter),
		stream("CFB dec", newCFBDecrypter),
	}
	aeads := []struct {
		mode  string
		nonce int
		impl  func() string
		mk    func() (cipher.AEAD, error)
	}{
		{"OCB", 15, ocbImplementation, func() (cipher.AEAD, error) { return newOCB(key, 15) }},
		{"GCM", 12, gcmImplementation, func() (cipher.AEAD, error) { return newGCM(key) }},
		{"EAX", 16, eaxImplementation, func() (cipher.AEAD, error) { return newEAX(key) }},
	}
	for _, a := range aeads {
		cases = append(cases, aeadCases(algo, a.mode, a.nonce, a.impl, a.mk, a.mode != "EAX")...)
	}
	return cases
}

// aeadCases are libgcrypt's enc, dec and auth rows: auth authenticates the
// buffer as associated data and encrypts nothing.
func aeadCases(algo, mode string, nonceSize int, impl func() string, mk func() (cipher.AEAD, error), auth bool) []Case {
	nonce := make([]byte, nonceSize)
	c := func(what string, setup func(a cipher.AEAD, max int) Op) Case {
		return Case{Group: AEAD, Algo: algo, Mode: mode + " " + what, Impl: impl, Setup: func(max int) (Op, error) {
			a, err := mk()
			if err != nil {
				return nil, err
			}
			return setup(a, max), nil
		}}
	}
	out := []Case{
		c("enc", func(a cipher.AEAD, max int) Op {
			buf := make([]byte, max+a.Overhead())
			return func(n int) { a.Seal(buf[:0], nonce, buf[:n], nil) }
		}),
		c("dec", func(a cipher.AEAD, max int) Op {
			// Open needs a valid tag, so seal once per size up front.
			plain := make([]byte, max)
			sealed := map[int][]byte{}
			dst := make([]byte, max)
			return func(n int) {
				s, ok := sealed[n]
				if !ok {
					s = a.Seal(nil, nonce, plain[:n], nil)
					sealed[n] = s
				}
				if _, err := a.Open(dst[:0], nonce, s, nil); err != nil {
					panic("bench: " + mode + " failed to open its own output")
				}
			}
		}),
	}
	if auth {
		out = append(out, c("auth", func(a cipher.AEAD, max int) Op {
			ad := make([]byte, max)
			tag := make([]byte, 0, a.Overhead())
			return func(n int) { a.Seal(tag[:0], nonce, nil, ad[:n]) }
		}))
	}
	return out
}

func hashCase(name string, mk func() hash.Hash) Case {
	return Case{Group: Hash, Algo: name, Impl: func() string {
		if name == "RIPEMD-160" {
			return "x/crypto/ripemd160 (generic Go)"
		}
		return stdlibSHA(name)
	}, Setup: func(max int) (Op, error) {
		h := mk()
		buf := make([]byte, max)
		sum := make([]byte, 0, h.Size())
		return func(n int) {
			h.Reset()
			h.Write(buf[:n])
			sum = h.Sum(sum[:0])
		}, nil
	}}
}

// MessageFormats are the rows of the message table; a new row is one line
// here.
var MessageFormats = []struct {
	Name   string
	Format filter.Format
	AEAD   packet.AEADAlgo
	// Legacy decrypts with --legacy-literal-hash: SHA-1 and RIPEMD-160
	// over the literal data, what GnuPG pays on every message. The row
	// shows that cost next to the plain SEIPD v1 one (decrypt only).
	Legacy bool
}{
	{"SEIPD v1", filter.SEIPDv1, 0, false},
	{"SEIPD v1 legacy hash", filter.SEIPDv1, 0, true},
	{"SEIPD v2 OCB", filter.SEIPDv2, packet.AEADOCB, false},
	{"SEIPD v2 GCM", filter.SEIPDv2, packet.AEADGCM, false},
	{"SEIPD v2 EAX", filter.SEIPDv2, packet.AEADEAX, false},
	{"AEAD (tag 20) OCB", filter.AEADv1, packet.AEADOCB, false},
}

// messageSizes step through several chunks and partial-length packets, so
// the per-chunk costs are in the slope and the per-message ones (S2K, the
// buffers filter allocates) in the intercept.
var messageSizes = Sizes{Step: 64 << 10, Count: 8}

// benchKey is a throwaway X25519 recipient. A public-key session key costs
// the same for every format, where a passphrase would cost Argon2 for
// SEIPD v2 and iterated SHA-256 for v1: tens of milliseconds of intercept
// that would bury the slope in noise.
var benchKey = sync.OnceValues(func() (*gcpacket.PrivateKey, error) {
	e, err := openpgp.NewEntity("pgpstream bench", "", "", &gcpacket.Config{Algorithm: gcpacket.PubKeyAlgoEd25519})
	if err != nil {
		return nil, err
	}
	if len(e.Subkeys) == 0 || e.Subkeys[0].PrivateKey == nil {
		return nil, errors.New("bench: the generated key has no encryption subkey")
	}
	return e.Subkeys[0].PrivateKey, nil
})

// benchKeys hands filter.Decrypt the throwaway key.
type benchKeys struct{ priv *gcpacket.PrivateKey }

func (k benchKeys) DecryptionKeys(*packet.PKESK) []*gcpacket.PrivateKey {
	return []*gcpacket.PrivateKey{k.priv}
}
func (benchKeys) Unlock(*gcpacket.PrivateKey) error { return nil }
func (benchKeys) Passphrase() ([]byte, error)       { return nil, errors.New("no passphrase") }

func messageCases() []Case {
	var out []Case
	for _, f := range MessageFormats {
		f := f
		opt := func() filter.EncryptOptions {
			priv, _ := benchKey()
			return filter.EncryptOptions{
				Recipients: []filter.Recipient{{Pub: &priv.PublicKey}},
				Cipher:     packet.CipherAES256,
				Format:     f.Format,
				AEAD:       f.AEAD,
				// 64 KiB chunks: one per step of messageSizes, so the
				// per-chunk tag and nonce work is in the slope.
				ChunkByte: 10,
				Literal:   packet.Literal{Format: 'b'},
			}
		}
		impl := func() string {
			switch f.AEAD {
			case packet.AEADOCB:
				return ocbImplementation()
			case packet.AEADGCM:
				return gcmImplementation()
			case packet.AEADEAX:
				return eaxImplementation()
			}
			impl := cfbImplementation() + ", MDC " + stdlibSHA("SHA-1")
			if f.Legacy {
				impl += ", + " + stdlibSHA("SHA-1") + " and RIPEMD-160 over the data"
			}
			return impl
		}
		if !f.Legacy {
			out = append(out, Case{Group: Message, Algo: f.Name, Mode: "encrypt", Impl: impl, Sizes: messageSizes, Setup: func(max int) (Op, error) {
				if _, err := benchKey(); err != nil {
					return nil, err
				}
				plain := make([]byte, max)
				o := opt()
				if _, err := filter.Encrypt(bytes.NewReader(plain[:1]), io.Discard, o); err != nil {
					return nil, err
				}
				r := new(bytes.Reader)
				return func(n int) {
					r.Reset(plain[:n])
					if _, err := filter.Encrypt(r, io.Discard, o); err != nil {
						panic("bench: " + err.Error())
					}
				}, nil
			}})
		}
		out = append(out,
			Case{Group: Message, Algo: f.Name, Mode: "decrypt", Impl: impl, Sizes: messageSizes, Setup: func(max int) (Op, error) {
				priv, err := benchKey()
				if err != nil {
					return nil, err
				}
				o := opt()
				msgs := map[int][]byte{}
				for n := messageSizes.Step; n <= max; n += messageSizes.Step {
					var buf bytes.Buffer
					if _, err := filter.Encrypt(bytes.NewReader(make([]byte, n)), &buf, o); err != nil {
						return nil, err
					}
					msgs[n] = buf.Bytes()
				}
				dopt := filter.DecryptOptions{Keys: benchKeys{priv}, LegacyLiteralHash: f.Legacy}
				// Probe once, so a failure is an error rather than a panic
				// in the middle of the measurement.
				if _, err := filter.Decrypt(bytes.NewReader(msgs[messageSizes.Step]), io.Discard, dopt); err != nil {
					return nil, err
				}
				r := new(bytes.Reader)
				return func(n int) {
					m, ok := msgs[n]
					if !ok {
						// Calibration asks for sizes off the ladder.
						var buf bytes.Buffer
						filter.Encrypt(bytes.NewReader(make([]byte, n)), &buf, o)
						m = buf.Bytes()
						msgs[n] = m
					}
					r.Reset(m)
					if _, err := filter.Decrypt(r, io.Discard, dopt); err != nil {
						panic("bench: " + err.Error())
					}
				}, nil
			}},
		)
	}
	return out
}
