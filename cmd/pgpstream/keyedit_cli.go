package main

import (
	"time"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/keyring"
)

// keyOpts are the options of the commands that certify keys, compute
// their validity and edit them.
type keyOpts struct {
	marginals, completes, maxDepth, minLevel int // 0: gpg's default
	askLevel                                 bool
	certLevel                                int
	expert                                   bool
	certExpire                               string // --default-cert-expire, checked when given
}

// certExpires is when a new certification expires: --default-cert-expire
// from now (gpg asks only with --ask-cert-expire, which pgpstream does
// not have); zero: never.
func (o *options) certExpires() time.Time {
	t, _ := keyring.ParseExpire(o.keys.certExpire, clock.Now())
	return t
}

func setCertExpire(o *options, v string) error {
	if _, err := keyring.ParseExpire(v, clock.Now()); err != nil {
		return usagef("--default-cert-expire: %v (0 for never, or N with d, w, m or y)", err)
	}
	o.keys.certExpire = v
	return nil
}

// trustParams are the pgp model's parameters, gpg's defaults where not
// given.
func (o *options) trustParams() keyring.TrustParams {
	p := keyring.DefaultTrustParams
	for _, v := range []struct {
		set int
		to  *int
	}{
		{o.keys.marginals, &p.Marginals}, {o.keys.completes, &p.Completes},
		{o.keys.maxDepth, &p.MaxDepth}, {o.keys.minLevel, &p.MinCertLevel},
	} {
		if v.set > 0 {
			*v.to = v.set
		}
	}
	return p
}

// checkKeyOptions holds the ranges gpg holds these options to.
func (o *options) checkKeyOptions() error {
	switch {
	case o.keys.marginals < 0 || o.keys.completes < 0:
		return usagef("--marginals-needed and --completes-needed must be at least 1")
	case o.keys.maxDepth < 0 || o.keys.maxDepth > 255:
		return usagef("--max-cert-depth must be 1 to 255")
	case o.keys.minLevel < 0 || o.keys.minLevel > 3:
		return usagef("--min-cert-level must be 0 to 3")
	case o.keys.certLevel < 0 || o.keys.certLevel > 3:
		return usagef("--default-cert-level must be 0 to 3")
	}
	return nil
}

// dispatchKeyCommands runs the commands of this file; ok is false for any
// other command.
func dispatchKeyCommands(st *state, o *options) (ok bool, err error) {
	var run func(*state, *options) error
	switch o.cmd {
	case commandCheckTrustDB:
		run = func(st *state, o *options) error { return cmdCheckTrustDB(st, o, false) }
	case commandUpdateTrustDB:
		run = func(st *state, o *options) error { return cmdCheckTrustDB(st, o, true) }
	case commandQuickSignKey, commandQuickLsignKey:
		run = cmdQuickSignKey
	case commandSignKey, commandLsignKey:
		run = cmdSignKey
	case commandEditKey:
		run = cmdEditKey
	default:
		return false, nil
	}
	if err := o.checkKeyOptions(); err != nil {
		return true, err
	}
	return true, run(st, o)
}

// cmdCheckTrustDB is gpg's --check-trustdb: the web of trust computed
// and reported as gpg reports it, on standard error (nothing with
// --quiet). gpg writes the result to trustdb.gpg; pgpstream keeps
// nothing, since it computes validity anew whenever it needs it, so the
// command is a report. --update-trustdb also asks the owner trust of
// each introducer that has none, as gpg does.
func cmdCheckTrustDB(st *state, o *options, update bool) error {
	model := o.trustModelName()
	switch model {
	case keyring.ModelPGP, keyring.ModelTOFUPGP:
	default:
		if !st.quiet {
			st.say("no need for a trustdb check with '%s' trust model", model)
		}
		return nil
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	if update {
		if err := askIntroducerTrust(st, o, ring); err != nil {
			return err
		}
	}
	rep := ring.CheckTrust()
	if st.quiet {
		return nil
	}
	if rep.NoUltimate {
		st.say("no ultimately trusted keys found")
		return nil
	}
	st.say("marginals needed: %d  completes needed: %d  trust model: %s", rep.Params.Marginals, rep.Params.Completes, model)
	for _, d := range rep.Depths {
		st.say("depth: %d  valid: %3d  signed: %3d  trust: %d-, %dq, %dn, %dm, %df, %du",
			d.Depth, d.Valid, d.Signed, d.Unknown, d.Undefined, d.Never, d.Marginal, d.Full, d.Ultimate)
	}
	if !rep.NextCheck.IsZero() {
		st.say("next trustdb check due at %s", rep.NextCheck.UTC().Format(time.DateOnly))
	}
	return nil
}
