package startfds_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/pgpstream/pgpstream/internal/startfds"
)

// childEnv makes the test binary report on its descriptors and exit: a
// process started fresh, as pgpstream is.
const childEnv = "STARTFDS_TEST_CHILD"

func TestMain(m *testing.M) {
	if fd := os.Getenv(childEnv); fd != "" {
		var n int
		fmt.Sscan(fd, &n)
		// Open a file first, so the netpoller's descriptors exist too.
		if f, err := os.Open(os.Args[0]); err == nil {
			defer f.Close()
		}
		_, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(n), syscall.F_GETFD, 0)
		fmt.Printf("open=%v inherited=%v\n", errno == 0, startfds.Inherited(n))
		return
	}
	os.Exit(m.Run())
}

// child runs the test binary fresh with extra (descriptor 3 on) and
// returns what it says of descriptor fd.
func child(t *testing.T, fd int, extra []*os.File) string {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", childEnv, fd))
	cmd.ExtraFiles = extra
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// The descriptor the runtime opened at 3 (its cgroup limit file, or the
// netpoller's epoll) is open, and is not the caller's.
func TestRuntimeDescriptorIsNotInherited(t *testing.T) {
	if got := child(t, 3, nil); got != "open=true inherited=false" {
		t.Errorf("started without descriptor 3: %s", got)
	}
}

func TestCallerDescriptorIsInherited(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := child(t, 3, []*os.File{f}); got != "open=true inherited=true" {
		t.Errorf("started with descriptor 3: %s", got)
	}
	// Above the fcntl scan's bound: /proc lists it.
	extra := make([]*os.File, startfds.FDBound+100-3)
	extra[len(extra)-1] = f
	if got := child(t, startfds.FDBound+99, extra); got != "open=true inherited=true" {
		t.Errorf("started with descriptor %d: %s", startfds.FDBound+99, got)
	}
}

// Where /proc is missing, fcntl finds the same descriptors below the bound.
func TestProcAgreesWithFcntl(t *testing.T) {
	proc, ok := startfds.FromProc()
	if !ok {
		t.Fatal("no /proc/self/fd")
	}
	var below []int
	for _, fd := range proc {
		if fd < startfds.FDBound {
			below = append(below, fd)
		}
	}
	slices.Sort(below)
	if got := startfds.ByFcntl(startfds.FDBound); !slices.Equal(got, below) {
		t.Errorf("fcntl %v, /proc %v", got, below)
	}
}

// This package is initialised before internal/poll and os, which open
// descriptors (see the package comment).
func TestInitialisedBeforeOS(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=3", "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if err := initOrder(string(out)); err != nil {
		t.Error(err)
	}
}

// initOrder checks a GODEBUG=inittrace=1 trace: this package's init line
// comes before internal/poll's and os's.
func initOrder(trace string) error {
	at := func(pkg string) int { return strings.Index(trace, "init "+pkg+" @") }
	self := at("github.com/pgpstream/pgpstream/internal/startfds")
	if self < 0 {
		return fmt.Errorf("no init of startfds in the trace:\n%s", trace)
	}
	for _, pkg := range []string{"internal/poll", "os"} {
		if i := at(pkg); i < 0 || i < self {
			return fmt.Errorf("%s is initialised before startfds (or not at all):\n%s", pkg, trace)
		}
	}
	return nil
}
