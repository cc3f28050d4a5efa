package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/pgpstream/pgpstream/clock"
)

// fakedTime is gpg's --faked-system-time: the time pgpstream works at,
// for signature and key creation and for expiry checks.
type fakedTime struct {
	at     time.Time // zero: not given
	frozen bool      // "!": the clock stands still; else it runs from at
}

// parseFakedTime reads gpg's forms: seconds since the epoch, or an ISO
// time YYYYMMDDTHHMMSS in UTC, either with '!' at the end to freeze the
// clock. gpg reads a malformed one as 0 (1970); pgpstream refuses it.
func parseFakedTime(v string) (fakedTime, error) {
	s, frozen := strings.CutSuffix(v, "!")
	var f fakedTime
	if t, err := time.Parse("20060102T150405", s); err == nil {
		f.at = t
	} else if n, err := strconv.ParseUint(s, 10, 63); err == nil && n > 0 {
		f.at = time.Unix(int64(n), 0).UTC()
	} else {
		return f, usagef("--faked-system-time %q: give seconds since 1970 or YYYYMMDDTHHMMSS (UTC), with ! at the end to stop the clock", v)
	}
	f.frozen = frozen
	return f, nil
}

// startClock sets the clock for this invocation: the faked time, with
// gpg's warning, or the system's.
func startClock(st *state, f fakedTime) {
	if f.at.IsZero() {
		clock.Reset()
		return
	}
	clock.Set(f.at, f.frozen)
	st.warnf("running with faked system time: %s", f.at.Format("2006-01-02 15:04:05"))
}
