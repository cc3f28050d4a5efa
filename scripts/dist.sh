#!/usr/bin/env bash
# Release archives: static pgpstream binaries for linux/amd64 and
# linux/arm64, each in a .tar.gz with the manual page and the bash, zsh
# and fish completions, and SHA256SUMS over the archives.
#
#   dist.sh [DIR]   build into DIR (default dist/)
#   dist.sh check   build twice, the second time from a copy of the source
#                   elsewhere with an empty build cache, and fail unless
#                   both give the same bytes
#
# The builds are reproducible: CGO_ENABLED=0 (static, no C toolchain),
# -trimpath (no build paths), -buildvcs=false and -buildid= (nothing of
# the checkout or the build cache), the version from git describe and the
# commit's day (SOURCE_DATE_EPOCH, for the manual) through -ldflags -X,
# and archives with sorted names, fixed owners, modes and
# times and no gzip timestamp. VERSION and SOURCE_DATE_EPOCH may be given.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
ARCHES=(amd64 arm64)
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev)}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
export SOURCE_DATE_EPOCH

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT

# build SRC OUT: the archives and SHA256SUMS of the source tree SRC, in
# OUT, made in a directory of their own under $tmp.
build() {
	local src=$1 out=$2 work arch name
	work=$(mktemp -d -p "$tmp")
	mkdir -p "$out"
	local day
	day=$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)
	local flags=(-trimpath -buildvcs=false -ldflags "-s -w -buildid= -X main.version=$VERSION -X main.releaseDate=$day")
	# The manual and completions come from a binary for this machine.
	(cd "$src" && CGO_ENABLED=0 "$GO" build "${flags[@]}" -o "$work/host/pgpstream" ./cmd/pgpstream)
	mkdir -p "$work/docs/completions"
	"$work/host/pgpstream" --print-manpage >"$work/docs/pgpstream.1"
	for shell in bash zsh fish; do
		"$work/host/pgpstream" --print-completion "$shell" >"$work/docs/completions/$(completion_name "$shell")"
	done
	for arch in "${ARCHES[@]}"; do
		name=pgpstream-$VERSION-linux-$arch
		mkdir -p "$work/$name"
		(cd "$src" && CGO_ENABLED=0 GOOS=linux GOARCH=$arch "$GO" build "${flags[@]}" -o "$work/$name/pgpstream" ./cmd/pgpstream)
		cp -r "$work/docs/." "$work/$name/"
		cp "$src/README.md" "$work/$name/"
		tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mode=u+w,go-w,a+rX \
			--mtime="@$SOURCE_DATE_EPOCH" --format=gnu -cf - "$name" | gzip -n -9 >"$out/$name.tar.gz"
	done
	(cd "$out" && sha256sum pgpstream-"$VERSION"-linux-*.tar.gz >SHA256SUMS)
}

# completion_name is where each shell looks for pgpstream's completion.
completion_name() {
	case $1 in
	bash) echo pgpstream ;;
	zsh) echo _pgpstream ;;
	fish) echo pgpstream.fish ;;
	esac
}

case ${1:-dist} in
check)
	build "$PWD" "$tmp/first"
	# The second build: the tree as it is (tracked and new files) copied
	# elsewhere, and a build cache of its own, so nothing is reused.
	mkdir "$tmp/src"
	git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -C "$tmp/src" -xf -
	GOCACHE=$tmp/cache build "$tmp/src" "$tmp/second"
	if ! cmp -s "$tmp/first/SHA256SUMS" "$tmp/second/SHA256SUMS"; then
		echo "dist-check: two builds of $VERSION differ:" >&2
		diff "$tmp/first/SHA256SUMS" "$tmp/second/SHA256SUMS" >&2 || true
		exit 1
	fi
	echo "dist-check: two builds of $VERSION are byte-identical:"
	cat "$tmp/first/SHA256SUMS"
	;;
*)
	out=${1:-dist}
	build "$PWD" "$out"
	echo "dist: $out/SHA256SUMS"
	cat "$out/SHA256SUMS"
	;;
esac
