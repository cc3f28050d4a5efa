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
// when the messages' stream (standard error, or --logger-fd) is a
// terminal and --batch was not given.
func progressWanted(st *state, o *options) bool {
	switch {
	case o.noProgress:
		return false
	case o.progress:
		return true
	case o.batch, o.noTTY:
		return false
	}
	return terminalFile(unwatched(st.stderr)) != nil
}

// progressLine reports whether the progress line may be drawn: only on a
// terminal that carries nothing else. Not with --no-tty, not where the
// messages go to a file or a pipe (even with --progress: there the
// redrawn line would be noise in a log), not when the status lines go to
// the same terminal (--status-fd 2: a reader of that stream would get the
// line inside its status lines), and not when the command's output goes
// there. PROGRESS status lines do not depend on it.
func progressLine(st *state, o *options, what, inName string) bool {
	tty := terminalFile(unwatched(st.stderr))
	if o.noTTY || tty == nil {
		return false
	}
	if f := statusStreamFile(st, o); f != nil && sameOpenFile(f, tty) {
		return false
	}
	if out := terminalFile(st.stdout); out != nil && sameOpenFile(out, tty) && writesStdout(o, what, inName) {
		return false
	}
	return true
}

// writesStdout reports whether the command's output goes to standard
// output: -o -, or no -o when decrypting, or when encrypting standard
// input (a FILE is encrypted to FILE.gpg, as cmdEncrypt decides).
func writesStdout(o *options, what, inName string) bool {
	switch {
	case !o.output.none():
		return o.output.std() // -o -, or -o -&1
	}
	// A descriptor given as input (-&N) has no name: openArg gives "".
	return what == "decrypt" || inName == ""
}

// terminalFile is w as a file when it is a terminal, else nil.
func terminalFile(w io.Writer) *os.File {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return f
	}
	return nil
}

// statusStreamFile is the file the status lines go to, when it is one the
// process already has open: --status-fd N.
func statusStreamFile(st *state, o *options) *os.File {
	switch {
	case o.statusFd == 1:
		f, _ := st.stdout.(*os.File)
		return f
	case o.statusFd == 2:
		f, _ := unwatched(st.stderr).(*os.File)
		return f
	case o.statusFd > 2:
		return os.NewFile(uintptr(o.statusFd), "status")
	}
	return nil
}

// sameOpenFile reports whether a and b are one file (one terminal).
func sameOpenFile(a, b *os.File) bool {
	fa, err := a.Stat()
	if err != nil {
		return false
	}
	fb, err := b.Stat()
	return err == nil && os.SameFile(fa, fb)
}

// startProgress wraps in with a counter and, if progress is wanted, starts
// a goroutine that shows it on standard error (one line, redrawn with \r,
// where progressLine allows) and as PROGRESS status lines. The returned
// stop must be called once the command is done; it draws the final state
// and ends the line.
func startProgress(st *state, o *options, in io.Reader, name, what string, sw *statusWriter) (io.Reader, func()) {
	if !progressWanted(st, o) {
		return in, func() {}
	}
	line := progressLine(st, o, what, name)
	if !line && sw == nil {
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
	p := &progress{status: sw, what: name, total: total, start: time.Now(), quit: make(chan struct{})}
	messages := st.stderr
	if line {
		p.w = messages
		// A message erases the line before it is written; the next
		// tick draws it again below the message.
		st.stderr = &clearingWriter{p: p, w: messages}
	}
	st.progress = p
	p.wg.Add(1)
	go p.run()
	var once sync.Once
	return countingReader{in, &p.done}, func() {
		once.Do(func() {
			close(p.quit)
			p.wg.Wait()
			st.progress = nil
			st.stderr = messages
		})
	}
}

// holdProgress erases the progress line and keeps it (and the PROGRESS
// status lines) away until the returned release is called: a question is
// being asked, on the terminal, by gpg-agent's pinentry or on the command
// fd, and nothing may be drawn over it or written between its GET_ line
// and the answer.
func (s *state) holdProgress() (release func()) {
	p := s.progress
	if p == nil {
		return func() {}
	}
	p.mu.Lock()
	p.held++
	p.erase()
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		p.held--
		p.mu.Unlock()
	}
}

type progress struct {
	done   atomic.Int64
	w      io.Writer // the terminal the line is drawn on; nil: none
	status *statusWriter
	what   string
	total  int64
	start  time.Time
	quit   chan struct{}
	wg     sync.WaitGroup

	mu     sync.Mutex // held while the line is drawn, erased or written over
	held   int        // questions being asked (holdProgress)
	drawn  bool       // the line was drawn at least once
	onLine bool       // the line is on the terminal now
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
			p.mu.Lock()
			drawn := p.drawn
			p.mu.Unlock()
			if drawn {
				p.draw(true)
			}
			return
		}
	}
}

func (p *progress) draw(final bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held > 0 {
		return
	}
	n := p.done.Load()
	if p.w != nil {
		p.drawLine(n, final)
	}
	// Under p.mu, so that no PROGRESS line comes between a question's
	// GET_ line and its answer. p.status was opened before the messages'
	// stream became a clearingWriter, so it never takes p.mu itself.
	p.statusLine(n)
}

// drawLine redraws the line; p.mu is held.
func (p *progress) drawLine(n int64, final bool) {
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
	p.drawn, p.onLine = true, !final
}

// erase blanks the line where it stands and puts the cursor at its start;
// p.mu is held.
func (p *progress) erase() {
	if p.onLine {
		fmt.Fprintf(p.w, "\r%*s\r", p.width, "")
		p.onLine, p.width = false, 0
	}
}

// clearingWriter is the messages' stream while the line is shown: each
// message first erases the line, so that it starts a line of its own.
type clearingWriter struct {
	p *progress
	w io.Writer
}

func (c *clearingWriter) Write(b []byte) (int, error) {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	c.p.erase()
	return c.w.Write(b)
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
