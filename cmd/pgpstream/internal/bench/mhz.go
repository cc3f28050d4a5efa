package bench

import (
	"time"
)

// EstimateMHz estimates the core clock the way bench-slope's --cpu-mhz auto
// does: time a chain of dependent single-cycle integer operations. Each
// operation needs the previous result, so the core retires one per cycle
// whatever its width, and cycles = operations. Turbo and power states make
// this the clock under load, which is the one that matters for c/B.
func EstimateMHz() float64 {
	const iters = 1 << 22 // 8 dependent ops each: ~32M cycles, ~10 ms
	best := 0.0
	for r := 0; r < 5; r++ { // the first runs also wake the core up
		start := time.Now()
		sink = chain(iters, uint64(r)+1)
		d := time.Since(start)
		mhz := float64(iters) * 8 / float64(d.Nanoseconds()) * 1e3
		best = max(best, mhz)
	}
	return best
}

var sink uint64

// chain runs 8 dependent add/xor operations per iteration. The loop
// counter's own increment and compare run beside the chain on other ports.
//
//go:noinline
func chain(n int, seed uint64) uint64 {
	x := seed
	for i := uint64(0); i < uint64(n); i++ {
		x += i
		x ^= i
		x += i
		x ^= i
		x += i
		x ^= i
		x += i
		x ^= i
	}
	return x
}
