package clock

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	defer Reset()
	if d := time.Since(Now()); d < 0 || d > time.Minute {
		t.Fatalf("the system clock is %v away", d)
	}
	at := time.Unix(1000000000, 0)
	Set(at, true)
	time.Sleep(2 * time.Millisecond)
	if got := Now(); !got.Equal(at) {
		t.Fatalf("frozen: %v, want %v", got, at)
	}
	Set(at, false)
	time.Sleep(2 * time.Millisecond)
	if got := Now(); !got.After(at) || got.Sub(at) > time.Minute {
		t.Fatalf("running: %v, want just after %v", got, at)
	}
	Reset()
	if d := time.Since(Now()); d < 0 || d > time.Minute {
		t.Fatalf("after Reset the clock is %v away", d)
	}
}
