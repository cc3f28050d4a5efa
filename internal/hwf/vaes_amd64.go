//go:build amd64 && !purego

package hwf

import (
	"sync"

	"golang.org/x/sys/cpu"
)

//go:generate go run -C asm . -out ../cpuid_amd64.s -stubs ../cpuid_amd64.go -pkg hwf

// golang.org/x/sys/cpu sets HasAVX512VAES and HasAVX512VPCLMULQDQ only when
// the CPU and OS support AVX-512, but the CPUID bits (leaf 7, ECX bits 9 and
// 10) also enable the VEX-encoded ymm forms, which need only AVX and the OS
// saving the ymm state. cpu.X86.HasAVX2 already checks the latter (XGETBV),
// and both engines that use VAES on ymm need AVX2 for the XORs anyway.
var leaf7ECX = sync.OnceValue(func() uint32 {
	if max, _, _, _ := cpuid(0, 0); max < 7 {
		return 0
	}
	_, _, ecx, _ := cpuid(7, 0)
	return ecx
})

func x86HasVAES() bool    { return cpu.X86.HasAVX2 && leaf7ECX()&(1<<9) != 0 }
func x86HasVPCLMUL() bool { return cpu.X86.HasAVX2 && leaf7ECX()&(1<<10) != 0 }
