package spin

import (
	"runtime"
	"testing"
	"time"
)

// The rules, on a stopped clock: a wait that is answered leaves the
// Waiter spinning; one that runs out (ready never true while Max passes)
// makes the next skipAfterMiss waits park at once, without asking ready
// more than once; then it spins again. On one core it never spins.
func TestWait(t *testing.T) {
	// A clock that moves only when ready says so: the test does not
	// depend on how fast it runs.
	var clock time.Time
	now = func() time.Time { return clock }
	t.Cleanup(func() { now = time.Now })
	var w Waiter
	calls := 0
	answeredAt := func(n int) func() bool {
		calls = 0
		return func() bool { calls++; return calls >= n }
	}
	if runtime.GOMAXPROCS(0) < 2 {
		w.Wait(answeredAt(1 << 30))
		if calls != 1 || w.skip != 0 {
			t.Fatalf("one core: ready asked %d times, skip %d; want 1, 0", calls, w.skip)
		}
		return
	}
	w.Wait(answeredAt(3))
	if calls != 3 || w.skip != 0 {
		t.Fatalf("answered on the third look: asked %d times, skip %d", calls, w.skip)
	}
	w.Wait(func() bool { clock = clock.Add(Max / 4); return false })
	if w.skip != skipAfterMiss {
		t.Fatalf("skip = %d after a spin that ran out, want %d", w.skip, skipAfterMiss)
	}
	for i := range skipAfterMiss {
		w.Wait(answeredAt(1 << 30))
		if calls != 1 || w.skip != skipAfterMiss-1-i {
			t.Fatalf("wait %d after the miss: asked %d times, skip %d", i, calls, w.skip)
		}
	}
	w.Wait(answeredAt(2))
	if calls != 2 || w.skip != 0 {
		t.Fatalf("after the skipped waits: asked %d times, skip %d; want a spin", calls, w.skip)
	}
}
