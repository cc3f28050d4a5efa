#!/usr/bin/env bash
# GnuPG's own OpenPGP test suite (tests/openpgp, run by gpgscm), first
# with GnuPG's gpg as the control, then with pgpstream standing in for
# gpg. Everything else (gpg-agent, gpgconf, gpgv, gpgtar,
# gpg-preset-passphrase, fake-pinentry) is GnuPG's own build. The same
# build is the GnuPG 2.4 that `make bench` measures against (GPG24=).
#
#   scripts/gnupg-suite.sh [build|control|pgpstream|all|gpg] [TEST.scm ...]
#
#   build      fetch GnuPG (pinned by commit) and build it once
#   gpg        build, then print the path of the built gpg
#   control    run the suite with GnuPG's gpg
#   pgpstream  run the suite with bin/pgpstream as gpg
#   all        (default) build, control, pgpstream
#   summary    [NAME] print the per-test summary of results/NAME again
#
# Environment:
#   GNUPG_VERSION    2.2.40 (default: what Debian 12 ships) or 2.4.8 (the
#                    current GnuPG, which writes tag 20 OCB by default)
#   GNUPG_SUITE_DIR  where the source, build and results live, outside the
#                    repository (default: $XDG_CACHE_HOME/pgpstream/gnupg-VERSION)
#   GNUPG_GIT        git repository holding GnuPG's tags (default: upstream's
#                    GitHub mirror; a local clone or bare mirror works too)
#   PGPSTREAM        the binary to test (default: bin/pgpstream, built first)
#   GNUPG_SUITE_JOBS tests run at once (default 1: the suite is CPU-bound)
#   GNUPG_SUITE_NAME the name of pgpstream's run, its results/ and overlay
#                    directory (default: pgpstream); runs from two checkouts
#                    at once need two names, or one replaces the other's
#                    g10/gpg while it runs
#
# Results: $GNUPG_SUITE_DIR/results/{control,pgpstream}/ hold one .log per
# test, gpgscm's report.xml and summary.txt (one "STATUS test" line each).
# Needs: gcc, make, autoconf, automake, autopoint, and the -dev packages of
# libgpg-error, libgcrypt, libassuan, libksba, libnpth, zlib, bzip2, sqlite3.
set -euo pipefail

