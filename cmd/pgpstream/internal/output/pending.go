package output

import (
	"fmt"
	"os"
	"sync"

	"github.com/pgpstream/pgpstream/internal/atomicfile"
)

// pending is an output file that is complete and sealed, waiting for
// the run's end to take its name.
type pending struct {
	name    string
	t       *atomicfile.File
	replace bool // an existing file may be replaced
	// unchecked: --allow-unprotected asked for the data even where no
	// signature vouches for it, so a signature that could not be
	// checked (exit status 2, gpg's code for it) does not withhold it.
	unchecked bool
}

// Pending is the output files of an invocation that wait for the run's
// end (one per invocation, shared by --multifile's runs).
type Pending struct {
	files []pending
}

func (p *Pending) add(f pending) { p.files = append(p.files, f) }

// Outcome is how the run ended, as far as its outputs care.
type Outcome struct {
	// OK: the exit status is 0. Unchecked: it says only that a
	// signature could not be checked, which --allow-unprotected's
	// files survive.
	OK, Unchecked bool
	// Broken is the first write error on standard error or the status
	// stream, or nil.
	Broken func() error
	// Dropped tells that the file name was not written although the run
	// had no error (its exit status said no).
	Dropped func(name string)
}

// installing is held while outputs take their names, and by the signal
// handler (Interrupt) from the moment it acts: a signal either comes
// first, and no output is installed, or it waits for the installation,
// which it never cuts short. ended says that the run's final
// installation began: the process is ending as the run decided, and a
// signal from then on changes nothing.
var installing struct {
	sync.Mutex
	ended bool
}

// Interrupt is the signal handler's part: unless the run has ended (it
// then returns false, and the process ends as the run decided), it
// removes the named temporary files and keeps every output from being
// installed, for good: the process is about to exit.
func Interrupt() bool {
	installing.Lock()
	if installing.ended {
		installing.Unlock()
		return false
	}
	atomicfile.RemoveNamed()
	return true
}

// End is Finish at the end of the run.
func (p *Pending) End(err error, how Outcome) error {
	installing.Lock()
	defer installing.Unlock()
	installing.ended = true
	return p.settle(err, how)
}

// Finish settles the output files made so far (--multifile does, after
// each file).
func (p *Pending) Finish(err error, how Outcome) error {
	installing.Lock()
	defer installing.Unlock()
	return p.settle(err, how)
}

// settle gives the pending output files their names when the run ended
// well: no error err, exit status 0, and every message and status line
// delivered. Otherwise they are dropped: a non-zero exit leaves no file
// that this run made, and a file it would have replaced as it was (the
// one exception is pending.unchecked). It returns the run's error.
func (p *Pending) settle(err error, how Outcome) error {
	files := p.files
	p.files = nil
	if len(files) == 0 {
		return err
	}
	if err == nil {
		err = how.Broken()
	}
	var keep []pending
	for _, f := range files {
		if err == nil && (how.OK || how.Unchecked && f.unchecked) {
			keep = append(keep, f)
			continue
		}
		f.t.Discard()
		if err == nil {
			how.Dropped(f.name)
		}
	}
	if err != nil {
		return err
	}
	return install(keep)
}

// install installs each output; when one fails, those it made before
// are removed again.
func install(files []pending) error {
	var made []string
	for i, f := range files {
		created, err := f.t.Install(f.replace)
		if err == nil {
			if created {
				made = append(made, f.t.Target())
			}
			continue
		}
		for _, q := range files[i+1:] {
			q.t.Discard()
		}
		for _, name := range made {
			os.Remove(name)
		}
		return fmt.Errorf("writing %s: %w", f.name, err)
	}
	return nil
}
