// Package bench measures the cost per byte of pgpstream's primitives and of
// its whole encrypt/decrypt pipeline, the way libgcrypt's bench-slope does:
// time an operation over several buffer sizes and take the slope of time
// against size. Whatever a call costs regardless of its length (key setup,
// nonce handling, the timer itself, a session key's S2K) lands in the
// intercept and drops out, so the slope is the steady-state price of one
// more byte: the number that decides how fast a large file streams.
//
// The CLI's bench command and the packages' Benchmark functions share this
// code so both report the same thing.
package bench

import (
	"math"
	"sort"
	"time"
)

// Sizes is a ladder of buffer sizes for Slope.
type Sizes struct {
	Step  int // first size and distance between sizes, in bytes
	Count int // number of sizes: Step, 2·Step, ..., Count·Step
}

// DefaultSizes are bench-slope's: 1 KiB to 16 KiB. Large enough that the
// assembly paths run their widest loops, small enough to stay in L1/L2 so
// memory bandwidth does not hide the primitive.
var DefaultSizes = Sizes{Step: 1 << 10, Count: 16}

// Options tune Slope.
type Options struct {
	Sizes   Sizes
	Repeats int           // regressions to run; the median slope is reported
	Budget  time.Duration // rough wall time for one Slope call, calibration included
}

// DefaultOptions keep one row of the bench table near 150 ms.
var DefaultOptions = Options{Sizes: DefaultSizes, Repeats: 5, Budget: 150 * time.Millisecond}

// Op processes its first n bytes of input once. Slope calls it with every
// size of the ladder; it must not allocate per call if the result is to
// mean anything.
type Op func(n int)

// Slope returns the cost of op in nanoseconds per byte.
func Slope(op Op, opt Options) float64 {
	if opt.Sizes.Count < 2 {
		opt.Sizes = DefaultSizes
	}
	if opt.Repeats < 1 {
		opt.Repeats = 1
	}
	if opt.Budget <= 0 {
		opt.Budget = DefaultOptions.Budget
	}
	sizes := make([]int, opt.Sizes.Count)
	total := 0
	for i := range sizes {
		sizes[i] = (i + 1) * opt.Sizes.Step
		total += sizes[i]
	}
	largest := sizes[len(sizes)-1]

	// Warm up (page in the buffers, let the clock ramp) and calibrate: how
	// many calls of each size fit the budget, split over the repeats.
	op(largest)
	perByte := calibrate(op, largest)
	pass := time.Duration(perByte * float64(total)) // one call at every size
	loops := 1
	if pass > 0 {
		loops = int(opt.Budget / time.Duration(opt.Repeats) / pass)
	}
	loops = max(loops, 1)

	x := make([]float64, len(sizes))
	y := make([]float64, len(sizes))
	slopes := make([]float64, 0, opt.Repeats)
	for r := 0; r < opt.Repeats; r++ {
		for i, n := range sizes {
			start := time.Now()
			for l := 0; l < loops; l++ {
				op(n)
			}
			x[i] = float64(n)
			y[i] = float64(time.Since(start).Nanoseconds()) / float64(loops)
		}
		slopes = append(slopes, regression(x, y))
	}
	return median(slopes)
}

// calibrate estimates ns/byte at size n from a quick burst of calls.
func calibrate(op Op, n int) float64 {
	calls := 1
	for {
		start := time.Now()
		for i := 0; i < calls; i++ {
			op(n)
		}
		d := time.Since(start)
		if d >= 2*time.Millisecond || calls >= 1<<20 {
			return float64(d.Nanoseconds()) / float64(calls) / float64(n)
		}
		calls *= 4
	}
}

// regression is the least-squares slope of y over x.
func regression(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	if sxx == 0 {
		return math.NaN()
	}
	return sxy / sxx
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// MiBPerSecond converts a cost in ns/byte to a throughput.
func MiBPerSecond(nsPerByte float64) float64 {
	if nsPerByte <= 0 {
		return math.Inf(1)
	}
	return 1e9 / nsPerByte / (1 << 20)
}

// CyclesPerByte converts a cost in ns/byte at a clock of mhz.
func CyclesPerByte(nsPerByte, mhz float64) float64 { return nsPerByte * mhz / 1e3 }
