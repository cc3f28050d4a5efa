#!/usr/bin/env bash
# The main job: encrypt 1 GiB of zeros from a pipe and decrypt it again,
# with a throwaway key in a temporary homedir, and print the throughput.
set -euo pipefail
bin=${1:-bin/pgpstream}
size_mib=${DEMO_MIB:-1024}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
home="$tmp/home"

"$bin" --homedir "$home" --batch --quick-gen-key 'Demo <demo@example.org>' >/dev/null 2>&1
echo "key:     $("$bin" --homedir "$home" --list-keys --with-colons | awk -F: '$1=="fpr"{print $10; exit}')"

now() { date +%s.%N; }
# rate BYTES T0 T1
rate() { awk -v b="$1" -v t0="$2" -v t1="$3" 'BEGIN { s = t1 - t0; printf "%.0f MB/s (%.2f s)", b / s / 1e6, s }'; }
bytes=$((size_mib * 1024 * 1024))

t0=$(now)
dd if=/dev/zero bs=1M count="$size_mib" 2>/dev/null |
	"$bin" --homedir "$home" --batch --yes --encrypt --recipient demo@example.org \
		--cipher-algo aes128 --compress-algo none --output "$tmp/demo.pgp"
t1=$(now)
echo "encrypt: $size_mib MiB of zeros from a pipe: $(rate "$bytes" "$t0" "$t1")"

t0=$(now)
"$bin" --homedir "$home" --batch --decrypt "$tmp/demo.pgp" >/dev/null
t1=$(now)
echo "decrypt: $size_mib MiB to /dev/null:         $(rate "$bytes" "$t0" "$t1")"
