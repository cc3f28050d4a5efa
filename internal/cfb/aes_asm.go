//go:build (amd64 || arm64) && !purego

package cfb

import "github.com/pgpstream/pgpstream/internal/aesni"

// Implementation names the AES-CFB engine NewAESEncrypter and
// NewAESDecrypter would pick now.
func Implementation() string {
	if hasAES() && hasWide() {
		return wideName
	}
	if hasAES() {
		return asmName
	}
	return "pure Go"
}

// aesniEngine keeps the expanded encryption key in FIPS-197 byte order,
// round r at xk[16r:], the layout AESENC and AESE take from memory. CFB
// never runs the AES inverse cipher, so there is no decryption schedule.
type aesniEngine struct {
	nr int
	xk [16 * 15]byte
	// wide selects the VAES/AVX2 decryption loop for runs of sixteen
	// blocks (amd64 only).
	wide bool
}

// newAESNI returns nil when the AES instructions are absent or switched
// off, read once here so a key keeps the engine it was built with.
func newAESNI(key []byte) *aesniEngine {
	if !hasAES() {
		return nil
	}
	e := &aesniEngine{wide: hasWide()}
	e.nr = aesni.ExpandKey(key, e.xk[:])
	return e
}

func (e *aesniEngine) encrypt(dst, src []byte) {
	_, _ = dst[15], src[15]
	encryptBlockAsm(e.nr, &e.xk[0], &dst[0], &src[0])
}

func (e *aesniEngine) encBlocks(iv, dst, src []byte) {
	_, _ = iv[15], dst[len(src)-1]
	encryptCFBAsm(e.nr, &e.xk[0], &iv[0], dst, src)
}

func (e *aesniEngine) decBlocks(iv, dst, src []byte) {
	_, _ = iv[15], dst[len(src)-1]
	if n := len(src) &^ 255; e.wide && n > 0 {
		decryptCFBAsmY(e.nr, &e.xk[0], &iv[0], dst[:n], src[:n])
		if n == len(src) {
			return
		}
		dst, src = dst[n:], src[n:]
	}
	decryptCFBAsm(e.nr, &e.xk[0], &iv[0], dst, src)
}
