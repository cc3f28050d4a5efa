#!/usr/bin/env bash
# make bench: pgpstream beside gpg (and rnp where it reads the format) on
# the files users have, each made by the real peer the way users make it:
# gpg from a pipe (8 KiB partial lengths) and from a file, gpg's default
# compression, gpg -a, gpg -c, rnp's tag 20 from a pipe, our own tag 20
# and SEIPD v2, OpenPGP.js's SEIPD v2 (its default and small chunks), a
# signed message and a detached signature; decrypted to /dev/null, to a
# file on disk and through a pipe. Beside them the physical
# limits: `cat FILE > /dev/null` and one core's SHA-1 over the same bytes.
#
# Timing: hyperfine in alternating rounds (each round runs every command of
# a case once, in a rotated order, so drift on a shared machine hits all
# alike), medians over the rounds. Then every pgpstream command runs once
# more under strace to count its write(2)/writev(2) calls and the small ones.
# Output: docs/BENCHMARKS.md (the hand-written analysis below "## Analysis"
# is kept).
#
#   BENCH_MIB=256 BENCH_ROUNDS=3 make bench       # the default: a few minutes
#   BENCH_FILE_ROUNDS=9 make bench             # rounds of the cases that write a file (default: 3 x BENCH_ROUNDS)
#   BENCH_FAST_ROUNDS=15 make bench            # rounds of the 0.1 s cases (default: 5 x BENCH_ROUNDS)
#   BENCH_LOCK=/tmp/bench.lock make bench         # time only while holding flock on this file
#   BENCH_CASES='^g24-' BENCH_OUT=/tmp/b.md make bench
#                                                 # only the cases whose name matches (an ERE)
#   GPG24=/path/to/gnupg-2.4.8/build/g10/gpg make bench
#                                                 # adds the rows against GnuPG 2.4 (its agent is
#                                                 # GPG24_AGENT, default ../agent/gpg-agent beside it);
#                                                 # scripts/gnupg-suite.sh builds one: GNUPG_VERSION=2.4.8
#                                                 # scripts/gnupg-suite.sh gpg
set -euo pipefail
bin=$(realpath "${1:-bin/pgpstream}")
root=$(cd "$(dirname "$0")/.." && pwd)
mib=${BENCH_MIB:-256}
rounds=${BENCH_ROUNDS:-3}
# The cases that write a file vary the most from run to run: on a VM
# whose balloon device takes back freed memory (free page reporting), the
# first touch of the pages a removed output gave back is a fault in the
# host, and lands on whichever command allocates them next. They get
# more rounds, so that the median is not one such run.
file_rounds=${BENCH_FILE_ROUNDS:-$((3 * rounds))}
# The cases whose commands take a tenth of a second (tag 20 and SEIPD v2
# to /dev/null) cost little per round, and one scheduling hiccup moves
# such a run by a third: they get five times the rounds.
fast_rounds=${BENCH_FAST_ROUNDS:-$((5 * rounds))}
out=${BENCH_OUT:-$root/docs/BENCHMARKS.md}
for tool in hyperfine gpg rnp rnpkeys strace; do
	command -v "$tool" >/dev/null || { echo "bench: needs $tool (apt-get install hyperfine gnupg rnp strace)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/benchwork.XXXXXX")
trap 'gpgconf --homedir "$work/gpg" --kill all 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -m 700 "$work/gpg" "$work/rnp"
(cd "$root" && go build -o "$work/benchtab" ./scripts/benchtab)

# One key for everyone: made by gpg (ed25519 + cv25519), imported into
# pgpstream and rnp, no passphrase.
gpg --homedir "$work/gpg" --batch --passphrase '' --pinentry-mode loopback \
	--quick-gen-key 'Bench <bench@example.org>' future-default default never 2>/dev/null
gpg --homedir "$work/gpg" --batch --export-secret-keys -a > "$work/sec.asc" 2>/dev/null
"$bin" --homedir "$work/pgp" --batch --import "$work/sec.asc" 2>/dev/null
rnpkeys --homedir "$work/rnp" --import "$work/sec.asc" >/dev/null 2>&1

