//go:build !amd64 || purego

package hwf

import "golang.org/x/sys/cpu"

// Without the CPUID probe (the pure-Go build has no assembly at all) the
// kernel's flags tell; only the report uses them, since no engine of this
// build runs VAES.
func x86HasVAES() bool    { return cpu.X86.HasAVX2 && cpuinfoFlags()["vaes"] }
func x86HasVPCLMUL() bool { return cpu.X86.HasAVX2 && cpuinfoFlags()["vpclmulqdq"] }
