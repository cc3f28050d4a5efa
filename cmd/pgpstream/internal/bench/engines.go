package bench

import (
	"crypto/aes"
	"crypto/cipher"
	"runtime"

	"golang.org/x/sys/cpu"

	"github.com/pgpstream/pgpstream/internal/cfb"
	"github.com/pgpstream/pgpstream/internal/eax"
	"github.com/pgpstream/pgpstream/internal/hwf"
	"github.com/pgpstream/pgpstream/internal/ocb"
)

// The engines measured and reported, one constructor each: the ones the
// filters run (internal/ocb, internal/cfb, internal/eax, the standard
// library's GCM), each named by its package's Implementation.
var (
	newCFBEncrypter = func(key, iv []byte) (cipher.Stream, error) { return cfb.NewAESEncrypter(key, iv) }
	newCFBDecrypter = func(key, iv []byte) (cipher.Stream, error) { return cfb.NewAESDecrypter(key, iv) }
	newOCB          = func(key []byte, nonceSize int) (cipher.AEAD, error) { return ocb.New(key, nonceSize) }
	newEAX          = func(key []byte) (cipher.AEAD, error) { return eax.New(key) }
	newGCM          = func(key []byte) (cipher.AEAD, error) {
		b, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		return cipher.NewGCM(b)
	}

	cfbImplementation = func() string { return "pgpstream CFB: " + cfb.Implementation() }
	ocbImplementation = func() string { return "pgpstream OCB: " + ocb.Implementation() }
	eaxImplementation = func() string { return "pgpstream EAX: " + eax.Implementation() }
	gcmImplementation = func() string { return "crypto/cipher GCM, " + stdlibGCM() }
)

// The standard library reads the same GODEBUG=cpu.*=off settings as
// golang.org/x/sys/cpu, so what x/sys/cpu reports is what crypto/aes and
// crypto/sha* do. (hwf.Disable alone cannot reach them: the CLI re-runs
// itself with GODEBUG set, see --disable-hwf.)

func stdlibAES() string {
	switch runtime.GOARCH {
	case "amd64":
		if cpu.X86.HasAES {
			return "crypto/aes (AES-NI)"
		}
	case "arm64":
		if cpu.ARM64.HasAES {
			return "crypto/aes (ARMv8 AES)"
		}
	case "s390x":
		if cpu.S390X.HasAES {
			return "crypto/aes (CPACF)"
		}
	case "ppc64le", "ppc64":
		return "crypto/aes (POWER8 vcipher)"
	}
	return "crypto/aes (generic Go)"
}

func stdlibGCM() string {
	switch runtime.GOARCH {
	case "amd64":
		if cpu.X86.HasAES && cpu.X86.HasPCLMULQDQ {
			return "AES-NI + PCLMULQDQ"
		}
	case "arm64":
		if cpu.ARM64.HasAES && cpu.ARM64.HasPMULL {
			return "ARMv8 AES + PMULL"
		}
	}
	return "generic Go"
}

func stdlibSHA(name string) string {
	switch runtime.GOARCH {
	case "amd64":
		// x/sys/cpu does not report SHA-NI; hwf does, and --disable-hwf
		// sha sets GODEBUG=cpu.sha=off for the standard library.
		if hwf.Has(hwf.SHA) && (name == "SHA-1" || name == "SHA-256") {
			return "crypto/" + stdlibPkg(name) + " (SHA-NI)"
		}
		if cpu.X86.HasAVX2 && cpu.X86.HasBMI2 {
			return "crypto/" + stdlibPkg(name) + " (AVX2)"
		}
	case "arm64":
		if hwf.Has(hwf.SHA) {
			return "crypto/" + stdlibPkg(name) + " (ARMv8 SHA)"
		}
	}
	return "crypto/" + stdlibPkg(name) + " (generic Go)"
}

func stdlibPkg(name string) string {
	switch name {
	case "SHA-1":
		return "sha1"
	case "SHA-256":
		return "sha256"
	case "SHA-512":
		return "sha512"
	}
	return name
}

// Engine names one engine and the implementation it runs on this machine.
type Engine struct {
	Name           string // "OCB", "CFB", ...
	Implementation string
}

// Engines lists the engines pgpstream uses and which path each takes now,
// after any hwf.Disable.
func Engines() []Engine {
	return []Engine{
		{"AES", stdlibAES()},
		{"CFB", cfbImplementation()},
		{"OCB", ocbImplementation()},
		{"EAX", eaxImplementation()},
		{"GCM", gcmImplementation()},
		{"SHA-1", stdlibSHA("SHA-1")},
		{"SHA-256", stdlibSHA("SHA-256")},
		{"SHA-512", stdlibSHA("SHA-512")},
		{"RIPEMD-160", "x/crypto/ripemd160 (generic Go)"},
	}
}
