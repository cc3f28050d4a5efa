package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/cpu"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/bench"
	"github.com/pgpstream/pgpstream/internal/hwf"
)

// printVersion prints what libgcrypt's tests/version prints: the version,
// the toolchain, the CPU features in use as one hwflist: line in
// libgcrypt's spelling (intel-aesni, arm-aes, ...), then each feature with
// whether it was detected and left on, and which implementation each mode
// runs. The first thing to ask about a slow machine is whether its AES
// instructions were found and used, and this answers it in one command.
func printVersion(st *state) error {
	w := st.stdout
	fmt.Fprintf(w, "pgpstream %s\n", version)
	fmt.Fprintf(w, "go: %s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if lvl := goarchLevel(); lvl != "" {
		fmt.Fprintf(w, " (%s)", lvl)
	}
	if hwf.PureGo {
		fmt.Fprint(w, ", purego build")
	}
	fmt.Fprintf(w, ", %d CPUs\n", runtime.NumCPU())
	fmt.Fprintf(w, "%s\n", hwflistLine(hwFeatures()))
	fmt.Fprintln(w, "cpu:")
	for _, f := range hwFeatures() {
		state := "no"
		switch {
		case f.detected && f.disabled:
			state = "disabled"
		case f.detected:
			state = "yes"
		}
		fmt.Fprintf(w, "  %-20s %s\n", f.name, state)
	}
	fmt.Fprintln(w, "engines:")
	for _, e := range bench.Engines() {
		fmt.Fprintf(w, "  %-12s %s\n", e.Name, e.Implementation)
	}
	fmt.Fprintln(w, "note: SHA-1 and SHA-256 are the Go standard library's crypto/sha1 and crypto/sha256,")
	fmt.Fprintln(w, "  whose assembly uses SHA-NI on amd64 and the ARMv8 SHA1/SHA2 instructions on arm64.")
	if d := hwf.Disabled(); len(d) > 0 {
		fmt.Fprintf(w, "disabled: %s\n", strings.Join(d, " "))
	}
	return nil
}

type hwFeature struct {
	name               string // libgcrypt's hwflist name
	detected, disabled bool
}

// hwflistLine is libgcrypt's "hwflist:a:b:c:" line: the features detected
// and not switched off, each followed by a colon.
func hwflistLine(fs []hwFeature) string {
	var b strings.Builder
	b.WriteString("hwflist:")
	for _, f := range fs {
		if f.detected && !f.disabled {
			b.WriteString(f.name + ":")
		}
	}
	return b.String()
}

// hwFeatures is the hwflist for this architecture, in libgcrypt's names and
// order. The --disable-hwf names that switch a feature off are hwf's
// (vaes or vpclmul for intel-vaes-vpclmul, sha for the SHA extensions).
func hwFeatures() []hwFeature {
	d, h := hwf.Detected, hwf.Has
	f := func(name string, detected, on bool) hwFeature {
		return hwFeature{name: name, detected: detected, disabled: detected && !on}
	}
	switch runtime.GOARCH {
	case "amd64":
		return []hwFeature{
			f("intel-pclmul", d(hwf.PCLMUL), h(hwf.PCLMUL)),
			f("intel-aesni", d(hwf.AES), h(hwf.AES)),
			f("intel-avx2", d(hwf.AVX2), h(hwf.AVX2)),
			f("intel-shaext", d(hwf.SHA), h(hwf.SHA)),
			f("intel-vaes-vpclmul", d(hwf.VAES) && d(hwf.VPCLMUL), h(hwf.VAES) && h(hwf.VPCLMUL)),
			f("intel-avx512", d(hwf.AVX512), h(hwf.AVX512)),
		}
	case "arm64":
		sha := h(hwf.SHA)
		return []hwFeature{
			f("arm-neon", d(hwf.NEON), h(hwf.NEON)),
			f("arm-aes", d(hwf.AES), h(hwf.AES)),
			f("arm-sha1", cpu.ARM64.HasSHA1 || hwf.Detected(hwf.SHA), sha),
			f("arm-sha2", cpu.ARM64.HasSHA2 || hwf.Detected(hwf.SHA), sha),
			f("arm-pmull", d(hwf.PCLMUL), h(hwf.PCLMUL)),
			f("arm-sha3", cpu.ARM64.HasSHA3, true),
			f("arm-sha512", cpu.ARM64.HasSHA512, true),
		}
	}
	return nil
}

func goarchLevel() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == "GOAMD64" || s.Key == "GOARM64" {
			return s.Key + "=" + s.Value
		}
	}
	return ""
}

// hwfEnv carries the features a parent process switched off to the copy of
// itself it runs with GODEBUG set.
const hwfEnv = "PGPSTREAM_DISABLED_HWF"

