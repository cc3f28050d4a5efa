package spin

import (
	"testing"
	"time"
)

// Wait returns once another goroutine delivers, without taking the
// value; after a spin that runs out it parks at once (returns without
// spinning) for the next skipAfterMiss waits, then spins again.
func TestWait(t *testing.T) {
	ch := make(chan int, 1)
	ready := func() bool { return len(ch) > 0 }
	var w Waiter
	go func() {
		time.Sleep(10 * time.Microsecond)
		ch <- 7
	}()
	w.Wait(ready)
	if v := <-ch; v != 7 {
		t.Fatalf("received %d, want 7", v)
	}
	if w.skip != 0 {
		t.Fatalf("a spin that was answered set skip to %d", w.skip)
	}
	w.Wait(ready) // nothing comes: it gives up after Max
	if w.skip != skipAfterMiss {
		t.Fatalf("skip = %d after a spin that ran out, want %d", w.skip, skipAfterMiss)
	}
	for i := range skipAfterMiss {
		w.Wait(ready)
		if w.skip != skipAfterMiss-1-i {
			t.Fatalf("wait %d: skip = %d", i, w.skip)
		}
	}
	ch <- 1
	w.Wait(ready)
	if len(ch) != 1 || w.skip != 0 {
		t.Fatalf("with a value ready: %d queued, skip %d", len(ch), w.skip)
	}
}
