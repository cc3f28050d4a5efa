# git-remote-gcrypt: push to an encrypted remote (a local bare repository)
# and clone it back; it encrypts and signs with gpg.program.
. "$CLIENTS/lib.sh"
genkey 'Alice <alice@example.org>'
FPR=$(fpr alice@example.org)
git init -q --bare "$HOME/remote.git"
git init -q work
cd work
git config gcrypt.participants "$FPR"
echo 'top secret' >secret.txt
git add secret.txt
git commit -q -m one
git remote add crypt "gcrypt::$HOME/remote.git"
git push -q crypt main
# Nothing in the remote is readable.
if grep -r 'top secret' "$HOME/remote.git"; then fail 'plaintext in the remote'; fi
echo more >>secret.txt
git commit -q -am two
git push -q crypt main
cd ..
git -c gcrypt.participants="$FPR" clone -q "gcrypt::$HOME/remote.git" copy
want 'cloned file' "$(cat copy/secret.txt)" "$(printf 'top secret\nmore')"
want 'cloned log' "$(git -C copy log --format=%s | tr '\n' ' ')" 'two one '
