// Package hwf reports the CPU features the fast engines may use, and lets a
// user switch them off (pgpstream's --disable-hwf, like libgcrypt's) so the
// pure-Go paths can be measured and tested on the same machine.
//
// Engines read these flags when a cipher is constructed, never per block, so
// Disable must be called before any key is set up (the CLI does so while
// parsing flags).
package hwf

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/cpu"
)

// Feature names accepted by Disable, as --disable-hwf spells them.
const (
	AES    = "aes"    // AES-NI on amd64, the AES instructions on arm64
	PCLMUL = "pclmul" // PCLMULQDQ / PMULL
	AVX2   = "avx2"
	AVX512 = "avx512"
	// VAES is the VEX/EVEX form of the AES instructions that works on
	// whole ymm (and, with AVX-512, zmm) registers. It is detected
	// apart from AVX-512: many CPUs (Zen 3, Intel client cores since
	// Alder Lake) have it at 256-bit width only.
	VAES    = "vaes"
	VPCLMUL = "vpclmul" // VPCLMULQDQ, the ymm/zmm carry-less multiply
	SHA     = "sha"     // SHA-NI / the arm64 SHA1/SHA2 instructions
	NEON    = "neon"    // arm64 Advanced SIMD, under every arm64 engine
)

var (
	mu       sync.Mutex
	disabled = map[string]bool{}
)

// Names lists the features Disable accepts.
func Names() []string { return []string{AES, PCLMUL, AVX2, AVX512, VAES, VPCLMUL, SHA, NEON} }

// Disable switches a feature off for every engine constructed afterwards.
func Disable(name string) error {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, n := range Names() {
		if n == name {
			mu.Lock()
			disabled[name] = true
			mu.Unlock()
			return nil
		}
	}
	return fmt.Errorf("unknown hardware feature %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Enable undoes Disable; tests use it to compare both paths in one process.
func Enable(name string) {
	mu.Lock()
	delete(disabled, strings.ToLower(name))
	mu.Unlock()
}

// Disabled lists the features switched off, sorted.
func Disabled() []string {
	mu.Lock()
	defer mu.Unlock()
	var out []string
	for n := range disabled {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func isOff(name string) bool {
	mu.Lock()
	defer mu.Unlock()
	return disabled[name]
}

// hidden are features the parent process detected and then hid from this
// one with GODEBUG=cpu.X=off, which golang.org/x/sys/cpu honours: they are
// present in the CPU, and off.
var hidden = map[string]bool{}

// Hide records that name was detected by the process that started this one
// and switched off for it (pgpstream --disable-hwf re-runs itself with
// GODEBUG so the standard library's assembly is off too). Detected keeps
// reporting it; Has does not.
func Hide(name string) error {
	if err := Disable(name); err != nil {
		return err
	}
	mu.Lock()
	hidden[strings.ToLower(strings.TrimSpace(name))] = true
	mu.Unlock()
	return nil
}

// Has reports whether the CPU has the feature and the user has not disabled it.
func Has(name string) bool {
	return Detected(name) && !isOff(name)
}

// Detected reports what the CPU offers, whatever the user disabled.
func Detected(name string) bool {
	mu.Lock()
	h := hidden[name]
	mu.Unlock()
	if h {
		return true
	}
	switch runtime.GOARCH {
	case "amd64":
		switch name {
		case AES:
			return cpu.X86.HasAES
		case PCLMUL:
			return cpu.X86.HasPCLMULQDQ
		case AVX2:
			return cpu.X86.HasAVX2
		case AVX512:
			return cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL
		case VAES:
			return x86HasVAES()
		case VPCLMUL:
			return x86HasVPCLMUL()
		case SHA:
			return x86HasSHA()
		}
	case "arm64":
		switch name {
		case AES:
			return cpu.ARM64.HasAES
		case PCLMUL:
			return cpu.ARM64.HasPMULL
		case SHA:
			return cpu.ARM64.HasSHA1 && cpu.ARM64.HasSHA2
		case NEON:
			return cpu.ARM64.HasASIMD
		}
	}
	return false
}
