package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/internal/hwf"
)

// pgpstreamExec runs pgpstream in a process of its own in dir, which is
// what --disable-hwf needs: it re-runs the process with GODEBUG set, and
// must not replace the test process itself.
func pgpstreamExec(t *testing.T, dir string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := pgpstreamCmd(t, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PGPSTREAM_HOME="+filepath.Join(dir, ".pgpstream"))
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// version names exactly the features this CPU has.
func TestVersionNamesFeatures(t *testing.T) {
	code, stdout, errOut := runInProcess(nil, "version")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out := string(stdout)
	for _, f := range hwFeatures() {
		want := "no"
		if f.detected {
			want = "yes"
		}
		re := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(f.name) + ` +` + want + `$`)
		if !re.MatchString(out) {
			t.Errorf("version does not say %s: %s\n%s", f.name, want, out)
		}
	}
	for _, e := range []string{"AES", "CFB", "OCB", "EAX", "GCM", "SHA-1", "SHA-256"} {
		if !strings.Contains(out, "  "+e+" ") {
			t.Errorf("version names no engine for %s", e)
		}
	}
}

// --disable-hwf aes makes every AES engine report its generic path; the
// assertion is on the implementation named, never on a time.
func TestDisableHWFTakesFallback(t *testing.T) {
	if !hwf.Detected(hwf.AES) {
		t.Skip("this CPU has no AES instructions to switch off")
	}
	out, errOut, err := pgpstreamExec(t, t.TempDir(), "--disable-hwf", "aes", "version")
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr not empty: %q", errOut)
	}
	if !regexp.MustCompile(`(?m)^  (intel-aesni|arm-aes) +disabled$`).MatchString(out) {
		t.Errorf("the AES instructions not shown as disabled:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "crypto/aes") && !strings.Contains(line, "generic") {
			t.Errorf("an engine still uses the AES instructions: %q", line)
		}
	}
	// The same for bench, with the flag on the subcommand.
	out, errOut, err = pgpstreamExec(t, t.TempDir(), "bench", "--disable-hwf", "aes", "--cpu-mhz", "3000", "cipher", "aes128", "gcm")
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	if !strings.Contains(out, "GCM enc") || strings.Contains(out, "PCLMULQDQ") && !strings.Contains(out, "generic") {
		t.Errorf("bench --disable-hwf aes:\n%s", out)
	}
}

// A profile is written, pprof reads it, and the output is byte-identical
// with and without profiling.
func TestCPUProfile(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.txt")
	os.WriteFile(plain, bytes.Repeat([]byte("profile me\n"), 1000), 0o644)
	enc := []string{"--batch", "--passphrase", "pw", "--symmetric", "-o", "msg.pgp", "plain.txt"}
	if _, e, err := pgpstreamExec(t, dir, enc...); err != nil {
		t.Fatalf("%v: %s", err, e)
	}
	dec := []string{"--batch", "--passphrase", "pw", "-d", "msg.pgp"}
	want, _, err := pgpstreamExec(t, dir, dec...)
	if err != nil {
		t.Fatal(err)
	}
	got, errOut, err := pgpstreamExec(t, dir, append([]string{"--cpuprofile", "cpu.prof"}, dec...)...)
	if err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	if got != want {
		t.Error("output differs with --cpuprofile")
	}
	if errOut != "" {
		t.Errorf("profiling wrote to stderr: %q", errOut)
	}
	if fi, err := os.Stat(filepath.Join(dir, "cpu.prof")); err != nil || fi.Size() == 0 {
		t.Fatalf("no profile: %v", err)
	}
	// A failing command still writes its profile.
	if _, _, err := pgpstreamExec(t, dir, "--batch", "--passphrase", "wrong", "--memprofile", "mem.prof", "-d", "msg.pgp"); err == nil {
		t.Error("a wrong passphrase succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "mem.prof")); err != nil {
		t.Errorf("no profile after a failure: %v", err)
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH: not reading the profile back")
	}
	out, err := exec.Command(gobin, "tool", "pprof", "-top", filepath.Join(dir, "cpu.prof")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Type: cpu") {
		t.Errorf("go tool pprof -top: %v\n%s", err, out)
	}
}
