// Package hint is an error that carries hints: the flags that would
// help, which the command prints after the error, one "hint:" line each.
// It is the one such type, so that the packages below the command can
// give hints that the command prints as its own.
package hint

// Error is err with its hints.
type Error struct {
	Err   error
	Hints []string
}

func (h Error) Error() string { return h.Err.Error() }
func (h Error) Unwrap() error { return h.Err }

// With returns err with hints.
func With(err error, hints ...string) error { return Error{err, hints} }
