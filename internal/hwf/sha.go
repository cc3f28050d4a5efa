package hwf

import (
	"os"
	"strings"
	"sync"
)

// golang.org/x/sys/cpu does not report SHA-NI on amd64; the kernel does, in
// /proc/cpuinfo. Elsewhere the answer is "unknown", reported as false.
var x86HasSHA = sync.OnceValue(func() bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "flags") {
			for _, f := range strings.Fields(line) {
				if f == "sha_ni" {
					return true
				}
			}
			return false
		}
	}
	return false
})
