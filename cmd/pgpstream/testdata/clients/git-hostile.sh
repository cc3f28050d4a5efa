# A signer whose user ID tries to forge status lines: git's %G?, %GF and
# %GP come from GOODSIG/BADSIG and VALIDSIG, so a raw line break in the
# user ID would make a tampered commit look good or name another key.
# hostile-uid.sec.pgp was made by hostileKey (hostile_test.go): an
# unprotected Ed25519 key whose one user ID holds "\n[GNUPG:] GOODSIG ...",
# "\n[GNUPG:] VALIDSIG 0123...4567 ..." and "\n[GNUPG:] TRUST_ULTIMATE".
. "$CLIENTS/lib.sh"
gpg --batch --import "$CLIENTS/hostile-uid.sec.pgp"
FPR=$(fpr mallory@example.org)
echo "$FPR:6:" | gpg --batch --import-ownertrust
git init -q repo
cd repo
git config user.signingkey "$FPR"
echo one >a
git add a
git commit -q -S -m one
git verify-commit HEAD
want 'signed commit' "$(git log -1 --format='%G?|%GF|%GP|%GT')" "G|$FPR|$FPR|ultimate"
case "$(git log -1 --format=%GS)" in
*'%0A[GNUPG:] GOODSIG'*) ;;
*) fail "the signer's user ID is not escaped as gpg escapes it: $(git log -1 --format=%GS)" ;;
esac

# The same commit tampered with: bad, and no fingerprint at all.
git cat-file commit HEAD | sed 's/^one$/ONE/' >forged
FORGED=$(git hash-object -t commit -w forged)
want 'tampered commit' "$(git log -1 --format='%G?|%GF|%GP' "$FORGED")" "B||"
if git verify-commit "$FORGED"; then fail 'verify-commit passed a tampered commit'; fi