G="gpg --homedir $work/gpg --batch --yes --trust-model always --quiet"
# GnuPG 2.4, when one is named: its own home with the same key, its own
# agent (2.4's gpg warns about 2.2's).
G24=
if [ -n "${GPG24:-}" ]; then
	agent=${GPG24_AGENT:-$(dirname "$(dirname "$GPG24")")/agent/gpg-agent}
	[ -x "$GPG24" ] && [ -x "$agent" ] || { echo "bench: GPG24=$GPG24 (agent $agent) is not a gpg 2.4 build" >&2; exit 2; }
	mkdir -m 700 "$work/gpg24"
	G24="$GPG24 --homedir $work/gpg24 --agent-program $agent --batch --yes --trust-model always --quiet"
	$G24 --import "$work/sec.asc" 2>/dev/null
fi
P="$bin --homedir $work/pgp --batch --yes --trust-model always"
R="rnp --homedir $work/rnp --password="
RP="rnp --homedir $work/rnp --password=pw"
PW="--pinentry-mode loopback --passphrase pw"

# The plaintext: text (base64 of random bytes), so that gpg's default
# compression has something to do, and everything else sees the same bytes.
plain=$work/plain
head -c $((mib * 786432)) /dev/urandom | base64 -w 76 | { head -c $((mib << 20)); cat > /dev/null; } > "$plain"

echo "making the messages ($mib MiB each)"
W=$work
$G -e -r bench --cipher-algo AES128 --compress-algo none < "$plain" > "$W/gpg-pipe.gpg"
$G -e -r bench --cipher-algo AES128 --compress-algo none -o "$W/gpg-file.gpg" "$plain"
$G -e -r bench -o "$W/gpg-zlib.gpg" "$plain"
$G -e -a -r bench --cipher-algo AES128 --compress-algo none -o "$W/gpg-armor.asc" "$plain"
$G -c $PW --cipher-algo AES128 --compress-algo none < "$plain" > "$W/gpg-sym.gpg"
$G -s -e -r bench --cipher-algo AES128 --compress-algo none -o "$W/gpg-signed.gpg" "$plain"
$G -b -o "$W/plain.sig" "$plain"
$R -e -r bench --cipher AES128 -z 0 --aead=ocb --output=- < "$plain" > "$W/rnp-ocb.rnp" 2>/dev/null
$R -e -r bench --cipher AES128 -z 0 --aead=eax --output=- < "$plain" > "$W/rnp-eax.rnp" 2>/dev/null
$P -e -r bench --cipher-algo aes128 --compress-algo none --force-aead --rfc4880bis -o "$W/ours-ocb20.pgp" < "$plain"
$P -e -r bench --cipher-algo aes128 --compress-algo none --force-seipdv2 -o "$W/ours-v2.pgp" < "$plain"
# OpenPGP.js (make openpgpjs) writes SEIPD v2 with its defaults (GCM, 256 KiB chunks:
# chunk size byte 12) and, as some applications configure it, in 1 KiB
# chunks (byte 4): the per-chunk cost is what these rows measure.
js=$root/testdata/openpgpjs
if command -v node >/dev/null && [ -d "$js/node_modules/openpgp" ]; then
	gpg --homedir "$work/gpg" --batch --export bench > "$W/pub.gpg" 2>/dev/null
	for cb in 12 4; do
		node "$js/pgp.mjs" encrypt --recipient "$W/pub.gpg" --cipher aes128 --aead gcm --chunk-size-byte $cb \
			--in "$plain" --out "$W/openpgpjs-v2-$cb.pgp" ||
			{ echo "bench: OpenPGP.js failed (chunk size byte $cb): its row is left out" >&2; rm -f "$W/openpgpjs-v2-$cb.pgp"; }
	done
else
	echo "bench: no OpenPGP.js (make openpgpjs): its rows are left out" >&2
fi
if [ -n "$G24" ]; then
	# GnuPG 2.4's tag 20 OCB as it writes it (4 MiB chunks, partial
	# lengths of 1 to 32 KiB), and ours to the same parameters (AES-256).
	$G24 -e -r bench --force-ocb --cipher-algo AES256 --compress-algo none -o "$W/g24-ocb.gpg" "$plain"
	$P -e -r bench --cipher-algo aes256 --compress-algo none --force-aead -o "$W/ours-ocb256.pgp" "$plain"
