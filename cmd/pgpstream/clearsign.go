package main

import (
	"github.com/pgpstream/pgpstream/filter"
)

// cmdClearSign makes a cleartext signed message (--clear-sign): FILE goes
// to FILE.asc unless --output says otherwise, as gpg names it.
func cmdClearSign(st *state, o *options) error {
	if o.encrypt || o.symmetric {
		return usagef("--clear-sign cannot be combined with --encrypt; use --sign --encrypt")
	}
	signers, err := signersFor(st, o, newPassphrases(st, o))
	if err != nil {
		return err
	}
	sw, err := openStatus(st, o)
	if err != nil {
		return err
	}
	sigCreated(st, signers, sw, "C")
	in, inName, closeIn, err := openInput(st, o)
	if err != nil {
		return err
	}
	defer closeIn()
	out, err := openMessageOutput(st, o, inName, defaultOutput(o, inName, ".asc"), true, "")
	if err != nil {
		return err
	}
	if _, err := filter.ClearSign(in, out.W, filter.SignOptions{Signers: signers, NotDashEscaped: o.notDashEscaped}); err != nil {
		out.Abort()
		statusFailure(sw, "sign", err)
		return err
	}
	return out.Commit()
}

// defaultOutput is where a command writes when --output is not given:
// gpg's FILE plus suffix for a named input, standard output otherwise.
func defaultOutput(o *options, inName, suffix string) fileArg {
	if p := o.output; !p.none() || inName == "" {
		return p
	}
	return pathArg(inName + suffix)
}
