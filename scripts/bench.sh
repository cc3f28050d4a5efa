#!/usr/bin/env bash
# make bench: pgpstream against gpg and rnp on the same files, timed with
# hyperfine in alternating rounds (each round runs every command of a case
# once, in a rotated order, so drift on a shared machine hits all alike),
# then tabulated as medians into docs/BENCHMARKS.md.
#
#   BENCH_MIB=1024 BENCH_ROUNDS=5 make bench
set -euo pipefail
bin=$(realpath "${1:-bin/pgpstream}")
root=$(cd "$(dirname "$0")/.." && pwd)
mib=${BENCH_MIB:-1024}
rounds=${BENCH_ROUNDS:-5}
out=${BENCH_OUT:-$root/docs/BENCHMARKS.md}
for tool in hyperfine gpg rnp rnpkeys; do
	command -v "$tool" >/dev/null || { echo "bench: needs $tool (apt-get install hyperfine gnupg rnp)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/pgpstream-bench.XXXXXX")
trap 'gpgconf --homedir "$work/gpg" --kill all 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -m 700 "$work/gpg" "$work/rnp"

# One key for everyone: made by gpg (ed25519 + cv25519), imported into
# pgpstream and rnp, no passphrase.
gpg --homedir "$work/gpg" --batch --passphrase '' --pinentry-mode loopback \
	--quick-gen-key 'Bench <bench@example.org>' future-default default never 2>/dev/null
gpg --homedir "$work/gpg" --batch --export-secret-keys -a > "$work/sec.asc" 2>/dev/null
"$bin" --homedir "$work/pgp" --batch --import "$work/sec.asc" 2>/dev/null
rnpkeys --homedir "$work/rnp" --import "$work/sec.asc" >/dev/null 2>&1

G="gpg --homedir $work/gpg --batch --yes --trust-model always --quiet"
P="$bin --homedir $work/pgp --batch --yes"
R="rnp --homedir $work/rnp --password="
plain=$work/plain
head -c $((mib << 20)) /dev/urandom > "$plain"

# The encrypted files every decrypter reads.
$G -e -r bench --cipher-algo AES128 --compress-algo none -o "$work/v1.gpg" "$plain"
$P -e -r bench --cipher-algo aes128 --compress-algo none -o "$work/v1.pgp" "$plain"
aead=no
if $P -e -r bench --cipher-algo aes128 --compress-algo none --force-aead --rfc4880bis -o "$work/ocb20.pgp" "$plain" 2>/dev/null; then
	aead=yes
	for m in gcm eax ocb; do
		$P -e -r bench --cipher-algo aes128 --compress-algo none --force-aead --aead-algo "$m" -o "$work/v2-$m.pgp" "$plain"
	done
	rnp --homedir "$work/rnp" -e -r bench --cipher AES128 -z 0 --aead=eax --output "$work/eax20.rnp" "$plain" >/dev/null 2>&1 || true
fi

results=$work/results
mkdir -p "$results"
# bench CASE CMD... : ROUNDS alternating rounds of one run per command.
bench() {
	local name=$1
	shift
	local cmds=("$@") n=$#
	echo "== $name"
	for ((r = 0; r < rounds; r++)); do
		local rotated=()
		for ((i = 0; i < n; i++)); do rotated+=("${cmds[$(((i + r) % n))]}"); done
		hyperfine --runs 1 --style none --export-json "$results/$name.$r.json" "${rotated[@]}" >/dev/null
	done
}

bench decrypt-seipd1-gpgfile \
	"$P -d $work/v1.gpg > /dev/null" \
	"$G -d $work/v1.gpg > /dev/null" \
	"$R --decrypt $work/v1.gpg --output=- > /dev/null"
bench encrypt-seipd1 \
	"$P -e -r bench --cipher-algo aes128 --compress-algo none -o - $plain > /dev/null" \
	"$G -e -r bench --cipher-algo AES128 --compress-algo none -o - $plain > /dev/null" \
	"rnp --homedir $work/rnp -e -r bench --cipher AES128 -z 0 --output=- $plain > /dev/null"