fi
for f in "$W"/*.gpg "$W"/*.rnp "$W"/*.pgp "$W"/*.asc; do
	[ -s "$f" ] || { echo "bench: $f was not made" >&2; exit 2; }
done

results=$work/results
mkdir -p "$results"
# On a shared machine the timed part (and only it) runs under a lock that
# other timing jobs take too.
if [ -n "${BENCH_LOCK:-}" ]; then
	exec 9>"$BENCH_LOCK"
	echo "waiting for $BENCH_LOCK"
	flock 9
fi
cases=()
# bench NAME TITLE CMD... : ROUNDS alternating rounds of one run per command.
# With prep set, hyperfine runs it before each command (untimed); with
# nrounds set, that many rounds.
prep=
nrounds=
bench() {
	local name=$1 title=$2
	shift 2
	local cmds=("$@") n=$# rounds=${nrounds:-$rounds}
	[[ $name =~ ${BENCH_CASES:-.} ]] || return 0
	case $title in *=*) echo "bench: a case's title holds no '=': $title" >&2; exit 2 ;; esac
	echo "== $title"
	local pre=()
	[ -z "$prep" ] || pre=(--prepare "$prep")
	for ((r = 0; r < rounds; r++)); do
		local rotated=()
		for ((i = 0; i < n; i++)); do rotated+=("${cmds[$(((i + r) % n))]}"); done
		hyperfine --runs 1 --style none "${pre[@]}" --export-json "$results/$name.$r.json" "${rotated[@]}" >/dev/null
	done
	# Round 0 is not rotated: its file names the commands in order.
	cases+=("$title=$results/$name.*.json")
	printf '%s\n' "$title" "${cmds[0]}" >> "$results/pgpstream-commands"
}

d=/dev/null
o=$W/out
bench dec-gpg-pipe "gpg from a pipe (8 KiB partial lengths), decrypt to /dev/null" \
	"$P -d $W/gpg-pipe.gpg > $d" "$G -d $W/gpg-pipe.gpg > $d" "$R -d $W/gpg-pipe.gpg --output=- > $d"
nrounds=$file_rounds prep="rm -f $o" bench dec-gpg-pipe-file "the same, decrypt -o FILE (a new file on disk)" \
	"$P -d -o $o $W/gpg-pipe.gpg" "$G -d -o $o $W/gpg-pipe.gpg" "$R -d $W/gpg-pipe.gpg --overwrite --output=$o"
bench dec-gpg-pipe-pipe "the same, decrypt into a pipe" \
	"$P -d $W/gpg-pipe.gpg | cat > $d" "$G -d $W/gpg-pipe.gpg | cat > $d" "$R -d $W/gpg-pipe.gpg --output=- | cat > $d"
bench dec-gpg-file "gpg from a file (one definite length), decrypt to /dev/null" \
	"$P -d $W/gpg-file.gpg > $d" "$G -d $W/gpg-file.gpg > $d" "$R -d $W/gpg-file.gpg --output=- > $d" \
	"cat $W/gpg-file.gpg > $d" "$W/benchtab -sha1 $W/gpg-file.gpg > $d"
bench dec-gpg-zlib "gpg's defaults (ZLIB), decrypt to /dev/null" \
	"$P -d $W/gpg-zlib.gpg > $d" "$G -d $W/gpg-zlib.gpg > $d" "$R -d $W/gpg-zlib.gpg --output=- > $d"
bench dec-gpg-armor "gpg -a, decrypt to /dev/null" \
	"$P -d $W/gpg-armor.asc > $d" "$G -d $W/gpg-armor.asc > $d" "$R -d $W/gpg-armor.asc --output=- > $d"
bench dec-gpg-sym "gpg -c from a pipe, decrypt to /dev/null" \
	"$P $PW -d $W/gpg-sym.gpg > $d" "$G $PW -d $W/gpg-sym.gpg > $d" "$RP -d $W/gpg-sym.gpg --output=- > $d"
bench dec-gpg-signed "gpg -s -e, decrypt and verify to /dev/null" \
	"$P -d $W/gpg-signed.gpg > $d" "$G -d $W/gpg-signed.gpg > $d" "$R -d $W/gpg-signed.gpg --output=- > $d"
bench verify-detached "gpg -b, verify the detached signature" \
	"$P --verify $W/plain.sig $plain" "$G --verify $W/plain.sig $plain" "rnp --homedir $W/rnp --verify $W/plain.sig --source=$plain"
nrounds=$fast_rounds bench dec-rnp-ocb "rnp tag 20 OCB from a pipe, decrypt to /dev/null (gpg 2.2 reads no AEAD)" \
	"$P -d $W/rnp-ocb.rnp > $d" "$R -d $W/rnp-ocb.rnp --output=- > $d" "cat $W/rnp-ocb.rnp > $d"
bench dec-rnp-eax "rnp tag 20 EAX from a pipe, decrypt to /dev/null" \
	"$P -d $W/rnp-eax.rnp > $d" "$R -d $W/rnp-eax.rnp --output=- > $d"
nrounds=$fast_rounds bench dec-ours-ocb20 "pgpstream tag 20 OCB, decrypt to /dev/null" \
	"$P -d $W/ours-ocb20.pgp > $d" "$R -d $W/ours-ocb20.pgp --output=- > $d" "cat $W/ours-ocb20.pgp > $d"
nrounds=$fast_rounds bench dec-ours-v2 "pgpstream SEIPD v2 OCB, decrypt to /dev/null (neither gpg 2.2 nor rnp 0.16 reads it)" \
	"$P -d $W/ours-v2.pgp > $d" "cat $W/ours-v2.pgp > $d"
for cb in 12 4; do
	[ -s "$W/openpgpjs-v2-$cb.pgp" ] || continue
	bench dec-openpgpjs-v2-$cb "OpenPGP.js SEIPD v2 GCM, $((1 << (cb + 6 - 10))) KiB chunks, decrypt to /dev/null" \
		"$P -d $W/openpgpjs-v2-$cb.pgp > $d" "cat $W/openpgpjs-v2-$cb.pgp > $d"
done
bench enc-pipe "SEIPD v1 encrypt from a pipe to /dev/null" \
	"$P -e -r bench --cipher-algo aes128 --compress-algo none < $plain > $d" \
	"$G -e -r bench --cipher-algo AES128 --compress-algo none < $plain > $d" \
	"$R -e -r bench --cipher AES128 -z 0 --output=- < $plain > $d"
nrounds=$file_rounds prep="rm -f $o" bench enc-file "SEIPD v1 encrypt -o FILE (a new file on disk)" \
	"$P -e -r bench --cipher-algo aes128 --compress-algo none -o $o $plain" \
	"$G -e -r bench --cipher-algo AES128 --compress-algo none -o $o $plain" \
	"$R -e -r bench --cipher AES128 -z 0 --overwrite --output=$o $plain"
nrounds=$fast_rounds bench enc-ocb20 "tag 20 OCB encrypt from a pipe to /dev/null" \
	"$P -e -r bench --cipher-algo aes128 --compress-algo none --force-aead --rfc4880bis < $plain > $d" \
	"$R -e -r bench --cipher AES128 -z 0 --aead=ocb --output=- < $plain > $d"
if [ -n "$G24" ]; then
	A="--cipher-algo aes256 --compress-algo none"
	dd="dd if=$plain bs=1M status=none"
	shm=/dev/shm/pgpstream-bench.$$
	sha="$W/benchtab -sha1 $W/gpg-pipe.gpg > $d"
	nrounds=$fast_rounds bench g24-dec-ocb "GnuPG 2.4: its tag 20 OCB file, decrypt to /dev/null" \
		"$P -d $W/g24-ocb.gpg > $d" "$G24 -d $W/g24-ocb.gpg > $d" "cat $W/g24-ocb.gpg > $d"
	nrounds=$fast_rounds bench g24-dec-ours "GnuPG 2.4: our tag 20 OCB file, decrypt to /dev/null" \
		"$P -d $W/ours-ocb256.pgp > $d" "$G24 -d $W/ours-ocb256.pgp > $d" "cat $W/ours-ocb256.pgp > $d"
	# A file with no -o is encrypted to FILE.gpg, by both: -o /dev/null.
	nrounds=$fast_rounds bench g24-enc-file "GnuPG 2.4: tag 20 OCB encrypt a file to /dev/null" \
		"$P -e -r bench $A --force-aead -o $d $plain" "$G24 -e -r bench $A --force-ocb -o $d $plain" "cat $plain > $d"
	bench g24-enc-pipe "GnuPG 2.4: tag 20 OCB encrypt from a pipe (dd, 1 MiB blocks) to /dev/null" \
		"$dd | $P -e -r bench $A --force-aead > $d" "$dd | $G24 -e -r bench $A --force-ocb > $d" "$dd | dd of=/dev/null bs=1M status=none"
	# A new file each time, as a user decrypts: the output is removed
	# before each command (untimed).
	nrounds=$file_rounds prep="rm -f $o" bench g24-dec-disk "GnuPG 2.4: its tag 20 OCB file, decrypt -o FILE (a new file on disk) and > FILE" \
		"$P -d -o $o $W/g24-ocb.gpg" "$G24 -d -o $o $W/g24-ocb.gpg" "$P -d $W/g24-ocb.gpg > $o"
	nrounds=$file_rounds prep="rm -f $shm" bench g24-dec-shm "GnuPG 2.4: its tag 20 OCB file, decrypt -o FILE (a new file on tmpfs) and > FILE" \
		"$P -d -o $shm $W/g24-ocb.gpg" "$G24 -d -o $shm $W/g24-ocb.gpg" "$P -d $W/g24-ocb.gpg > $shm"
	# --yes over an existing file: pgpstream writes the new content under
	# no name and flushes it to disk before it takes the old one's place
	# (a crash leaves old or new, never neither); gpg truncates in place.
	nrounds=$file_rounds bench g24-dec-replace "GnuPG 2.4: its tag 20 OCB file, decrypt --yes -o FILE over an existing file on disk" \
		"$P -d -o $o $W/g24-ocb.gpg" "$G24 -d -o $o $W/g24-ocb.gpg" "$P -d $W/g24-ocb.gpg > $o"
	bench g24-dec-v1 "GnuPG 2.4: SEIPD v1 from a pipe (gpg 2.2's), decrypt to /dev/null" \
		"$P -d $W/gpg-pipe.gpg > $d" "$G24 -d $W/gpg-pipe.gpg > $d" "$sha"
	bench g24-enc-v1 "GnuPG 2.4: SEIPD v1 encrypt a file to /dev/null" \
		"$P -e -r bench $A -o $d $plain" "$G24 -e -r bench $A -o $d $plain" "$sha"
	rm -f "$shm"
fi
rm -f "$o"
if [ -n "${BENCH_LOCK:-}" ]; then flock -u 9; fi

# Peak RSS of each pgpstream command (GNU time's maximum resident set).
echo "== peak RSS"
rss=$work/rss
: > "$rss"
while read -r name && read -r cmd; do
	tm="/usr/bin/time -f %M -o $work/maxrss"
	timed=${cmd/"$bin"/$tm $bin}
	bash -c "$timed" >/dev/null 2>&1 || true
	printf '%s\t%s\n' "$name" "$(cat "$work/maxrss" 2>/dev/null | tail -1)" >> "$rss"
done < "$results/pgpstream-commands"

# write(2) and writev(2) calls of each pgpstream command, and those under 4 KiB.
echo "== write(2) counts"
writes=$work/writes
: > "$writes"
while read -r name && read -r cmd; do
	traced=${cmd/"$bin"/strace -f -qq -e trace=write,writev -o $work/trace $bin}
	bash -c "$traced" >/dev/null 2>&1 || true
	awk -v n="$name" '/writev?\(/ && !/writev?\(2,/ { r = $NF; if (r ~ /^[0-9]+$/) { t++; if (r + 0 < 4096) s++ } }
		END { printf "%s\t%d\t%d\n", n, t, s }' "$work/trace" >> "$writes"
done < "$results/pgpstream-commands"

# Commands as the document shows them: the binary, work dir and common
# options abbreviated.
shorten() {
	sed -e "s#$bin#pgpstream#g" -e "s#$work#W#g" -e 's#pgpstream --homedir W/pgp --batch --yes --trust-model always#$P#g' \
		-e 's#gpg --homedir W/gpg --batch --yes --trust-model always --quiet#$G#g' -e 's#rnp --homedir W/rnp --password=pw#$RP#g' -e 's#rnp --homedir W/rnp --password=#$R#g' \
		-e 's#--pinentry-mode loopback --passphrase pw#$PW#g' \
		-e "s#${GPG24:-/nonexistent-gpg24} --homedir W/gpg24 --agent-program [^ ]* --batch --yes --trust-model always --quiet#\$G24#g" \
		-e "s#$plain#W/plain#g"
}
table=$("$work/benchtab" -bytes $((mib << 20)) "${cases[@]}" | shorten)
{
	echo "# Benchmarks"
	echo
	echo "Written by \`make bench\` ($(date -u +%Y-%m-%d)): $mib MiB of text (base64 of random bytes) per message,"
	echo "$rounds alternating rounds per case ($file_rounds for those that write a file: see \"runs\"; hyperfine, one run per command per round, order rotated),"
	echo "medians. MB/s = 10^6 bytes per second of plaintext. \"time / first's\" is the row's median over the"
	echo "case's first row (pgpstream): above 1 pgpstream is that many times faster. Each message is made"
	echo "by the peer named, the way users make it (a pipe into gpg gives 8 KiB partial lengths, a file one"
	echo "definite length). \`cat\` and \`benchtab -sha1\` (one core's SHA-1, SHA-NI) over the same file are the"
	echo "physical limits. \"CPU s\" is the median user+system time of the whole command line (a pipe's"
	echo "other end included), which waiting for a core does not inflate. The machine is shared: others"
	echo "compile and test on it during the run, so trust ratios within a case over absolutes, and CPU"
	echo "ratios where the wall-time ones disagree with them."
	echo
	echo "## Machine"
	echo
	echo '```'
	echo "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"
	echo "flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'aes|pclmulqdq|avx2|avx512f|vaes|vpclmulqdq|sha_ni' | tr '\n' ' ')"
	echo "$("$bin" version | head -1); $(gpg --version | head -1); $(gpg --version | sed -n 2p); $(rnp --version | head -1)"
	[ -n "$G24" ] && echo "GnuPG 2.4: $($GPG24 --version | head -1), $($GPG24 --version | sed -n 2p) (built from source, \$G24)"
	echo "load average at the end of the run: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo '```'
	echo
	echo "## Results"
	echo
	echo "$table"
	echo
	echo "## write(2) and writev(2) calls of pgpstream"
	echo
	echo "Each case's pgpstream command once more under \`strace -f -e trace=write,writev\`: its write(2) and"
	echo "writev(2) calls (standard error's not counted), and those of fewer than 4 KiB (the last write of a"
	echo "stream may be one)."
	echo
	echo "| case | write(2) and writev(2) calls | under 4 KiB |"
	echo "|---|---:|---:|"
	while IFS=$'\t' read -r name total small; do echo "| $name | $total | $small |"; done < "$writes"
	echo
	echo "## Peak RSS of pgpstream"
	echo
	echo "Each case's pgpstream command once more under GNU time: its maximum resident set, KiB."
	echo
	echo "| case | peak RSS (KiB) |"
	echo "|---|---:|"
	while IFS=$'\t' read -r name kib; do echo "| $name | $kib |"; done < "$rss"
	echo
	echo "## Commands"
	echo
	echo "\`\$P\` is \`pgpstream --homedir H --batch --yes\`, \`\$G\` is \`gpg --homedir H --batch --yes --trust-model always --quiet\`,"
	echo "\`\$R\` is \`rnp --homedir H --password=\` (\`\$RP\` with \`pw\`), \`\$PW\` is \`--pinentry-mode loopback --passphrase pw\`; one ed25519/cv25519"
	echo "key made by gpg and imported into the others. The messages:"
	echo
	echo '```'
	cat <<-EOF | shorten
	head -c $((mib * 786432)) /dev/urandom | base64 -w 76 | head -c $((mib << 20)) > W/plain
	\$G -e -r bench --cipher-algo AES128 --compress-algo none < W/plain > W/gpg-pipe.gpg
	\$G -e -r bench --cipher-algo AES128 --compress-algo none -o W/gpg-file.gpg W/plain
	\$G -e -r bench -o W/gpg-zlib.gpg W/plain
	\$G -e -a -r bench --cipher-algo AES128 --compress-algo none -o W/gpg-armor.asc W/plain
	\$G -c \$PW --cipher-algo AES128 --compress-algo none < W/plain > W/gpg-sym.gpg
	\$G -s -e -r bench --cipher-algo AES128 --compress-algo none -o W/gpg-signed.gpg W/plain
	\$G -b -o W/plain.sig W/plain
	\$R -e -r bench --cipher AES128 -z 0 --aead=ocb --output=- < W/plain > W/rnp-ocb.rnp
	\$R -e -r bench --cipher AES128 -z 0 --aead=eax --output=- < W/plain > W/rnp-eax.rnp
	\$P -e -r bench --cipher-algo aes128 --compress-algo none --force-aead --rfc4880bis -o W/ours-ocb20.pgp < W/plain
	\$P -e -r bench --cipher-algo aes128 --compress-algo none --force-seipdv2 -o W/ours-v2.pgp < W/plain
	node testdata/openpgpjs/pgp.mjs encrypt --recipient W/pub.gpg --cipher aes128 --aead gcm --chunk-size-byte 12 --in W/plain --out W/openpgpjs-v2-12.pgp
	node testdata/openpgpjs/pgp.mjs encrypt --recipient W/pub.gpg --cipher aes128 --aead gcm --chunk-size-byte 4 --in W/plain --out W/openpgpjs-v2-4.pgp
	EOF
	echo '```'
	echo
	echo "Timed, per case:"
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
sed -n '/## Results/,/## Commands/p' "$out"
