package main

import (
	"fmt"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/keyring"
)

// importedKeys says what happened to each imported key as gpg 2.2 does:
// on standard error "key ID: public key "UID" imported" (or "not
// changed", "updated"), and KEY_CONSIDERED, IMPORTED and IMPORT_OK on the
// status descriptor, in gpg's order. A block with a secret key gets a
// second IMPORT_OK for its secret part, 17 when new and 16 when it was
// there already, after the lines for its public part.
func importedKeys(st *state, status *statusWriter, stats keyring.ImportStats) {
	now := clock.Now()
	for _, k := range stats.Keys {
		considered := func() {
			keyConsidered(status, k.Key, now, 0)
		}
		id := fmt.Sprintf("%016X", k.KeyID)
		switch pub := k.Flags &^ 16; {
		case pub&1 != 0:
			considered()
			if !st.quiet {
				fmt.Fprintf(st.stderr, "%s: key %s: public key %q imported\n", st.prog, id, k.UserID)
			}
			status.line("IMPORTED", id, k.UserID)
			status.line("IMPORT_OK", pub, k.Fingerprint)
		case pub == 0:
			status.line("IMPORT_OK", 0, k.Fingerprint)
			considered()
			if !st.quiet {
				fmt.Fprintf(st.stderr, "%s: key %s: %q not changed\n", st.prog, id, k.UserID)
			}
		default:
			considered()
			if !st.quiet {
				// gpg's lines, one for each kind of thing new.
				for _, n := range []struct {
					n         int
					one, many string
				}{
					{k.NewUserIDs, "new user ID", "new user IDs"},
					{k.NewSigs, "new signature", "new signatures"},
					{k.NewSubkeys, "new subkey", "new subkeys"},
				} {
					switch {
					case n.n == 1:
						fmt.Fprintf(st.stderr, "%s: key %s: %q 1 %s\n", st.prog, id, k.UserID, n.one)
					case n.n > 1:
						fmt.Fprintf(st.stderr, "%s: key %s: %q %d %s\n", st.prog, id, k.UserID, n.n, n.many)
					}
				}
			}
			status.line("IMPORT_OK", pub, k.Fingerprint)
		}
		if k.Secret {
			considered()
			// gpg 2.2 says "imported" for a secret key it had
			// already, too; IMPORT_OK 16 and the counts tell.
			if !st.quiet {
				fmt.Fprintf(st.stderr, "%s: key %s: secret key imported\n", st.prog, id)
			}
			flags := 16
			if k.Flags&16 != 0 {
				flags |= 1
			}
			status.line("IMPORT_OK", flags, k.Fingerprint)
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
	status.line("IMPORT_RES", t.Processed, t.NoUserID, t.Imported, 0, t.Unchanged, t.NewUserIDs, t.NewSubkeys,
		t.NewSigs, t.Revocations, t.SecretRead, t.SecretImported, t.SecretUnchanged, 0, t.Skipped, 0)
}
