package dotlock

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The helper process of TestProcesses: it takes the lock on the file
// named in the environment, says so on standard output, holds it until
// its standard input closes, then releases it.
func TestMain(m *testing.M) {
	if f := os.Getenv("DOTLOCK_TEST_HOLD"); f != "" {
		l, err := Take(f, Options{})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("held")
		buf := make([]byte, 1)
		os.Stdin.Read(buf)
		if err := l.Release(); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestTakeRelease(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pubring.kbx")
	l, err := Take(file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if want := fmt.Sprintf("%10d\n%s\n", os.Getpid(), host); string(data) != want {
		t.Errorf("lock file %q, want gpg's %q", data, want)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(filepath.Dir(file))
	if len(ents) != 0 {
		t.Errorf("left behind after release: %v", ents)
	}
}

func TestGoroutinesContend(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ring")
	var mu sync.Mutex
	inside, most := 0, 0
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				l, err := Take(file, Options{Timeout: 20 * time.Second})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				inside++
				most = max(most, inside)
				mu.Unlock()
				time.Sleep(time.Millisecond)
				mu.Lock()
				inside--
				mu.Unlock()
				if err := l.Release(); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if most != 1 {
		t.Errorf("%d holders at once, want 1", most)
	}
}

// hold starts a process holding the lock on file; closing the returned
// pipe makes it release the lock and exit.
func hold(t *testing.T, file string) (*exec.Cmd, func()) {
	t.Helper()
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), "DOTLOCK_TEST_HOLD="+file)
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if string(buf[:n]) != "held\n" {
		t.Fatalf("helper: %q", buf[:n])
	}
	return c, func() {
		in.Close()
		if err := c.Wait(); err != nil {
			t.Errorf("helper: %v", err)
		}
	}
}

func TestProcesses(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pubring.gpg")
	c, release := hold(t, file)
	_, err := Take(file, Options{Timeout: 300 * time.Millisecond})
	var he *HeldError
	if !errors.As(err, &he) || !errors.Is(err, ErrTimeout) {
		release()
		t.Fatalf("Take while another process holds it: %v, want a HeldError", err)
	}
	if he.PID != c.Process.Pid || !strings.Contains(err.Error(), file+".lock") || !strings.Contains(err.Error(), strconv.Itoa(c.Process.Pid)) {
		t.Errorf("error %q: want the lock file and holder %d named", err, c.Process.Pid)
	}
	// A waiter gets the lock once the holder releases it.
	done := make(chan error, 1)
	go func() {
		l, err := Take(file, Options{Timeout: 10 * time.Second})
		if err == nil {
			err = l.Release()
		}
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("took the lock while it was held (%v)", err)
	default:
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// deadPID is the PID of a process that has exited.
func deadPID(t *testing.T) int {
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return c.Process.Pid
}

func TestStaleTakeover(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pubring.kbx")
	host, _ := os.Hostname()
	pid := deadPID(t)
	if err := os.WriteFile(file+".lock", []byte(fmt.Sprintf("%10d\n%s\n", pid, host)), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Take(file, Options{Timeout: time.Second})
	if err != nil {
		t.Fatalf("stale lock of dead PID %d not taken over: %v", pid, err)
	}
	l.Release()
}

func TestOtherHostNotStale(t *testing.T) {
	// A holder on another host cannot be checked; it is waited for.
	file := filepath.Join(t.TempDir(), "pubring.kbx")
	if err := os.WriteFile(file+".lock", []byte(fmt.Sprintf("%10d\n%s\n", deadPID(t), "elsewhere.example")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Take(file, Options{Timeout: 100 * time.Millisecond})
	var he *HeldError
	if !errors.As(err, &he) || he.Host != "elsewhere.example" {
		t.Fatalf("got %v, want HeldError naming elsewhere.example", err)
	}
}

func TestLiveHolderInGpgFormat(t *testing.T) {
	// A lock file as gpg writes it for a live process of this host.
	file := filepath.Join(t.TempDir(), "trustdb.gpg")
	c := exec.Command("sleep", "30")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	host, _ := os.Hostname()
	os.WriteFile(file+".lock", []byte(fmt.Sprintf("%10d\n%s\n", c.Process.Pid, host)), 0o644)
	_, err := Take(file, Options{Timeout: 100 * time.Millisecond})
	var he *HeldError
	if !errors.As(err, &he) || he.PID != c.Process.Pid {
		t.Fatalf("got %v, want the lock held by %d", err, c.Process.Pid)
	}
}

func TestBadLockFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x")
	os.WriteFile(file+".lock", []byte("garbage"), 0o644)
	_, err := Take(file, Options{Timeout: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), file+".lock") {
		t.Fatalf("got %v, want an error naming the lock file", err)
	}
}
