# duplicity: backup, verify and restore with a passphrase (symmetric).
. "$CLIENTS/lib.sh"
mkdir -p src
echo secret >src/a
head -c 100000 /dev/urandom >src/b
export PASSPHRASE='backup passphrase'
dup() { duplicity "$@" --gpg-binary "$GPG" --archive-dir "$HOME/cache" --no-print-statistics; }
dup full src "file://$HOME/backup"
dup verify "file://$HOME/backup" src
rm -rf "$HOME/cache"
dup restore "file://$HOME/backup" out
diff -r src out
# The wrong passphrase restores nothing.
rm -rf "$HOME/cache"
if PASSPHRASE=wrong dup restore "file://$HOME/backup" out2; then fail 'restored with the wrong passphrase'; fi
[ ! -e out2/b ] || fail 'wrong passphrase left out2/b'