// godebugNames are the GODEBUG cpu.* options that make the standard library
// (and golang.org/x/sys/cpu, which reads the same variable) skip a feature.
// Only names both know are used: either prints a warning for one it does
// not know. VAES has no runtime option; the standard library's AES-GCM
// uses it only together with AVX-512, which avx512 switches off. On arm64
// both know aes, pmull, sha1 and sha2 (but not asimd: neon is ours alone).
func godebugNames(feature string) []string {
	if runtime.GOARCH == "arm64" {
		switch feature {
		case hwf.AES:
			return []string{"aes"}
		case hwf.PCLMUL:
			return []string{"pmull"}
		case hwf.SHA:
			return []string{"sha1", "sha2"}
		}
		return nil
	}
	if runtime.GOARCH != "amd64" {
		return nil
	}
	level := goarchLevel()
	switch feature {
	case hwf.AES:
		return []string{"aes"}
	case hwf.PCLMUL:
		return []string{"pclmulqdq"}
	case hwf.AVX2:
		if level >= "GOAMD64=v3" {
			return nil // required at v3: the runtime refuses to turn it off
		}
		return []string{"avx2"}
	case hwf.AVX512:
		if level >= "GOAMD64=v4" {
			return nil
		}
		return []string{"avx512f"}
	case hwf.SHA:
		// x/sys/cpu has no "sha" option and says so on stderr; the
		// runtime's is what crypto/sha1 and crypto/sha256 read.
		return []string{"sha"}
	}
	return nil
}

// disabledFeatures scans a command line for --disable-hwf before it is
// parsed, so the process can re-run itself before any cipher is set up.
func disabledFeatures(args []string) []string {
	var out []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		name, ok := strings.CutPrefix(strings.TrimLeft(a, "-"), "disable-hwf")
		if !ok || !strings.HasPrefix(a, "-") {
			continue
		}
		switch {
		case name == "" && i+1 < len(args):
			i++
			out = append(out, args[i])
		case strings.HasPrefix(name, "="):
			out = append(out, name[1:])
		}
	}
	return out
}

// applyDisabledHWF switches off what the command line asks, and reports
// whether the process should re-run itself with GODEBUG so that the
// standard library's AES, GHASH and SHA also take their generic paths.
// It returns the environment for that run.
func applyDisabledHWF(args []string) (reexec bool, env []string, err error) {
	if inherited := os.Getenv(hwfEnv); inherited != "" {
		for _, n := range strings.Split(inherited, ",") {
			if err := hwf.Hide(n); err != nil {
				return false, nil, err
			}
		}
	}
	var godebug []string
	var hidden []string
	for _, n := range disabledFeatures(args) {
		n = strings.ToLower(strings.TrimSpace(n))
		if err := hwf.Disable(n); err != nil {
			return false, nil, usageError{msg: "--disable-hwf: " + err.Error()}
		}
		if os.Getenv(hwfEnv) != "" || !hwf.Detected(n) {
			continue
		}
		if names := godebugNames(n); len(names) > 0 {
			hidden = append(hidden, n)
			for _, g := range names {
				godebug = append(godebug, "cpu."+g+"=off")
			}
		}
	}
	if len(godebug) == 0 {
		return false, nil, nil
	}
	gd := strings.Join(godebug, ",")
	if old := os.Getenv("GODEBUG"); old != "" {
		gd = old + "," + gd
	}
	for _, kv := range os.Environ() {
		// The first of two entries wins in Go's getenv: drop the old one.
		if !strings.HasPrefix(kv, "GODEBUG=") && !strings.HasPrefix(kv, hwfEnv+"=") {
			env = append(env, kv)
		}
	}
	env = append(env, "GODEBUG="+gd, hwfEnv+"="+strings.Join(hidden, ","))
	return true, env, nil
}

// reexec replaces the process with a copy of itself in env. argv[0] is
// kept as given (the test harness dispatches on it).
func reexec(args, env []string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	return syscall.Exec(exe, args, env)
}

func hwfNames() []string { return hwf.Names() }

// hwfBefore applies --disable-hwf before any command runs. When pgpstream
// is the process's own entry point (not called in-process by a test) and a
// switched-off feature is one the standard library would use, it re-runs
// itself with GODEBUG=cpu.X=off so crypto/aes, GHASH and crypto/sha* take
// their generic paths too, as libgcrypt's --disable-hwf does for all code.
func hwfBefore(st *state) cli.BeforeFunc {
	return func(c *cli.Context) error { return applyHWF(st, c.StringSlice("disable-hwf")) }
}

// applyHWF switches off the features named (see hwfBefore).
func applyHWF(st *state, names []string) error {
	for _, n := range names {
		if err := hwf.Disable(n); err != nil {
			return usageError{msg: "--disable-hwf: " + err.Error()}
		}
	}
	// The app and its subcommand both run this; re-running (or
	// warning that it could not) is for the first of them only.
	if !processEntry(st) || reexecTried {
		return nil
	}
	reexecTried = true
	again, env, err := applyDisabledHWF(os.Args)
	if err != nil || !again {
		return err
	}
	if err := reexec(os.Args, env); err != nil {
		st.warnf("could not re-run with GODEBUG (%v): the standard library keeps its assembly", err)
	}
	return nil
}

// reexecTried is set once hwfBefore has tried to re-run the process.
var reexecTried bool

// processEntry reports whether this invocation owns the process's standard
// streams, so re-running os.Args reproduces it.
func processEntry(st *state) bool {
	return st.stdin == io.Reader(os.Stdin) && st.stdout == io.Writer(os.Stdout) && unwatched(st.stderr) == io.Writer(os.Stderr)
}
