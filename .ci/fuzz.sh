#!/usr/bin/env bash
# Runs every fuzz target in the module for FUZZTIME each (default 10s; a
# count such as 50000x runs that many executions, with no deadline),
# one target at a time, and fails on any crasher (go test writes it to the
# package's testdata/fuzz/<Target>/ so it becomes a regression input; commit
# it after fixing the bug). Prints one line per target and a summary line
# with the total number of executions.
set -uo pipefail
cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-10s}"
export GOFLAGS="${GOFLAGS:-}"
total=0
failed=()
lines=()
# "path/to/file_test.go:12:func FuzzX(" -> "./path/to FuzzX"
targets=$(grep -rn --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*(' . \
	| sed -E 's#^(.*)/[^/]*_test\.go:[0-9]+:func (Fuzz[A-Za-z0-9_]*)\(.*#\1 \2#' | sort -u)
if [ -z "$targets" ]; then
	echo "fuzz: no fuzz targets found" >&2
	exit 1
fi
while read -r pkg target; do
	log=$(mktemp)
	go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$pkg" >"$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && ! grep -q 'Failing input written to' "$log" &&
		[ "$(grep -A1 -E '^--- FAIL: ' "$log" | tail -1 | xargs)" = "context deadline exceeded" ]; then
		# Go's fuzz coordinator before 1.27 can fail a duration budget at its
		# end with this and no crasher (go.dev/issue/75804: the -fuzztime
		# deadline escapes its own filter). A count budget (NNNx, CI's) has
		# no deadline; here it is that bug, not the target: say so.
		echo "note $pkg $target: go.dev/issue/75804 (a -fuzztime deadline reported as a failure; no crasher)"
		rc=0
	fi
	execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
	execs=${execs:-0}
	total=$((total + execs))
	if [ $rc -ne 0 ]; then
		failed+=("$pkg $target")
		echo "FAIL $pkg $target ($execs execs)"
		grep -E 'Failing input written to|--- FAIL|panic:|fuzz_test.go|_test.go:[0-9]+' "$log" | head -20 | sed 's/^/    /'
		tail -5 "$log" | sed 's/^/    /'
	else
		echo "ok   $pkg $target: $execs execs ($FUZZTIME)"
	fi
	rm -f "$log"
done <<<"$targets"
n=$(wc -l <<<"$targets")
echo "fuzz summary: $n targets, $total execs, ${#failed[@]} failed (FUZZTIME=$FUZZTIME)"
[ ${#failed[@]} -eq 0 ]
