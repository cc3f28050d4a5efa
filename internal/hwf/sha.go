package hwf

import (
	"os"
	"strings"
	"sync"
)

// cpuinfoFlags is the "flags" line of /proc/cpuinfo, what the kernel says
// the CPU has and the OS supports. It answers what golang.org/x/sys/cpu
// does not report on amd64 (SHA-NI) and, on the pure-Go build that has no
// CPUID probe, VAES and VPCLMULQDQ. Elsewhere it is empty: "unknown",
// reported as absent.
var cpuinfoFlags = sync.OnceValue(func() map[string]bool {
	flags := map[string]bool{}
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return flags
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "flags") {
			for _, f := range strings.Fields(line) {
				flags[f] = true
			}
			break
		}
	}
	return flags
})

func x86HasSHA() bool { return cpuinfoFlags()["sha_ni"] }
