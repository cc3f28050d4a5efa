package main

import (
	"fmt"

	"github.com/pgpstream/pgpstream/keyring"
)

// importedKeys says what happened to each imported key as gpg does: on
// standard error "key ID: public key "UID" imported" (or "not changed"),
// and KEY_CONSIDERED, IMPORTED and IMPORT_OK on the status descriptor,
// in gpg 2.2's order.
func importedKeys(st *state, status *statusWriter, stats keyring.ImportStats) {
	for _, k := range stats.Keys {
		switch {
		case k.Flags&1 != 0:
			status.line("KEY_CONSIDERED", k.Fingerprint, 0)
			if !st.quiet {
				fmt.Fprintf(st.stderr, "%s: key %016X: public key %q imported\n", st.prog, k.KeyID, k.UserID)
			}
			status.line("IMPORTED", fmt.Sprintf("%016X", k.KeyID), k.UserID)
			status.line("IMPORT_OK", k.Flags, k.Fingerprint)
		case k.Flags == 0:
			status.line("IMPORT_OK", 0, k.Fingerprint)
			status.line("KEY_CONSIDERED", k.Fingerprint, 0)
			if !st.quiet {
				fmt.Fprintf(st.stderr, "%s: key %016X: %q not changed\n", st.prog, k.KeyID, k.UserID)
			}
		default:
			status.line("KEY_CONSIDERED", k.Fingerprint, 0)
			if !st.quiet {
				fmt.Fprintf(st.stderr, "%s: key %016X: %q updated\n", st.prog, k.KeyID, k.UserID)
			}
			status.line("IMPORT_OK", k.Flags, k.Fingerprint)
		}
	}
}

// importResult is gpg's IMPORT_RES: count, no_user_id, imported,
// imported_rsa, unchanged, n_uids, n_subk, n_sigs, n_revoc, sec_read,
// sec_imported, sec_dups, skipped_new_keys, not_imported,
// skipped_v3_keys.
func importResult(status *statusWriter, t keyring.ImportStats) {
	if t.Processed == 0 {
		status.line("NODATA", 1)
	}
	status.line("IMPORT_RES", t.Processed, 0, t.Imported, 0, t.Unchanged, t.NewUserIDs, t.NewSubkeys,
		t.NewSigs, t.Revocations, t.SecretRead, t.SecretImported, t.SecretUnchanged, 0, t.Skipped, 0)
}
