#!/usr/bin/env bash
# The programs `make test` uses beyond Go and make: the peers the
# interoperability tests run against (sqop and gosop for pgpstream sop),
# node and npm for OpenPGP.js, qemu-user for the linux/arm64 run, strace
# for the keyring's write order, man, groff and mandoc for the manual
# page, zsh and fish for the completions.
#
#   test-tools.sh install   run as root with apt-get (and INSTALL != no):
#                           install the Debian packages of what is missing
#   test-tools.sh missing   print the programs still missing, one a line
#   test-tools.sh summary   say loudly what the run could not test; fail
#                           when PGPSTREAM_REQUIRE_PEERS=1 and anything is
#                           missing
set -euo pipefail

# program:Debian package
tools=(gpg:gnupg rnp:rnp rnpkeys:rnp sq:sq sqop:sqop gosop:gosop node:nodejs npm:npm qemu-aarch64:qemu-user strace:strace
	man:man-db groff:groff-base mandoc:mandoc zsh:zsh fish:fish)

missing() {
	local t
	for t in "${tools[@]}"; do
		local prog=${t%%:*}
		if [[ $prog == qemu-aarch64 ]]; then
			command -v qemu-aarch64 >/dev/null || command -v qemu-aarch64-static >/dev/null || echo "$t"
		else
			command -v "$prog" >/dev/null || echo "$t"
		fi
	done
}

case ${1:-} in
install)
	want=$(missing | cut -d: -f2 | sort -u | tr '\n' ' ')
	[[ -n $want ]] || exit 0
	if [[ ${INSTALL:-yes} == no ]]; then
		echo "test-tools: not installing $want(INSTALL=no)"
	elif [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
		echo "test-tools: installing $want"
		export DEBIAN_FRONTEND=noninteractive
		# Package lists may be empty on a fresh machine; a failure here
		# is reported below as a skipped tool, not a failed make.
		apt-get update -qq || true
		# shellcheck disable=SC2086
		apt-get install -y -qq $want >/dev/null || echo "test-tools: apt-get install $want failed"
	else
		echo "test-tools: missing $want(not root with apt-get: not installing)"
	fi
	;;
missing)
	missing | cut -d: -f1
	;;
summary)
	gone=$(missing | cut -d: -f1)
	[[ -n $gone ]] || { echo "test: every peer and tool was present: nothing skipped"; exit 0; }
	echo
	echo "************************************************************************"
	echo "* make test: these were NOT tested, for want of a program:"
	for p in $gone; do
		case $p in
		gpg) echo "*   gpg:          interoperability with GnuPG (scripts, keyring, armor)" ;;
		rnp | rnpkeys) echo "*   $p:$(printf '%*s' $((13 - ${#p})) '')interoperability with rnp" ;;
		sq) echo "*   sq:           interoperability with Sequoia" ;;
		sqop) echo "*   sqop:         the Stateless OpenPGP CLI against Sequoia's (pgpstream sop)" ;;
		gosop) echo "*   gosop:        the Stateless OpenPGP CLI against GopenPGP's (pgpstream sop)" ;;
		node | npm) echo "*   $p:$(printf '%*s' $((13 - ${#p})) '')interoperability with OpenPGP.js (RFC 9580)" ;;
		qemu-aarch64) echo "*   qemu-aarch64: the engines as linux/arm64 (make test-arm64)" ;;
		strace) echo "*   strace:       the order of a keyring write's syscalls (keyring_lock script)" ;;
		man | groff | mandoc) echo "*   $p:$(printf '%*s' $((13 - ${#p})) '')rendering the manual page without warnings (TestManpageRenders)" ;;
		zsh | fish) echo "*   $p:$(printf '%*s' $((13 - ${#p})) '')the $p completion (Test${p^}Completion)" ;;
		esac
	done
	echo "* Install them (Debian: apt-get install gnupg rnp sq sqop gosop nodejs npm qemu-user strace"
	echo "*   man-db groff-base mandoc zsh fish), or"
	echo "* run make test as root with apt-get, which installs them."
	echo "************************************************************************"
	if [[ ${PGPSTREAM_REQUIRE_PEERS:-} == 1 ]]; then
		echo "test: PGPSTREAM_REQUIRE_PEERS=1: a missing program is a failure"
		exit 1
	fi
	;;
*)
	echo "usage: $0 install|missing|summary" >&2
	exit 2
	;;
esac
