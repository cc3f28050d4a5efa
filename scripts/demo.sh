#!/usr/bin/env bash
# The main job: encrypt 1 GiB of zeros from a pipe with --force-aead and
# decrypt it again to /dev/null, with a throwaway key in a temporary
# homedir, and print the throughput. Where gpg is installed, the same
# stream goes through gpg beside it (gpg 2.2 writes no AEAD, so it gets
# its own format, SEIPD v1), and so through pgpstream's SEIPD v1 too, with
# the ratios.
#
#   DEMO_MIB=256 make demo
set -euo pipefail
bin=${1:-bin/pgpstream}
size_mib=${DEMO_MIB:-1024}
tmp=$(mktemp -d)
home="$tmp/home"
gpghome="$tmp/gpg"
trap 'gpgconf --homedir "$gpghome" --kill all 2>/dev/null || true; rm -rf "$tmp"' EXIT

have_gpg=no
if command -v gpg >/dev/null; then
	# One key for both: made by gpg, its secret part imported into pgpstream.
	mkdir -m 700 "$gpghome"
	gpg --homedir "$gpghome" --batch --passphrase '' --pinentry-mode loopback \
		--quick-gen-key 'Demo <demo@example.org>' future-default default never 2>/dev/null
	gpg --homedir "$gpghome" --batch --export-secret-keys | "$bin" --homedir "$home" --batch --import 2>/dev/null
	have_gpg=yes
else
	"$bin" --homedir "$home" --batch --quick-gen-key 'Demo <demo@example.org>' >/dev/null 2>&1
fi
echo "key:     $("$bin" --homedir "$home" --list-keys --with-colons | awk -F: '$1=="fpr"{print $10; exit}')"

P="$bin --homedir $home --batch --yes --trust-model always"
G="gpg --homedir $gpghome --batch --yes --trust-model always --quiet"
now() { date +%s.%N; }
bytes=$((size_mib * 1024 * 1024))
# timed VAR CMD: runs CMD under bash, stores its wall time in seconds in VAR.
timed() {
	local t0 t1
	t0=$(now)
	bash -c "$2"
	t1=$(now)
	printf -v "$1" '%s' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
}
rate() { awk -v b="$bytes" -v s="$1" 'BEGIN { printf "%5.0f MB/s (%.2f s)", b / s / 1e6, s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
src="dd if=/dev/zero bs=1M count=$size_mib status=none"

timed pe "$src | $P --encrypt --force-aead --recipient demo@example.org --cipher-algo aes128 --compress-algo none --output $tmp/demo.pgp"
timed pd "$P --decrypt $tmp/demo.pgp > /dev/null"
echo "pgpstream --force-aead (tag 20 OCB, what GnuPG 2.4 writes for this key), $size_mib MiB of zeros from a pipe:"
echo "  encrypt  $(rate "$pe")"
echo "  decrypt  $(rate "$pd")  to /dev/null"
rm -f "$tmp/demo.pgp"
if [ "$have_gpg" = no ]; then
	echo "(gpg is not installed: no side-by-side run)"
	exit 0
fi

timed ve "$src | $P --encrypt --recipient demo@example.org --cipher-algo aes128 --compress-algo none --output $tmp/demo.pgp"
timed vd "$P --decrypt $tmp/demo.pgp > /dev/null"
rm -f "$tmp/demo.pgp"
timed ge "$src | $G --encrypt --recipient demo@example.org --cipher-algo AES128 --compress-algo none --output $tmp/demo.gpg"
timed gd "$G --decrypt $tmp/demo.gpg > /dev/null"
timed gvd "$P --decrypt $tmp/demo.gpg > /dev/null"
echo "$(gpg --version | head -1) (no AEAD: SEIPD v1), the same stream:"
echo "  encrypt  $(rate "$ge")"
echo "  decrypt  $(rate "$gd")  to /dev/null"
echo "pgpstream SEIPD v1, the same stream:"
echo "  encrypt  $(rate "$ve")"
echo "  decrypt  $(rate "$vd")  to /dev/null; gpg's file: $(rate "$gvd")"
echo "pgpstream's speed over gpg's (gpg's time / pgpstream's):"
echo "  --force-aead vs gpg:    encrypt $(ratio "$ge" "$pe"), decrypt $(ratio "$gd" "$pd")"
echo "  SEIPD v1 vs gpg:        encrypt $(ratio "$ge" "$ve"), decrypt $(ratio "$gd" "$vd"), gpg's own file $(ratio "$gd" "$gvd")"