cases=("SEIPD v1 decrypt (file by gpg)=$results/decrypt-seipd1-gpgfile.*.json" "SEIPD v1 encrypt=$results/encrypt-seipd1.*.json")
if [ "$aead" = yes ]; then
	bench decrypt-ocb20 \
		"$P -d $work/ocb20.pgp > /dev/null" \
		"$G -d $work/ocb20.pgp > /dev/null" \
		"$R --decrypt $work/ocb20.pgp --output=- > /dev/null"
	bench encrypt-ocb-pipe \
		"dd if=/dev/zero bs=1M count=$mib status=none | $P -e -r bench --cipher-algo aes128 --compress-algo none --force-aead --rfc4880bis -o - > /dev/null" \
		"dd if=/dev/zero bs=1M count=$mib status=none | dd of=/dev/null bs=1M status=none"
	bench decrypt-seipd2 \
		"$P -d $work/v2-ocb.pgp > /dev/null" \
		"$P -d $work/v2-gcm.pgp > /dev/null" \
		"$P -d $work/v2-eax.pgp > /dev/null"
	cases+=("Tag 20 OCB decrypt=$results/decrypt-ocb20.*.json" "OCB encrypt from a pipe=$results/encrypt-ocb-pipe.*.json" "SEIPD v2 decrypt=$results/decrypt-seipd2.*.json")
	if [ -s "$work/eax20.rnp" ]; then
		bench decrypt-eax20 \
			"$P -d $work/eax20.rnp > /dev/null" \
			"$R --decrypt $work/eax20.rnp --output=- > /dev/null"
		cases+=("Tag 20 EAX decrypt (file by rnp)=$results/decrypt-eax20.*.json")
	fi
fi

# Commands as the document shows them: the binary, work dir and common
# options abbreviated.
shorten() {
	sed -e "s#$bin#pgpstream#g" -e "s#$work#W#g" -e 's#pgpstream --homedir W/pgp --batch --yes#$P#g' \
		-e 's#gpg --homedir W/gpg --batch --yes --trust-model always --quiet#$G#g' -e 's#rnp --homedir W/rnp --password=#$R#g'
}
table=$(cd "$root" && go run ./scripts/benchtab -bytes $((mib << 20)) "${cases[@]}" | shorten)
{
	echo "# Benchmarks"
	echo
	echo "Written by \`make bench\` ($(date -u +%Y-%m-%d)): $mib MiB of random data, $rounds alternating"
	echo "rounds per case (hyperfine, one run per command per round, order rotated), medians."
	echo "MB/s = 10^6 bytes per second of plaintext. \"vs first\" is the first row's median over this row's:"
	echo "above 1 the row is slower than pgpstream. The machine is shared and noisy: trust ratios over absolutes."
	echo
	echo "## Machine"
	echo
	echo '```'
	echo "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"
	echo "flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'aes|pclmulqdq|avx2|avx512f|vaes|vpclmulqdq|sha_ni' | tr '\n' ' ')"
	echo "$("$bin" --version | head -1); $(gpg --version | head -1); $(gpg --version | sed -n 2p); $(rnp --version | head -1)"
	echo '```'
	echo
	echo "## Results"
	echo
	echo "$table"
	echo
	echo "## Commands"
	echo
	echo "\`\$P\` is \`pgpstream --homedir H --batch --yes\`, \`\$G\` is \`gpg --homedir H --batch --yes --trust-model always --quiet\`,"
	echo "\`\$R\` is \`rnp --homedir H --password=\`; one ed25519/cv25519 key made by gpg and imported into the others."
	echo
	echo '```'
	for f in "$results"/*.0.json; do
		grep -o '"command": *"[^"]*"' "$f" | sed -e 's/"command": *"//' -e 's/"$//' | shorten
	done
	echo '```'
} > "$out.new"
if [ -f "$out" ] && grep -q '^## Analysis' "$out"; then
	# Keep the hand-written analysis below the generated part.
	sed -n '/^## Analysis/,$p' "$out" >> "$out.new"
fi
mv "$out.new" "$out"
echo "wrote $out"
cat "$out" | sed -n '/## Results/,/## Commands/p'
