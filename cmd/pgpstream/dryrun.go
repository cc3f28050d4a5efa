package main

import (
	"bytes"
	"fmt"

	"github.com/pgpstream/pgpstream/internal/bounded"
	"github.com/pgpstream/pgpstream/keyring"
)

// cmdImportDryRun is --import --dry-run: the keys are read and counted,
// and with --import-options import-show listed as --show-keys lists them
// (python-gnupg's scan_keys), but nothing is written. As gpg's, the
// summary counts the keys processed and nothing imported.
func cmdImportDryRun(st *state, o *options) error {
	inputs := o.args
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	show := o.importOpts.show
	var ring *keyring.Ring
	if show {
		var err error
		if ring, err = openRing(st, o); err != nil {
			return err
		}
	}
	sw, err := openStatus(st, o)
	if err != nil {
		return err
	}
	a := inspectArgsOf(o)
	var total keyring.ImportStats
	defer func() { importResult(sw, total) }()
	for _, name := range inputs {
		r, closeIn, err := openNamed(st, o, name)
		if err != nil {
			return err
		}
		data, err := bounded.ReadAll(r, displayName(name), bounded.KeyData)
		closeIn()
		if err != nil {
			return err
		}
		keys, err := keyring.ReadKeys(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("reading keys from %s: %w", displayName(name), err)
		}
		total.Processed += len(keys)
		if show {
			if _, err := keyring.ShowKeys(st.stdout, bytes.NewReader(data), ring, a.list); err != nil {
				return fmt.Errorf("reading keys from %s: %w", displayName(name), err)
			}
		}
	}
	if !st.quiet {
		st.say("Total number processed: %d", total.Processed)
	}
	return nil
}
