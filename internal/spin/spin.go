// Package spin is how a goroutine of the data path waits for the one
// beside it when the wait is short: a ring's consumer for the next full
// buffer, its producer for a free one.
//
// Parked, each wait is a futex wake of a thread and the runtime's own
// spinning (nanosleep) around it. On a virtual machine that costs more
// than the wait itself when the two sides trade 256 KiB buffers every
// 30-40 µs: decrypting 512 MiB of AES-256 OCB from a file made 3,041
// futex and 2,273 nanosleep calls, about 16% of the samples. Waiting a
// little without parking first takes most of them away.
package spin

import (
	"runtime"
	"time"
)

// Max is the longest a goroutine spins before it parks. A buffer's worth
// of read(2) out of the page cache takes 30-40 µs here, so a side that
// waits for the other's next buffer usually gets it inside Max; a source
// slower than that (a disk, a network file system) costs at most Max of a
// core per buffer, then parks as before.
const Max = 100 * time.Microsecond

// Chan waits, without parking, until ch holds a value or Max has passed;
// the caller then receives from ch as usual (and parks if it must). It
// yields as it goes, so the goroutine it waits for runs even when every
// core is taken.
func Chan[T any](ch chan T) {
	if len(ch) > 0 || runtime.GOMAXPROCS(0) < 2 {
		return
	}
	start := time.Now()
	for len(ch) == 0 && time.Since(start) < Max {
		runtime.Gosched()
	}
}
