package main

import (
	"fmt"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/keyring"
)

// importedKeys says what happened to each imported key as gpg 2.2 does:
// on standard error "key ID: public key "UID" imported" (or "not
// changed", "updated"), and KEY_CONSIDERED, IMPORTED and IMPORT_OK on the
// status descriptor, in gpg's order. A block with a secret key gets a
// second IMPORT_OK for its secret part, 17 when new and 16 when it was
// there already, after the lines for its public part.
func importedKeys(st *state, sw *statusWriter, stats keyring.ImportStats) {
	now := clock.Now()
	for _, k := range stats.Keys {
		considered := func() {
			keyConsidered(sw, k.Key, now, 0)
		}
		id := fmt.Sprintf("%016X", k.KeyID)
		for _, u := range k.AcceptedUnsigned {
			// gpg's log_info: written with --quiet too.
			st.say("key %s: accepted non self-signed user ID \"%s\"", id, u)
		}
		switch pub := k.Flags &^ 16; {
		case pub&1 != 0:
			considered()
			if !st.quiet {
				st.say("key %s: public key \"%s\" imported", id, k.UserID)
			}
			sw.Write(status.Imported{KeyID: id, UserID: status.Text(k.UserID)})
			sw.Write(status.ImportOK{Reason: pub, Fpr: k.Fingerprint})
		case pub == 0:
			sw.Write(status.ImportOK{Reason: 0, Fpr: k.Fingerprint})
			considered()
			if !st.quiet {
				st.say("key %s: \"%s\" not changed", id, k.UserID)
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
						st.say("key %s: \"%s\" 1 %s", id, k.UserID, n.one)
					case n.n > 1:
						st.say("key %s: \"%s\" %d %s", id, k.UserID, n.n, n.many)
					}
				}
			}
			sw.Write(status.ImportOK{Reason: pub, Fpr: k.Fingerprint})
		}
		if k.Secret {
			considered()
			// gpg 2.2 says "imported" for a secret key it had
			// already, too; IMPORT_OK 16 and the counts tell.
			if !st.quiet {
				st.say("key %s: secret key imported", id)
			}
			flags := 16
			if k.Flags&16 != 0 {
				flags |= 1
			}
			sw.Write(status.ImportOK{Reason: flags, Fpr: k.Fingerprint})
		}
	}
}

// importResult is gpg's IMPORT_RES: count, no_user_id, imported,
// imported_rsa, unchanged, n_uids, n_subk, n_sigs, n_revoc, sec_read,
// sec_imported, sec_dups, skipped_new_keys, not_imported,
// skipped_v3_keys.
func importResult(sw *statusWriter, t keyring.ImportStats) {
	if t.Processed == 0 {
		sw.Write(status.NoData{What: 1})
	}
	sw.Write(status.ImportRes{Count: t.Processed, NoUserID: t.NoUserID, Imported: t.Imported, Unchanged: t.Unchanged,
		NUIDs: t.NewUserIDs, NSubkeys: t.NewSubkeys, NSigs: t.NewSigs, NRevoked: t.Revocations,
		SecRead: t.SecretRead, SecImported: t.SecretImported, SecDups: t.SecretUnchanged, NotImported: t.Skipped})
}
