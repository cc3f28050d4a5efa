package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/internal/hwf"
	"github.com/pgpstream/pgpstream/internal/testpeer"
)

var hwflistRE = regexp.MustCompile(`(?m)^hwflist:((?:[a-z0-9.-]+:)*)$`)

// hwflist returns the features a version report lists as in use.
func hwflist(t *testing.T, out string) map[string]bool {
	t.Helper()
	m := hwflistRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no hwflist: line in the shape libgcrypt prints:\n%s", out)
	}
	set := map[string]bool{}
	for _, f := range strings.Split(strings.TrimSuffix(m[1], ":"), ":") {
		if f != "" {
			set[f] = true
		}
	}
	return set
}

// versionOutput runs pgpstream in-process. hwf's switches are process-wide,
// so whatever --disable-hwf switched off is switched on again afterwards.
func versionOutput(t *testing.T, args ...string) string {
	t.Helper()
	defer func() {
		for _, n := range hwf.Names() {
			hwf.Enable(n)
		}
	}()
	var stdout, stderr bytes.Buffer
	if code := run(append([]string{"pgpstream"}, args...), strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("pgpstream %v: exit %d: %s", args, code, stderr.String())
	}
	return stdout.String()
}

// TestVersionHWFList checks the hwflist: line against what hwf detected, and
// that a feature switched off leaves it (and the engine that needs it).
func TestVersionHWFList(t *testing.T) {
	out := versionOutput(t, "version")
	got := hwflist(t, out)
	var want map[string]bool
	switch runtime.GOARCH {
	case "amd64":
		want = map[string]bool{
			"intel-aesni":        hwf.Detected(hwf.AES),
			"intel-pclmul":       hwf.Detected(hwf.PCLMUL),
			"intel-avx2":         hwf.Detected(hwf.AVX2),
			"intel-vaes-vpclmul": hwf.Detected(hwf.VAES) && hwf.Detected(hwf.VPCLMUL),
			"intel-shaext":       hwf.Detected(hwf.SHA),
			"intel-avx512":       hwf.Detected(hwf.AVX512),
		}
	case "arm64":
		want = map[string]bool{
			"arm-neon":  hwf.Detected(hwf.NEON),
			"arm-aes":   hwf.Detected(hwf.AES),
			"arm-pmull": hwf.Detected(hwf.PCLMUL),
		}
	default:
		if len(got) != 0 {
			t.Errorf("hwflist on %s: %v", runtime.GOARCH, got)
		}
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("hwflist has %s: %v, detected %v\n%s", name, got[name], w, out)
		}
	}
	for _, line := range []string{"SHA-1 ", "SHA-256 ", "OCB ", "CFB ", "EAX "} {
		if !strings.Contains(out, "\n  "+line) {
			t.Errorf("no engine line for %q:\n%s", line, out)
		}
	}
	if !strings.Contains(out, "Go standard library's crypto/sha1 and crypto/sha256") {
		t.Errorf("version does not say where SHA-1/SHA-256 come from:\n%s", out)
	}

	if runtime.GOARCH == "amd64" && hwf.Detected(hwf.AES) && !hwf.PureGo {
		off := versionOutput(t, "--disable-hwf", "aes", "version")
		if hwflist(t, off)["intel-aesni"] {
			t.Errorf("--disable-hwf aes still lists intel-aesni:\n%s", off)
		}
		if !strings.Contains(off, "OCB          pgpstream OCB: pure Go") {
			t.Errorf("--disable-hwf aes: OCB not on pure Go:\n%s", off)
		}
		if hwf.Detected(hwf.VAES) && hwf.Detected(hwf.AVX2) {
			off = versionOutput(t, "--disable-hwf", "avx512", "version")
			if !strings.Contains(off, "OCB          pgpstream OCB: vaes avx2 asm") {
				t.Errorf("--disable-hwf avx512: OCB not on the VAES-AVX2 loop:\n%s", off)
			}
			off = versionOutput(t, "--disable-hwf", "vaes", "version")
			if !strings.Contains(off, "OCB          pgpstream OCB: aes-ni asm (8 blocks/pass)") {
				t.Errorf("--disable-hwf vaes: OCB not on the 8-block loop:\n%s", off)
			}
		}
	}
}

// TestVersionARM64 builds pgpstream for linux/arm64 and runs its version
// command under qemu-user, on a CPU with the crypto extension and with AES
// hidden, so the arm64 report is checked on every machine that has qemu.
func TestVersionARM64(t *testing.T) {
	if runtime.GOARCH == "arm64" || hwf.PureGo {
		t.Skip("runs the arm64 build from another architecture")
	}
	qemu, err := exec.LookPath("qemu-aarch64")
	if err != nil {
		if qemu, err = exec.LookPath("qemu-aarch64-static"); err != nil {
			testpeer.Missing(t, "qemu-aarch64 is not installed")
		}
	}
	bin := filepath.Join(t.TempDir(), "pgpstream-arm64")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build for arm64: %v\n%s", err, out)
	}
	runARM := func(godebug string) string {
		args := []string{"-cpu", "max"}
		if godebug != "" {
			args = append(args, "-E", "GODEBUG="+godebug)
		}
		out, err := exec.Command(qemu, append(args, bin, "version")...).CombinedOutput()
		if err != nil {
			t.Fatalf("qemu %v: %v\n%s", args, err, out)
		}
		return string(out)
	}

	out := runARM("")
	got := hwflist(t, out)
	for _, f := range []string{"arm-neon", "arm-aes", "arm-pmull", "arm-sha1", "arm-sha2"} {
		if !got[f] {
			t.Errorf("qemu -cpu max: hwflist lacks %s:\n%s", f, out)
		}
	}
	for _, want := range []string{
		"OCB          pgpstream OCB: armv8 aes asm (8 blocks/pass)",
		"CFB          pgpstream CFB: armv8 aes asm",
		"EAX          pgpstream EAX: stdlib AES-CTR + armv8 aes asm OMAC",
		"SHA-256      crypto/sha256 (ARMv8 SHA)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("qemu -cpu max: no %q:\n%s", want, out)
		}
	}

	out = runARM("cpu.aes=off")
	if got := hwflist(t, out); got["arm-aes"] || !got["arm-neon"] {
		t.Errorf("AES hidden: hwflist %v:\n%s", got, out)
	}
	if !strings.Contains(out, "OCB          pgpstream OCB: pure Go") {
		t.Errorf("AES hidden: OCB not on pure Go:\n%s", out)
	}
}
