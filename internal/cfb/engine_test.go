package cfb

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/internal/hwf"
)

// TestEngineMatchesCPU ties the engine that runs to the CPU flags: with the
// AES instructions (and, on arm64, Advanced SIMD) the assembly, without
// them pure Go, and Implementation naming the one that runs. With
// PGPSTREAM_EXPECT_AES set (make test-arm64 sets 1 for qemu's -cpu max and
// 0 for the run with the AES instructions hidden) the flags themselves are
// pinned too, so a silent fallback fails.
func TestEngineMatchesCPU(t *testing.T) {
	asmArch := runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64"
	flags := hwf.Has(hwf.AES) && (runtime.GOARCH != "arm64" || hwf.Has(hwf.NEON))
	want := asmArch && !hwf.PureGo && flags
	if e := os.Getenv("PGPSTREAM_EXPECT_AES"); e != "" && flags != (e == "1") {
		t.Fatalf("AES instructions detected: %v, PGPSTREAM_EXPECT_AES=%s", flags, e)
	}
	s, err := NewAESDecrypter(make([]byte, 16), make([]byte, 16))
	if err != nil {
		t.Fatal(err)
	}
	_, pure := s.(*stream).eng.(*goEngine)
	usesAsm := !pure
	if usesAsm != want {
		t.Errorf("assembly engine in use: %v, want %v (flags %v, purego %v)", usesAsm, want, flags, hwf.PureGo)
	}
	name := Implementation()
	prefix := map[string]string{"amd64": "aes-ni", "arm64": "armv8 aes"}[runtime.GOARCH]
	if !want {
		if strings.Contains(name, "asm") {
			t.Errorf("Implementation() = %q, but the assembly does not run", name)
		}
	} else if !strings.Contains(name, prefix) && !strings.Contains(name, "vaes") {
		t.Errorf("Implementation() = %q on %s, want it to name %q", name, runtime.GOARCH, prefix)
	}
	t.Logf("%s: %s", runtime.GOARCH, name)
}
