// Package spin is how a goroutine of the data path waits for the one
// beside it when the wait is short: a read-ahead ring's consumer for the
// next full buffer, its reader for a free one.
//
// Parked, each wait is a futex wake of a thread and the runtime's own
// spinning (nanosleep) around it. On a virtual machine that costs more
// than the wait itself when the two sides trade 256 KiB buffers every
// 30-40 µs: decrypting 512 MiB of AES-256 OCB from a file made 3,041
// futex and 2,273 nanosleep calls, about 16% of the samples. Waiting a
// little without parking first takes most of them away.
//
// Spinning holds a core, and the runtime does not hand a spinning
// goroutine's core to work queued behind another (a hash, a write). So a
// Waiter spins only while spinning pays: once a spin runs out before
// the other side delivers, it parks at once for the next waits. Measured
// on SEIPD v1 decrypted to a file (the ring, the MDC's hash and the
// writer: four goroutines on two cores), a reader that spun at every
// full ring took 517 ms instead of 420.
package spin

import (
	"runtime"
	"time"
)

// Max is the longest a goroutine spins before it parks. A buffer's worth
// of read(2) out of the page cache takes 30-40 µs here, so a side that
// waits for the other's next buffer usually gets it inside Max; a source
// slower than that (a disk, a network file system) costs at most Max of a
// core now and then, then parks as before.
const Max = 100 * time.Microsecond

// now is the clock; the tests stop it.
var now = time.Now

// skipAfterMiss is how many waits park at once after a spin ran out.
const skipAfterMiss = 16

// Waiter waits for one side of a hand-off. Its zero value is ready; it
// is for one goroutine.
type Waiter struct{ skip int }

// Wait returns once ready reports true or spinning stops paying; the
// caller then takes its value as usual (and parks if it must). It yields
// as it goes, so work queued on its own core runs.
func (w *Waiter) Wait(ready func() bool) {
	if ready() || runtime.GOMAXPROCS(0) < 2 {
		return
	}
	if w.skip > 0 {
		w.skip--
		return
	}
	// The clock is read once in a while: read at every turn, it was 3-6%
	// of a tag 20 decryption's samples (perf, __vdso_clock_gettime);
	// every 16 turns, under 1%.
	start := now()
	for i := 1; !ready(); i++ {
		if i%clockEvery == 0 && now().Sub(start) >= Max {
			w.skip = skipAfterMiss
			return
		}
		runtime.Gosched()
	}
}

// clockEvery is how many turns of the loop go by between reads of the
// clock.
const clockEvery = 16
