#!/bin/sh
# Regenerates wkd-joe.asc and wkd-carol.asc with GnuPG (2.2.40 made the checked-in ones).
# wkd-joe.asc: Joe Doe's ed25519/cv25519 key with a second user ID on another
# domain, certified by Carol (a third-party signature on both user IDs).
# wkd-carol.asc: Carol's key.
set -eu
cd "$(dirname "$0")"
export GNUPGHOME="$(mktemp -d)"
trap 'gpgconf --kill all; rm -rf "$GNUPGHOME"' EXIT
g() { gpg --batch --pinentry-mode loopback --passphrase '' "$@"; }
g --quick-gen-key 'Joe Doe <Joe.Doe@example.org>' ed25519 sign,cert never
joe=$(gpg --with-colons --list-keys Joe.Doe@example.org | awk -F: '/^fpr/{print $10; exit}')
g --quick-add-key "$joe" cv25519 encr never
g --quick-add-uid "$joe" 'Joe Elsewhere <joe@elsewhere.test>'
g --quick-gen-key 'Carol <carol@example.net>' ed25519 sign,cert never
carol=$(gpg --with-colons --list-keys carol@example.net | awk -F: '/^fpr/{print $10; exit}')
g -u "$carol" --quick-sign-key "$joe"
gpg --armor --export "$joe" > wkd-joe.asc
gpg --armor --export "$carol" > wkd-carol.asc
