#!/usr/bin/env bash
# Runs every fuzz target in the module for FUZZTIME each (default 30s).
# Crashers are written to the package's testdata/fuzz/ by go test: keep
# them there as regression seeds once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-30s}
filter=${1:-.}
status=0
while IFS=: read -r file name; do
	pkg=$(dirname "$file")
	[[ $name =~ $filter ]] || continue
	echo "== $pkg $name ($fuzztime)"
	if ! go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime"; then
		status=1
	fi
done < <(grep -rHoE '^func (Fuzz[A-Za-z0-9_]+)' --include='*_test.go' . | grep -v '/asm/' | sed -E 's/func //' | sort -u)
exit $status
