package hwf

import (
	"os"
	"runtime"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestVAESMatchesKernel checks the CPUID probe against what the kernel
// reports: the two must agree on VAES and VPCLMULQDQ whenever the kernel
// says anything, AVX-512 or not.
func TestVAESMatchesKernel(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("x86 only")
	}
	flags := cpuinfoFlags()
	if len(flags) == 0 {
		t.Skip("no /proc/cpuinfo")
	}
	if got, want := Detected(VAES), flags["vaes"] && cpu.X86.HasAVX2; got != want {
		t.Errorf("Detected(VAES) = %v, kernel says %v", got, want)
	}
	if got, want := Detected(VPCLMUL), flags["vpclmulqdq"] && cpu.X86.HasAVX2; got != want {
		t.Errorf("Detected(VPCLMUL) = %v, kernel says %v", got, want)
	}
	if cpu.X86.HasAVX512VAES && !Detected(VAES) {
		t.Error("x/sys/cpu reports the AVX-512 form of VAES but Detected(VAES) is false")
	}
}

func TestDisable(t *testing.T) {
	for _, n := range Names() {
		if err := Disable(n); err != nil {
			t.Fatal(err)
		}
		if Has(n) {
			t.Errorf("Has(%q) after Disable", n)
		}
		Enable(n)
		if Has(n) != Detected(n) {
			t.Errorf("Has(%q) != Detected after Enable", n)
		}
	}
	if err := Disable("nosuch"); err == nil {
		t.Error("Disable accepted an unknown name")
	}
}

// TestExpectedAES pins what the CPU flags must say when the caller knows:
// make test-arm64 runs the tests under qemu once on a CPU with the AES
// instructions (PGPSTREAM_EXPECT_AES=1) and once with them hidden (=0), so
// a run meant for the assembly cannot pass on a silent fallback.
func TestExpectedAES(t *testing.T) {
	want := os.Getenv("PGPSTREAM_EXPECT_AES")
	if want == "" {
		t.Skip("PGPSTREAM_EXPECT_AES not set")
	}
	if got := Detected(AES); got != (want == "1") {
		t.Fatalf("Detected(AES) = %v, PGPSTREAM_EXPECT_AES=%s", got, want)
	}
}
