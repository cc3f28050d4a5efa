# Shared by the client scenarios: sourced first, with gpg (the real one or
# pgpstream) first on PATH and in $GPG.
set -euo pipefail
set -x

git config --global user.name Alice
git config --global user.email alice@example.org
git config --global init.defaultBranch main
git config --global gpg.program "$GPG"

# genkey UID: an unprotected ed25519 key with a cv25519 subkey.
genkey() {
	gpg --batch --pinentry-mode loopback --passphrase '' --quick-gen-key "$1" future-default default never
}

# fpr PATTERN: the primary key's fingerprint.
fpr() {
	gpg --batch --with-colons --list-keys "$1" | awk -F: '/^fpr:/ { print $10; exit }'
}

# want WHAT GOT EXPECTED
want() {
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1: got [$2], want [$3]" >&2
		exit 1
	fi
}

# fail MESSAGE
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# A desktop session has its agent running already; starting it here also
# keeps two gpg processes a client runs at once from racing to start it.
gpgconf --launch gpg-agent
