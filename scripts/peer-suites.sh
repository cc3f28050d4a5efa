#!/usr/bin/env bash
# Other projects' own test suites, each run twice: with a real gpg (the
# control, which proves the harness and the environment) and with
# pgpstream as gpg. Prints one "PASS|FAIL" line per test as the harnesses
# run, then a table of the counts. See docs/PEER-SUITES.md.
#
#   scripts/peer-suites.sh [SUITE ...]
#
#   python-gnupg  python-gnupg's test_gnupg.py (scripts/peer-suites/python-gnupg)
#   pass          password-store's sharness tests (scripts/peer-suites/password-store)
#   gpgme         GPGME 1.18.0's tests/gpg (scripts/peer-suites/gpgme)
#   gnupg         GnuPG 2.2.40's tests/openpgp (scripts/gnupg-suite.sh)
#   (default: all four, in that order)
#
# The sources are fetched from outside (so none of this is part of
# `make test` or CI); a checkout that is missing is cloned from the *_GIT
# address. Environment:
#   PGPSTREAM          the binary under test (default: bin/pgpstream, built first)
#   GPG                the control (default: gpg on PATH)
#   PEER_SRC           where the checkouts go (default $XDG_CACHE_HOME/pgpstream/peer-src)
#   PYGNUPG_SRC        python-gnupg checkout (default $PEER_SRC/python-gnupg)
#   PYGNUPG_GIT        (default https://github.com/vsajip/python-gnupg.git)
#   PASS_SRC           password-store checkout (default $PEER_SRC/password-store)
#   PASS_GIT           (default https://git.zx2c4.com/password-store)
#   GPGME_SUITE_SRC    GPGME checkout, built by gpgme/setup.sh (default $PEER_SRC/gpgme)
#   GPGME_SUITE_GIT    (default https://github.com/gpg/gpgme.git; tag gpgme-1.18.0)
#   GNUPG_SUITE_DIR, GNUPG_GIT: as scripts/gnupg-suite.sh reads them
#   PEER_SUITES_WORK   scratch and logs, one folder per suite and side
#                      (default /tmp/pgpstream-peer-suites)
#
# Exit status: 0 when pgpstream fails no more tests than the control in
# every suite run; 1 when it fails more somewhere; 2 when a suite could
# not be run at all.
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
HARNESS=$REPO/scripts/peer-suites
PEER_SRC=${PEER_SRC:-${XDG_CACHE_HOME:-$HOME/.cache}/pgpstream/peer-src}
WORK=${PEER_SUITES_WORK:-/tmp/pgpstream-peer-suites}
GPG=${GPG:-$(command -v gpg)} || { echo "peer-suites: error: no gpg on PATH for the control (set GPG)" >&2; exit 2; }
export PYGNUPG_SRC=${PYGNUPG_SRC:-$PEER_SRC/python-gnupg}
export PYGNUPG_GIT=${PYGNUPG_GIT:-https://github.com/vsajip/python-gnupg.git}
export PASS_SRC=${PASS_SRC:-$PEER_SRC/password-store}
export PASS_GIT=${PASS_GIT:-https://git.zx2c4.com/password-store}
export GPGME_SUITE_SRC=${GPGME_SUITE_SRC:-$PEER_SRC/gpgme}
export GPGME_SUITE_GIT=${GPGME_SUITE_GIT:-https://github.com/gpg/gpgme.git}

say() { echo "peer-suites: $*" >&2; }

if [ -z "${PGPSTREAM:-}" ]; then
	(cd "$REPO" && go build -o bin/pgpstream ./cmd/pgpstream) || exit 2
	PGPSTREAM=$REPO/bin/pgpstream
fi
PGPSTREAM=$(readlink -f -- "$PGPSTREAM")
[ -x "$PGPSTREAM" ] || { say "error: $PGPSTREAM is not a program"; exit 2; }
mkdir -p "$PEER_SRC" "$WORK" || exit 2

# counts FILE: "passed failed" from a harness's last "N passed, M failed" line.
counts() {
	sed -n -E 's/^([a-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2 \3/p' "$1" | tail -1
}

declare -A ROW
status=0
# side SUITE NAME CMD...: runs one side of a suite, its output to the
# terminal and to $WORK/SUITE-NAME.out, and records its counts.
side() {
	local suite=$1 name=$2
	shift 2
	say "$suite: $name"
	"$@" 2>&1 | tee "$WORK/$suite-$name.out"
	local c
	c=$(counts "$WORK/$suite-$name.out")
	if [ -z "$c" ]; then
		ROW[$suite.$name]="did not run"
		status=2
		return
	fi
	ROW[$suite.$name]=$c
}

# both SUITE WORKVAR HARNESS: the harness with gpg (control), then with
# pgpstream, each in its own scratch folder named by WORKVAR.
both() {
	local suite=$1 workvar=$2 harness=$3 n bin
	for n in control pgpstream; do
		bin=$GPG
		[ $n = pgpstream ] && bin=$PGPSTREAM
		declare -x "$workvar=$WORK/$suite/$n"
		side "$suite" $n "$harness" "$bin"
		unset "$workvar"
	done
}

run_suite() {
	local s=$1
	case $s in
	python-gnupg)
		both "$s" PYGNUPG_WORK "$HARNESS/python-gnupg/run.sh" ;;
	pass)
		both "$s" PASS_WORK "$HARNESS/password-store/run.sh" ;;
	gpgme)
		if [ ! -f "$GPGME_SUITE_SRC/tests/gpg/Makefile" ]; then
			"$HARNESS/gpgme/setup.sh" >"$WORK/gpgme-setup.out" 2>&1 ||
				{ say "gpgme: setup failed, see $WORK/gpgme-setup.out"; ROW[$s.control]="did not run"; ROW[$s.pgpstream]="did not run"; status=2; return; }
		fi
		both "$s" GPGME_SUITE_WORK "$HARNESS/gpgme/run.sh" ;;
	gnupg)
		# gnupg-suite.sh runs its own gpg as the control, then PGPSTREAM.
		say "gnupg: control and pgpstream (scripts/gnupg-suite.sh)"
		PGPSTREAM=$PGPSTREAM "$REPO/scripts/gnupg-suite.sh" all 2>&1 | tee "$WORK/gnupg.out"
		for n in control pgpstream; do
			local c
			c=$(sed -n -E "s/^$n: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p" "$WORK/gnupg.out" | tail -1)
			ROW[$s.$n]=${c:-did not run}
			[ -n "$c" ] || status=2
		done ;;
	*) say "error: unknown suite $s (python-gnupg, pass, gpgme, gnupg)"; exit 2 ;;
	esac
}

SUITES=("$@")
[ ${#SUITES[@]} -gt 0 ] || SUITES=(python-gnupg pass gpgme gnupg)
for s in "${SUITES[@]}"; do run_suite "$s"; done

cell() {
	case $1 in
	"did not run") echo "did not run" ;;
	*) set -- $1; echo "$1 passed, $2 failed" ;;
	esac
}
echo
printf '%-14s %-24s %-24s\n' suite "control ($(basename "$GPG"))" pgpstream
for s in "${SUITES[@]}"; do
	c=${ROW[$s.control]:-did not run} p=${ROW[$s.pgpstream]:-did not run}
	printf '%-14s %-24s %-24s\n' "$s" "$(cell "$c")" "$(cell "$p")"
	if [ "$c" != "did not run" ] && [ "$p" != "did not run" ]; then
		set -- $c $p
		[ "$4" -le "$2" ] || { [ $status = 2 ] || status=1; }
	fi
done
echo "logs: $WORK"
exit $status
