# pass: init, insert, show, generate, and re-init with a second key, which
# re-encrypts every entry (it reads "gpg: public key is ID" to see which
# entries need it).
. "$CLIENTS/lib.sh"
genkey 'Alice <alice@example.org>'
genkey 'Bob <bob@example.org>'
ALICE=$(fpr alice@example.org)
BOB=$(fpr bob@example.org)
export PASSWORD_STORE_DIR="$HOME/store"
pass init alice@example.org
echo 'hunter2' | pass insert -e web/example
want 'show' "$(pass show web/example)" hunter2
printf 'line one\nline two\n' | pass insert -m notes/multi
want 'show multi' "$(pass show notes/multi)" "$(printf 'line one\nline two')"
pass generate web/generated 24
want 'generated length' "$(pass show web/generated | tr -d '\n' | wc -c)" 24
GEN=$(pass show web/generated)
pass generate --in-place web/generated 16
[ "$(pass show web/generated)" != "$GEN" ] || fail 'generate --in-place kept the password'

# Re-init with both keys: every entry is re-encrypted to Bob too, so Bob
# alone can read it.
pass init alice@example.org bob@example.org
want 'show after re-init' "$(pass show web/example)" hunter2
# pass (and its test suite) reads the recipients from
# `gpg -v --decrypt --list-only`'s "gpg: public key is ID" lines, and
# re-encrypts only the entries whose recipients differ from the new ones.
subkeys() { gpg --with-colons --list-keys "$@" | awk -F: '/^sub:/ { print $5 }' | LC_ALL=C sort -u; }
entry_keys() { gpg -v --no-secmem-warning --decrypt --list-only --keyid-format long "$1" 2>&1 | sed -nE 's/^gpg: public key is ([A-F0-9]+)$/\1/p' | LC_ALL=C sort -u; }
want 'recipients after re-init' "$(entry_keys "$PASSWORD_STORE_DIR/web/example.gpg")" "$(subkeys alice@example.org bob@example.org)"
BEFORE=$(cksum <"$PASSWORD_STORE_DIR/web/example.gpg")
pass init alice@example.org bob@example.org
want 're-init to the same keys leaves the entry' "$(cksum <"$PASSWORD_STORE_DIR/web/example.gpg")" "$BEFORE"
gpg --batch --yes --delete-secret-keys "$ALICE"
want 'show with Bob only' "$(pass show web/example)" hunter2
want 'show multi with Bob only' "$(pass show notes/multi)" "$(printf 'line one\nline two')"
pass rm -f web/example
if pass show web/example 2>/dev/null; then fail 'removed entry still shows'; fi