GNUPG_VERSION=${GNUPG_VERSION:-2.2.40}
case $GNUPG_VERSION in
2.2.40) GNUPG_COMMIT=2e9f8a511dc01ef9ffc59c90f1cb5082e052da06 ;;
2.4.8) GNUPG_COMMIT=6f39568ae6550d996ce2a19ad1e5f21904f3ab30 ;;
*) echo "gnupg-suite: error: GNUPG_VERSION $GNUPG_VERSION is not pinned here (2.2.40 or 2.4.8)" >&2; exit 2 ;;
esac
GNUPG_TAG=gnupg-$GNUPG_VERSION
GNUPG_GIT=${GNUPG_GIT:-https://github.com/gpg/gnupg.git}
DIR=${GNUPG_SUITE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pgpstream/$GNUPG_TAG}
JOBS=${GNUPG_SUITE_JOBS:-1}
RUN=${GNUPG_SUITE_NAME:-pgpstream}
REPO=$(cd "$(dirname "$0")/.." && pwd)
# Builds and suite runs are CPU-heavy: never during someone's timing run.
LOCK=${PGPSTREAM_BENCH_LOCK:-/tmp/pgpstream-bench.lock}

SRC=$DIR/src
BUILD=$DIR/build
say() { echo "gnupg-suite: $*" >&2; }
die() { say "error: $*"; exit 2; }

locked() { flock "$LOCK" "$@"; }

fetch_source() {
	if [ -f "$SRC/.pinned" ] && [ "$(cat "$SRC/.pinned")" = "$GNUPG_COMMIT" ]; then
		return
	fi
	say "fetching $GNUPG_TAG from $GNUPG_GIT"
	rm -rf "$SRC"
	git init -q "$SRC"
	git -C "$SRC" fetch -q --depth 1 "$GNUPG_GIT" "refs/tags/$GNUPG_TAG:refs/tags/$GNUPG_TAG" ||
		git -C "$SRC" fetch -q "$GNUPG_GIT" "refs/tags/$GNUPG_TAG:refs/tags/$GNUPG_TAG"
	got=$(git -C "$SRC" rev-parse "refs/tags/$GNUPG_TAG^{commit}")
	[ "$got" = "$GNUPG_COMMIT" ] || die "$GNUPG_TAG is $got, expected $GNUPG_COMMIT"
	git -C "$SRC" -c advice.detachedHead=false checkout -q "$GNUPG_COMMIT"
	echo "$GNUPG_COMMIT" >"$SRC/.pinned"
}

build_gnupg() {
	fetch_source
	if [ -f "$BUILD/.built" ] && [ "$(cat "$BUILD/.built")" = "$GNUPG_COMMIT" ]; then
		say "using the build in $BUILD"
		return
	fi
	for t in gcc make autoconf automake autopoint; do
		command -v "$t" >/dev/null || die "$t not found (apt-get install gcc make autoconf automake autopoint)"
	done
	say "building $GNUPG_TAG in $BUILD (nice, under $LOCK)"
	if [ ! -x "$SRC/configure" ]; then
		(cd "$SRC" && ./autogen.sh --force >"$DIR/autogen.log" 2>&1) || die "autogen failed: see $DIR/autogen.log"
	fi
	# The suite needs no dirmngr (and 2.2.40's dirmngr does not link
	# without LDAP), no TLS, no smartcard support and no manuals; 2.4's
	# keyboxd stays off so that its gpg uses pubring.kbx as 2.2 does.
	local extra=()
	case $GNUPG_VERSION in 2.4.*) extra+=(--disable-keyboxd --disable-tpm2d) ;; esac
	mkdir -p "$BUILD"
	(cd "$BUILD" && "$SRC/configure" --enable-maintainer-mode --disable-doc --disable-dirmngr \
		--disable-ldap --disable-gnutls --disable-ntbtls --disable-wks-tools --disable-card-support \
		"${extra[@]}" >"$DIR/configure.log" 2>&1) || die "configure failed: see $DIR/configure.log"
	(cd "$BUILD" && locked nice -n 10 make -j2 >"$DIR/make.log" 2>&1 &&
		locked nice -n 10 make -C tests/openpgp fake-pinentry >>"$DIR/make.log" 2>&1) ||
		die "make failed: see $DIR/make.log"
	echo "$GNUPG_COMMIT" >"$BUILD/.built"
}

