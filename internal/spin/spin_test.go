package spin

import (
	"testing"
	"time"
)

// Chan returns once a value arrives from another goroutine, without
// taking it, and returns on an empty channel too (then the caller parks).
func TestChan(t *testing.T) {
	ch := make(chan int, 1)
	go func() {
		time.Sleep(10 * time.Microsecond)
		ch <- 7
	}()
	Chan(ch)
	if v := <-ch; v != 7 {
		t.Fatalf("received %d, want 7", v)
	}
	Chan(ch) // nothing comes: it gives up after Max
	if len(ch) != 0 {
		t.Fatal("Chan put a value in the channel")
	}
	ch <- 1
	Chan(ch)
	if len(ch) != 1 {
		t.Fatal("Chan took the value")
	}
}
