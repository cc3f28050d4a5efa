// Package clock is the time pgpstream works at: signature and key
// creation times, expiry and validity checks. It is the system clock
// unless gpg's --faked-system-time set another (Set): that time, frozen
// or running on from when it was set.
package clock

import (
	"sync/atomic"
	"time"
)

type faked struct {
	at     time.Time // the time given
	since  time.Time // the system time when it was given
	frozen bool
}

var cur atomic.Pointer[faked]

// Now returns the current time of the clock.
func Now() time.Time {
	f := cur.Load()
	if f == nil {
		return time.Now()
	}
	if f.frozen {
		return f.at
	}
	return f.at.Add(time.Since(f.since))
}

// Set makes the clock read at from now on; frozen stops it there,
// otherwise it runs on from at.
func Set(at time.Time, frozen bool) {
	cur.Store(&faked{at: at, since: time.Now(), frozen: frozen})
}

// Reset returns the clock to the system clock.
func Reset() { cur.Store(nil) }
