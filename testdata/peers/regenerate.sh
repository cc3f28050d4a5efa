#!/bin/sh
# Remakes the peer corpus in this directory with the gpg, rnp and sq on
# PATH. Keys are new each run, so every file changes; commit them together
# and note the peer versions in README.md.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'GNUPGHOME=$tmp/gnupg gpgconf --kill all; rm -rf "$tmp"' EXIT
export GNUPGHOME=$tmp/gnupg
mkdir -m 700 "$GNUPGHOME"

printf 'Hello from the peers: one line of text, with a newline.\n' > plain.txt
: > empty.txt

# GnuPG. The Ed25519 key is protected with "key secret"; %no-protection
# holds for the rest of the parameter file, so that key comes first.
gpg --batch --gen-key <<'PARAMS'
Key-Type: EDDSA
Key-Curve: ed25519
Key-Usage: sign,cert
Subkey-Type: ECDH
Subkey-Curve: cv25519
Subkey-Usage: encrypt
Name-Real: Ed Gpg
Name-Email: ed@gpg.test
Expire-Date: 0
Passphrase: key secret
%commit
%no-protection
Key-Type: RSA
Key-Length: 3072
Key-Usage: sign,cert
Subkey-Type: RSA
Subkey-Length: 3072
Subkey-Usage: encrypt
Name-Real: RSA Gpg
Name-Email: rsa@gpg.test
Expire-Date: 0
%commit
Key-Type: ECDSA
Key-Curve: nistp256
Key-Usage: sign,cert
Subkey-Type: ECDH
Subkey-Curve: nistp256
Subkey-Usage: encrypt
Name-Real: P256 Gpg
Name-Email: p256@gpg.test
Expire-Date: 0
%commit
PARAMS
gpgx() { gpg --batch --yes --pinentry-mode loopback "$@"; }
gpgx --passphrase 'key secret' --export-secret-keys -a -o gpg-ed25519-sec.asc ed@gpg.test
gpgx --export-secret-keys -o gpg-rsa3072-sec.pgp rsa@gpg.test
gpgx --export-secret-keys -a -o gpg-nistp256-sec.asc p256@gpg.test
gpgx --trust-model always -e -r rsa@gpg.test -o gpg-rsa3072.pgp plain.txt
gpgx --trust-model always -e -r rsa@gpg.test -o gpg-rsa3072-empty.pgp empty.txt
gpgx --trust-model always -e -a -r ed@gpg.test -o gpg-ed25519.asc plain.txt
gpgx --trust-model always -e --compress-algo bzip2 -r p256@gpg.test -o gpg-nistp256-bzip2.pgp plain.txt
gpgx --passphrase 'message secret' -c -a -o gpg-symmetric.asc plain.txt
gpgx --passphrase 'message secret' -c --compress-algo bzip2 -o gpg-symmetric-bzip2.pgp plain.txt

# rnp. Answers to --expert: 22 is EdDSA + X25519, 19 then 1 is ECDSA + ECDH
# on NIST P-256.
rnpx() { rnp --homedir "$tmp/rnp" --overwrite "$@"; }
mkdir "$tmp/rnp"
printf '22\n' | rnpkeys --homedir "$tmp/rnp" --generate-key --expert --userid 'Ed Rnp <ed@rnp.test>' --password 'key secret' --expiration 0 >/dev/null
rnpkeys --homedir "$tmp/rnp" --generate-key --numbits 3072 --userid 'RSA Rnp <rsa@rnp.test>' --password '' --expiration 0 >/dev/null
printf '19\n1\n' | rnpkeys --homedir "$tmp/rnp" --generate-key --expert --userid 'P256 Rnp <p256@rnp.test>' --password '' --expiration 0 >/dev/null
rnpkeys --homedir "$tmp/rnp" --export-key --secret ed@rnp.test > rnp-ed25519-sec.asc
rnpkeys --homedir "$tmp/rnp" --export-key --secret rsa@rnp.test > "$tmp/rsa.asc"
rnp --dearmor --overwrite --output rnp-rsa3072-sec.pgp "$tmp/rsa.asc"
rnpkeys --homedir "$tmp/rnp" --export-key --secret p256@rnp.test > rnp-nistp256-sec.asc
rnpx -e -r rsa@rnp.test --output rnp-rsa3072.pgp plain.txt
rnpx -e -r ed@rnp.test --armor --output rnp-ed25519.asc plain.txt
rnpx -e -r p256@rnp.test --zlib --output rnp-nistp256-zlib.pgp plain.txt
rnpx -c --password 'message secret' --armor --output rnp-symmetric.asc plain.txt

# Sequoia's sq 0.27 makes only RSA and Cv25519 keys, and reads passwords
# only from a terminal: script(1) gives it one. The keys get no signing or
# authentication subkeys, which would only make the corpus bigger.
sqgen() { sq --force key generate --cannot-sign --cannot-authenticate "$@"; }
sqgen --cipher-suite rsa3k --userid '<rsa@sq.test>' --export "$tmp/sq-rsa3k.asc"
sq --force dearmor -o sq-rsa3k-sec.pgp "$tmp/sq-rsa3k.asc"
sqgen --cipher-suite cv25519 --userid '<cv25519@sq.test>' --export sq-cv25519-sec.asc
rm -f sq-cv25519-sec.asc.rev
sq key extract-cert -o "$tmp/sq-rsa3k.cert" sq-rsa3k-sec.pgp
sq key extract-cert -o "$tmp/sq-cv25519.cert" sq-cv25519-sec.asc
sq --force encrypt --recipient-cert "$tmp/sq-rsa3k.cert" -o sq-rsa3k.asc plain.txt
sq --force encrypt --recipient-cert "$tmp/sq-cv25519.cert" -o sq-cv25519.asc plain.txt
sq --force encrypt --binary --recipient-cert "$tmp/sq-cv25519.cert" -o sq-cv25519-empty.pgp empty.txt
sq --force encrypt --binary --compression bzip2 --recipient-cert "$tmp/sq-cv25519.cert" -o sq-cv25519-bzip2.pgp plain.txt
printf 'message secret\nmessage secret\n' |
	script -qec "sq --force encrypt --symmetric -o sq-symmetric.asc plain.txt" /dev/null >/dev/null
chmod 644 ./*.pgp ./*.asc ./*.txt