# A build prefix for gpgconf in which g10/gpg is the binary under test and
# everything else is GnuPG's: gpgconf --build-prefix (and so gpgscm's
# (tool 'gpg)) then finds it wherever the suite asks for gpg. GnuPG 2.4's
# suite runs gpgconf without --build-prefix and takes the build from
# GNUPG_BUILD_ROOT instead (its tests/openpgp/Makefile.am sets it, with
# GNUPG_IN_TEST_SUITE), so both point at this prefix.
overlay() {
	local name=$1 gpg=$2 o=$DIR/overlay-$1
	rm -rf "$o"
	mkdir -p "$o/g10"
	for f in "$BUILD"/*; do
		case $(basename "$f") in g10 | bin) ;; *) ln -s "$f" "$o/" ;; esac
	done
	# GnuPG 2.4's build has bin/, relative links to the programs
	# (bin/gpg -> ../g10/gpg), where its gpgconf finds them: copied as
	# links, they resolve inside this prefix.
	if [ -d "$BUILD/bin" ]; then
		mkdir -p "$o/bin"
		for f in "$BUILD"/bin/*; do
			if [ -L "$f" ]; then ln -s "$(readlink "$f")" "$o/bin/"; else ln -s "$f" "$o/bin/"; fi
		done
	fi
	for f in "$BUILD"/g10/*; do
		[ "$(basename "$f")" = gpg ] || ln -s "$f" "$o/g10/"
	done
	ln -s "$gpg" "$o/g10/gpg"
	echo "$o"
}

run_suite() {
	local name=$1 gpg=$2 out=$DIR/results/$1 obj
	shift 2
	[ -f "$BUILD/.built" ] || die "no GnuPG build in $BUILD: run '$0 build' first"
	obj=$(overlay "$name" "$gpg")
	rm -rf "$out"
	mkdir -p "$out"
	local flags=()
	[ "$JOBS" -gt 1 ] && flags+=(--parallel="$JOBS")
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@" >"$out/tests.txt"
	else
		sed -n '/^XTESTS *=/,/^$/p' "$SRC/tests/openpgp/Makefile.am" | tr -d '\\' | tr ' \t' '\n\n' |
			grep '\.scm$' >"$out/tests.txt"
	fi
	say "running tests/openpgp with gpg = $gpg (logs in $out)"
	set +e
	(cd "$out" && env LC_ALL=C EXEEXT= PATH="$BUILD/tests/gpgscm:$PATH" \
		abs_top_srcdir="$SRC" objdir="$obj" GPGSCM_PATH="$SRC/tests/gpgscm" \
		GNUPG_BUILD_ROOT="$obj" GNUPG_IN_TEST_SUITE=fact \
		GNUPGHOME= GPG_AGENT_INFO= \
		flock "$LOCK" nice -n 10 "$BUILD/tests/gpgscm/gpgscm" \
		"$SRC/tests/openpgp/run-tests.scm" "${flags[@]}" "$@") >"$out/run.txt" 2>&1
	set -e
	summarize "$out" >"$out/summary.txt"
	local pass fail skip
	pass=$(grep -c '^PASS ' "$out/summary.txt" || true)
	fail=$(grep -c -E '^(FAIL|ERROR|XPASS|NOTRUN) ' "$out/summary.txt" || true)
	skip=$(grep -c '^SKIP ' "$out/summary.txt" || true)
	echo "$name: $pass passed, $fail failed, $skip skipped" | tee -a "$out/summary.txt"
}

# summarize prints one line per test run (all of the suite's: XTESTS in
# tests/openpgp/Makefile.am, unless tests were named): its status and, for a failure, the first
# line of its log that says what failed. A test gpgscm never reached (its
# setup failed) is NOTRUN. setup.scm, which builds the home the legacy
# tests unpack, is reported first but not counted.
summarize() {
	local out=$1 t st why
	st=$(grep -oE '(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS): (<[a-z]+>)?tests/openpgp/setup.scm' "$out/run.txt" | head -1 | cut -d: -f1 || true)
	echo "setup ${st:-FAIL} setup.scm"
	for t in $(cat "$out/tests.txt"); do
		# A test's own output may leave its line unfinished before gpgscm's.
		# GnuPG 2.4 names the variant first: "PASS: <standard>tests/...".
		st=$(grep -oE "(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS): (<[a-z]+>)?tests/openpgp/$t( |\$)" "$out/run.txt" | head -1 | cut -d: -f1 || true)
		why=
		case ${st:-NOTRUN} in
		PASS | SKIP | XFAIL) ;;
		*)
			# Skip the notes every call of a non-GnuPG gpg may print.
			[ -f "$out/$t.log" ] && why=$(grep -v -E 'option "agent-program" is not supported|is a GnuPG home|^gpg: hint:' "$out/$t.log" |
				grep -m1 -E 'gpg: error|gpg: |failed|[Ee]rror|mismatch|[Ee]xpected|^\(\(\(' | cut -c1-200 || true)
			;;
		esac
		echo "${st:-NOTRUN} $t${why:+	$why}"
	done
}

pgpstream_bin() {
	if [ -n "${PGPSTREAM:-}" ]; then
		readlink -f "$PGPSTREAM"
	else
		(cd "$REPO" && go build -o bin/pgpstream ./cmd/pgpstream) >&2 || die "go build failed"
		echo "$REPO/bin/pgpstream"
	fi
}

cmd=${1:-all}
[ $# -gt 0 ] && shift
mkdir -p "$DIR"
case $cmd in
build) build_gnupg ;;
gpg) build_gnupg >&2; echo "$BUILD/g10/gpg" ;;
summary) summarize "$DIR/results/${1:-$RUN}" ;;
control) build_gnupg; run_suite control "$BUILD/g10/gpg" "$@" ;;
pgpstream) build_gnupg; run_suite "$RUN" "$(pgpstream_bin)" "$@" ;;
all)
	build_gnupg
	run_suite control "$BUILD/g10/gpg" "$@"
	run_suite "$RUN" "$(pgpstream_bin)" "$@"
	;;
*) die "usage: $0 [build|control|pgpstream|all|summary|gpg] [TEST.scm ...]" ;;
esac
