package bench

import (
	"errors"
	"fmt"
	"strings"
)

// ParseGroup accepts cipher, aead, hash and message.
func ParseGroup(s string) (Group, bool) {
	switch g := Group(strings.ToLower(s)); g {
	case Cipher, AEAD, Hash, Message:
		return g, true
	}
	return "", false
}

func norm(s string) string {
	return strings.NewReplacer("-", "", " ", "", "_", "", "(", "", ")", "").Replace(strings.ToLower(s))
}

// matches reports whether a name from the command line picks c: an
// algorithm ("aes128", "AES-128", "sha256", "seipdv2" as a prefix) or a
// mode ("ocb", "cfb", "decrypt").
func (c Case) matches(name string) (algo, mode bool) {
	n := norm(name)
	if strings.HasPrefix(norm(c.Algo), n) {
		algo = true
	}
	for _, w := range strings.Fields(strings.ToLower(c.Mode)) {
		if w == n {
			mode = true
		}
	}
	return algo, mode
}

// Select returns the cases of the groups (all groups if none) that the
// names pick: a case is kept when it matches one of the algorithm names
// given (if any) and one of the mode names given (if any).
func Select(groups []Group, names []string) ([]Case, error) {
	if len(groups) == 0 {
		groups = Groups
	}
	in := func(c Case) bool {
		for _, g := range groups {
			if c.Group == g || (g == Cipher && c.Group == AEAD) {
				return true
			}
		}
		return false
	}
	var pool []Case
	for _, c := range Cases() {
		if in(c) {
			pool = append(pool, c)
		}
	}
	var algoNames, modeNames []string
	for _, n := range names {
		var a, m bool
		for _, c := range pool {
			ca, cm := c.matches(n)
			a, m = a || ca, m || cm
		}
		switch {
		case a:
			algoNames = append(algoNames, n)
		case m:
			modeNames = append(modeNames, n)
		default:
			return nil, fmt.Errorf("no benchmark named %q in %s", n, groupList(groups))
		}
	}
	var out []Case
	for _, c := range pool {
		if anyOf(algoNames, func(n string) bool { a, _ := c.matches(n); return a }) &&
			anyOf(modeNames, func(n string) bool { _, m := c.matches(n); return m }) {
			out = append(out, c)
		}
	}
	return out, nil
}

func anyOf(names []string, f func(string) bool) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if f(n) {
			return true
		}
	}
	return false
}

func groupList(gs []Group) string {
	s := make([]string, len(gs))
	for i, g := range gs {
		s[i] = string(g)
	}
	return strings.Join(s, ", ")
}

// Measure sets c up and times it. A case this build cannot run returns an
// error wrapping ErrSkip.
func Measure(c Case, opt Options) (Result, error) {
	if c.Sizes.Count > 0 {
		opt.Sizes = c.Sizes
	}
	if c.Group == Message {
		// Whole messages hand chunks to goroutines and allocate per
		// message: noisier, so give them more samples.
		opt.Budget *= 3
		opt.Repeats += 2
	}
	if opt.Sizes.Count == 0 {
		opt.Sizes = DefaultSizes
	}
	op, err := c.Setup(opt.Sizes.Step * opt.Sizes.Count)
	if err != nil {
		return Result{}, err
	}
	return Result{Case: c, NsPerByte: Slope(op, opt), Impl: c.Impl()}, nil
}

// IsSkip reports whether err says a case is not available in this build.
func IsSkip(err error) bool { return errors.Is(err, ErrSkip) }
