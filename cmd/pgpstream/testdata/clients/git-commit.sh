# git signs commits with gpg.program and reads %G?, %GK, %GT, %GF, %GP from
# the status lines of its --verify.
. "$CLIENTS/lib.sh"
genkey 'Alice <alice@example.org>'
FPR=$(fpr alice@example.org)
git init -q repo
cd repo
git config user.signingkey "$FPR"
echo one >a
git add a
git commit -q -S -m one
git verify-commit HEAD
want 'signed commit' "$(git log -1 --format='%G?|%GK|%GT|%GF|%GP')" "G|${FPR:24}|ultimate|$FPR|$FPR"
git log -1 --show-signature >out
grep -q 'Good signature from "Alice <alice@example.org>"' out || fail 'no good signature in --show-signature'

# An unsigned commit: N, and verify-commit fails.
echo two >>a
git commit -q -am two
want 'unsigned commit' "$(git log -1 --format='%G?')" N
if git verify-commit HEAD; then fail 'verify-commit passed an unsigned commit'; fi

# commit.gpgSign signs without -S.
git config commit.gpgSign true
echo three >>a
git commit -q -am three
want 'commit.gpgSign' "$(git log -1 --format='%G?')" G

# A commit signed by a key that is known but not trusted: U, undefined.
mkdir -m700 "$HOME/bob"
GNUPGHOME="$HOME/bob" genkey 'Bob <bob@example.org>'
BOB=$(GNUPGHOME="$HOME/bob" fpr bob@example.org)
GNUPGHOME="$HOME/bob" gpg --batch --export "$BOB" >bob.pub
gpg --batch --import bob.pub
echo four >>a
GNUPGHOME="$HOME/bob" git -c user.signingkey="$BOB" commit -q -am four
want 'untrusted signer' "$(git log -1 --format='%G?|%GK|%GT')" "U|${BOB:24}|undefined"

# A tampered signature: B.
git cat-file commit HEAD~1 | sed 's/^three$/THREE/' >forged
FORGED=$(git hash-object -t commit -w forged)
want 'bad signature' "$(git log -1 --format='%G?' "$FORGED")" B
if git verify-commit "$FORGED"; then fail 'verify-commit passed a forged commit'; fi

# A signature by a key not in the keyring: E.
mkdir -m700 "$HOME/carol"
GNUPGHOME="$HOME/carol" genkey 'Carol <carol@example.org>'
CAROL=$(GNUPGHOME="$HOME/carol" fpr carol@example.org)
echo five >>a
GNUPGHOME="$HOME/carol" git -c user.signingkey="$CAROL" commit -q -am five
want 'unknown signer' "$(git log -1 --format='%G?|%GK')" "E|${CAROL:24}"
