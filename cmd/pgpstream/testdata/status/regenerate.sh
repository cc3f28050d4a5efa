#!/bin/sh
# Makes the keys, signatures and messages of TestStatusAgainstGPG with gpg
# 2.2 under fixed faked times, so the expired and revoked cases stay
# expired and revoked. Run from this directory; the keys are new each time.
# Nothing here protects anything real: only frank's key has a passphrase,
# "key secret".
set -eu
dir=$(pwd)
GNUPGHOME=$(mktemp -d)
export GNUPGHOME
trap 'gpgconf --kill all; rm -rf "$GNUPGHOME"' EXIT
g() { gpg --batch --yes --no-tty --pinentry-mode loopback --passphrase '' "$@"; }
at() { t=$1; shift; g --faked-system-time "$t!" "$@" 2>/dev/null; }
fpr() { gpg --with-colons -k "$1" | awk -F: '/^fpr/{print $10; exit}'; }

# alice: RSA; bob: Ed25519 + Cv25519; carol: an encryption subkey that
# expired in 2024 beside one that does not; dave: a key that expired at
# the end of 2024; erin: revoked in March 2024; mallory: never imported.
at 20240101T000000 --quick-gen-key 'Alice <alice@status.test>' rsa2048 sign,cert never
at 20240101T000000 --quick-add-key "$(fpr alice)" rsa2048 encr never
at 20240101T000000 --quick-gen-key 'Bob <bob@status.test>' ed25519 sign,cert never
at 20240101T000000 --quick-add-key "$(fpr bob)" cv25519 encr never
at 20240101T000000 --quick-gen-key 'Carol <carol@status.test>' ed25519 sign,cert never
at 20240101T000000 --quick-add-key "$(fpr carol)" cv25519 encr 30d
at 20240301T000000 --quick-add-key "$(fpr carol)" cv25519 encr never
at 20240101T000000 --quick-gen-key 'Dave <dave@status.test>' ed25519 sign,cert 1y
at 20240101T000000 --quick-add-key "$(fpr dave)" cv25519 encr 1y
at 20240101T000000 --quick-gen-key 'Erin <erin@status.test>' ed25519 sign,cert never
at 20240101T000000 --quick-add-key "$(fpr erin)" cv25519 encr never
at 20240101T000000 --quick-gen-key 'Mallory <mallory@status.test>' ed25519 sign,cert never
at 20240101T000000 --quick-add-key "$(fpr mallory)" cv25519 encr never
# frank: a key protected by a passphrase.
gpg --batch --no-tty --pinentry-mode loopback --passphrase 'key secret' --faked-system-time '20240101T000000!' \
	--quick-gen-key 'Frank <frank@status.test>' ed25519 sign,cert never 2>/dev/null
gpg --batch --no-tty --pinentry-mode loopback --passphrase 'key secret' --faked-system-time '20240101T000000!' \
	--quick-add-key "$(fpr frank)" cv25519 encr never 2>/dev/null

printf 'status test data\n' >"$dir/data.txt"
sig() { out=$1 t=$2 who=$3; shift 3; at "$t" -u "$who" --detach-sign -o "$dir/$out" "$@" "$dir/data.txt"; }
sig alice.sig 20240201T000000 alice
sig bob.sig 20240201T000000 bob
sig expired.sig 20240201T000000 alice --default-sig-expire 1d
sig dave.sig 20240601T000000 dave
sig erin.sig 20240201T000000 erin
sig mallory.sig 20240201T000000 mallory
at 20240201T000000 -u bob --sign -o "$dir/bob-signed.pgp" "$dir/data.txt"
at 20240201T000000 -u bob --clear-sign -o "$dir/bob-clear.asc" "$dir/data.txt"
at 20240201T000000 --trust-model always -u bob -s -e -r alice -o "$dir/bob-to-alice.pgp" "$dir/data.txt"

# The messages carry their recipients' key IDs; mallory's is the one
# neither home holds a secret key for.
at 20240201T000000 --trust-model always -e -r mallory -r bob -o "$dir/bob-mallory.pgp" "$dir/data.txt"
at 20240201T000000 --trust-model always -e -r alice -o "$dir/alice.pgp" "$dir/data.txt"
at 20240201T000000 --trust-model always -e -r frank -o "$dir/frank.pgp" "$dir/data.txt"
at 20240201T000000 --passphrase 'message secret' -c -o "$dir/symmetric.pgp" "$dir/data.txt"

# Erin revokes her key after signing with it.
rev=$GNUPGHOME/openpgp-revocs.d/$(fpr erin).rev
sed 's/^:-----BEGIN/-----BEGIN/' "$rev" >"$rev.asc"
at 20240301T000000 --import "$rev.asc"

g --armor --export alice bob carol dave erin >"$dir/public.asc"
# carol as she was before her second encryption subkey, to import over.
g --armor --export --export-filter 'drop-subkey=key_created > 1706745600' carol >"$dir/carol-old.asc"
g --armor --export-secret-keys alice bob carol >"$dir/secret.asc"
gpg --batch --no-tty --pinentry-mode loopback --passphrase 'key secret' --armor --export-secret-keys frank >"$dir/frank-sec.asc"
for k in alice bob carol; do echo "$(fpr $k):6:"; done >"$dir/ownertrust.txt"
