# git signs and verifies tags.
. "$CLIENTS/lib.sh"
genkey 'Alice <alice@example.org>'
FPR=$(fpr alice@example.org)
git init -q repo
cd repo
git config user.signingkey "$FPR"
echo one >a
git add a
git commit -q -m one
git tag -s -m 'release one' v1
git verify-tag v1
git verify-tag --raw v1 2>raw
grep -q "^\[GNUPG:\] VALIDSIG $FPR " raw || fail 'no VALIDSIG in verify-tag --raw'
git tag -v v1 >out 2>&1
grep -q 'Good signature' out || fail 'tag -v says no good signature'
want 'tag format' "$(git tag -l --format='%(contents:subject)' v1)" 'release one'
# A tag signed with the default key (from user.email) and with -u.
git config --unset user.signingkey
git tag -s -m 'release two' v2
git verify-tag v2
git tag -u "$FPR" -m 'release three' v3
git verify-tag v3
# A tampered tag fails.
git cat-file tag v1 | sed 's/release one/release ONE/' >forged
FORGED=$(git hash-object -t tag -w forged)
if git verify-tag "$FORGED"; then fail 'verify-tag passed a forged tag'; fi
# An unsigned (annotated) tag fails verification.
git tag -a -m 'plain' v4
if git verify-tag v4; then fail 'verify-tag passed an unsigned tag'; fi
