# duplicity: a full and an incremental backup encrypted to a key, restore,
# verify, to a file:// target.
. "$CLIENTS/lib.sh"
genkey 'Alice <alice@example.org>'
FPR=$(fpr alice@example.org)
mkdir -p src/sub
echo one >src/a
head -c 300000 /dev/urandom >src/sub/random
dup() { PASSPHRASE= duplicity "$@" --gpg-binary "$GPG" --encrypt-key "$FPR" --archive-dir "$HOME/cache" --no-print-statistics; }
dup full src "file://$HOME/backup"
ls "$HOME/backup" | grep -q '\.gpg$' || fail 'no .gpg volumes'
echo two >src/b
dup incremental src "file://$HOME/backup"
dup verify "file://$HOME/backup" src
dup restore "file://$HOME/backup" out
diff -r src out
# Restore from the target alone, without the local cache.
rm -rf "$HOME/cache" out
dup restore "file://$HOME/backup" out
diff -r src out
