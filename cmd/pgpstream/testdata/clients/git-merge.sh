# git merge --verify-signatures: merges only commits with a good signature
# from a trusted key.
. "$CLIENTS/lib.sh"
genkey 'Alice <alice@example.org>'
FPR=$(fpr alice@example.org)
git init -q repo
cd repo
git config user.signingkey "$FPR"
echo base >a
git add a
git commit -q -S -m base
git checkout -q -b signed
echo signed >b
git add b
git commit -q -S -m signed
git checkout -q main
git merge --verify-signatures --no-edit signed >out
grep -q 'has a good GPG signature by' out || fail 'no good-signature message'
want 'merged' "$(git log -1 --format=%s)" signed

# An unsigned commit is refused.
git checkout -q -b unsigned
echo unsigned >c
git add c
git commit -q -m unsigned
git checkout -q main
if git merge --verify-signatures --no-edit unsigned; then fail 'merged an unsigned commit'; fi

# A commit by a key without trust is refused as untrusted; with
# gpg.minTrustLevel undefined it merges.
mkdir -m700 "$HOME/bob"
GNUPGHOME="$HOME/bob" genkey 'Bob <bob@example.org>'
BOB=$(GNUPGHOME="$HOME/bob" fpr bob@example.org)
GNUPGHOME="$HOME/bob" gpg --batch --export "$BOB" | gpg --batch --import
git checkout -q -b bob main
echo bob >d
git add d
GNUPGHOME="$HOME/bob" git -c user.signingkey="$BOB" commit -q -S -m bob
git checkout -q main
if git merge --verify-signatures --no-edit bob 2>err; then fail 'merged an untrusted commit'; fi
cat err
grep -q 'untrusted GPG signature' err || fail 'not refused as untrusted'
git -c gpg.minTrustLevel=undefined merge --verify-signatures --no-edit bob
# Trusting Bob fully (ownertrust) makes the signature trusted.
git reset -q --hard HEAD~1
echo "$BOB:6:" | gpg --batch --import-ownertrust
want 'trust after ownertrust' "$(git log -1 --format='%G?|%GT' bob)" 'G|ultimate'
git merge --verify-signatures --no-edit bob
