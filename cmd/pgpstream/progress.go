package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
)

// progressInterval bounds how often the progress line is redrawn: four
// times a second reads as smooth and costs nothing next to the data path.
const progressInterval = 250 * time.Millisecond

// countingReader counts what passes through it: one atomic add per Read,
// never per byte, so it costs nothing measurable at GB/s.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// progressWanted applies --progress / --no-progress: on by default only
// when standard error is a terminal and --batch was not given.
func progressWanted(st *state, o *options) bool {
	switch {
	case o.noProgress:
		return false
	case o.progress:
		return true
	case o.batch, o.noTTY:
		return false
	}
	f, ok := unwatched(st.stderr).(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// startProgress wraps in with a counter and, if progress is wanted, starts
// a goroutine that shows it on standard error (one line, redrawn with \r)
// and as PROGRESS status lines. The returned stop must be called once the
// command is done; it draws the final state and ends the line.
func startProgress(st *state, o *options, in io.Reader, name, what string, sw *statusWriter) (io.Reader, func()) {
	show := progressWanted(st, o)
	if !show {
		return in, func() {}
	}
	var total int64
	if name != "" {
		if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
			total = fi.Size()
		}
	}
	if name == "" {
		name = "stdin"
	}
	p := &progress{w: st.stderr, status: sw, what: name, total: total, start: time.Now(), quit: make(chan struct{})}
	p.wg.Add(1)
	go p.run()
	var once sync.Once
	return countingReader{in, &p.done}, func() {
		once.Do(func() {
			close(p.quit)
			p.wg.Wait()
		})
	}
}

type progress struct {
	done   atomic.Int64
	w      io.Writer
	status *statusWriter
	what   string
	total  int64
	start  time.Time
	quit   chan struct{}
	wg     sync.WaitGroup
	drawn  bool
	width  int
}

func (p *progress) run() {
	defer p.wg.Done()
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.draw(false)
		case <-p.quit:
			if p.drawn {
				p.draw(true)
			}
			return
		}
	}
}

func (p *progress) draw(final bool) {
	n := p.done.Load()
	elapsed := time.Since(p.start)
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(n) / s
	}
	line := fmt.Sprintf("pgpstream: %s  %s/s", humanBytes(float64(n)), humanBytes(rate))
	if p.total > 0 {
		pct := float64(n) * 100 / float64(p.total)
		line += fmt.Sprintf("  %3.0f%%", min(pct, 100))
		if !final && rate > 0 && n < p.total {
			eta := time.Duration(float64(p.total-n) / rate * float64(time.Second))
			line += "  ETA " + eta.Round(time.Second).String()
		}
	}
	pad := ""
	if len(line) < p.width {
		pad = fmt.Sprintf("%*s", p.width-len(line), "")
	}
	p.width = len(line)
	end := ""
	if final {
		end = "\n"
	}
	fmt.Fprintf(p.w, "\r%s%s%s", line, pad, end)
	p.drawn = true
	p.statusLine(n)
}

// statusLine writes PROGRESS <what> <char> <cur> <total> <units>, scaled
// so the numbers fit the 32-bit integers some status readers parse into.
func (p *progress) statusLine(n int64) {
	if p.status == nil {
		return
	}
	unit, div := "B", int64(1)
	switch m := max(n, p.total); {
	case m >= 1<<40:
		unit, div = "MiB", 1<<20
	case m >= 1<<30:
		unit, div = "KiB", 1<<10
	}
	p.status.Write(status.Progress{What: p.what, Char: "?", Cur: n / div, Total: p.total / div, Units: unit})
}

func humanBytes(v float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f %s", v, units[i])
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}
