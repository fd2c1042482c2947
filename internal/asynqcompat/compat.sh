#!/usr/bin/env bash
# compat.sh — durasim's asynq workload against other asynq releases
# (make asynq-compat).
#
#   internal/asynqcompat/compat.sh [VERSION...]
#   ASYNQ_VERSIONS="v0.24.1 v0.26.0" internal/asynqcompat/compat.sh
#
# For each version (arguments, else $ASYNQ_VERSIONS, else the releases
# the module proxy serves from v0.23.0 on: v0.23.0 v0.24.1 v0.25.1
# v0.26.0) it copies the working tree as internal/rivercompat/compat.sh
# does (the files git tracks plus the untracked ones it does not ignore),
# and there:
#   1. go get github.com/hibiken/asynq at that version;
#   2. go build ./...;
#   3. builds the CLI and runs a short `durasim chaos -target asynq`
#      ($ASYNQ_COMPAT_ARGS, default -kills 6 -jobs 30 -workers 3
#      -pause-every 0 -zombies 0) of the correct design, on a throwaway
#      redis-server (the CLI starts one) and a throwaway PostgreSQL server
#      this script starts ($DURASIM_PG_URL's when set), checking that the
#      report names the version.
# asynq runs only as real processes, so a version gets one chaos run, not
# a seed sweep: its kills land at every point of the handler, and the
# drain waits out asynq's lease and recoverer (about 65 s per version).
#
# What passes (exit 0; 1 otherwise, 2 for bad usage): every version
# builds, its chaos run finishes with a report (exit 0 or 1) naming that
# version, and on every version at or above the one go.mod pins the
# checks all hold (exit 0). On an older version a violation is printed,
# not failed: it can be an asynq bug a later release fixed.
#
# Output: one line per version (build, the run's exit, kills, the checks'
# verdict line, seconds), then PASS or FAIL; each version's full log in
# $ASYNQ_COMPAT_OUT (default tmp/asynq-compat/<version>.log).
# ASYNQ_COMPAT_KEEP=1 keeps the copies. GO names the go command.
set -euo pipefail

GO=${GO:-go}
ARGS=${ASYNQ_COMPAT_ARGS:--kills 6 -jobs 30 -workers 3 -pause-every 0 -zombies 0}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${ASYNQ_COMPAT_OUT:-$repo/tmp/asynq-compat}

usage() {
	echo "usage: $0 [vX.Y.Z ...]   (or ASYNQ_VERSIONS=\"vX.Y.Z ...\"; ASYNQ_COMPAT_ARGS=\"-kills N ...\")" >&2
	exit 2
}
versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
	read -r -a versions <<<"${ASYNQ_VERSIONS:-v0.23.0 v0.24.1 v0.25.1 v0.26.0}"
fi
[ ${#versions[@]} -gt 0 ] || usage
for v in "${versions[@]}"; do
	[[ $v =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+].*)?$ ]] || { echo "compat.sh: bad version $v" >&2; usage; }
done
pinned=$(awk '$1 == "github.com/hibiken/asynq" { print $2; exit }' "$repo/go.mod")
[ -n "$pinned" ] || { echo "compat.sh: go.mod pins no github.com/hibiken/asynq" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/asynq-compat.XXXXXX")
pg=""
cleanup() {
	[ -z "$pg" ] || (cd "$repo" && "$GO" run ./internal/pgtest/cmd/pgserver down -dir "$pg" >/dev/null 2>&1) || true
	[ "${ASYNQ_COMPAT_KEEP:-}" = 1 ] && echo "copies kept in $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$out"
if [ -z "${DURASIM_PG_URL:-}" ]; then
	pg=$work/pg
	chmod 755 "$work" # as root, the server runs as the postgres user, who must enter it
	env=$(cd "$repo" && "$GO" run ./internal/pgtest/cmd/pgserver up -dir "$pg") || { echo "compat.sh: no PostgreSQL server" >&2; exit 2; }
	eval "$env"
	export DURASIM_PG_URL
fi

at_least() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n1)" = "$2" ]; }

# copy_tree DIR: the working tree's files into DIR (as rivercompat's).
copy_tree() {
	mkdir -p "$1"
	if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
			tar --null -T - -cf -) | tar -xf - -C "$1"
	else
		(cd "$repo" && tar --exclude=./.git --exclude=./tmp --exclude=./.pg --exclude=./bin -cf - .) | tar -xf - -C "$1"
	fi
}

pass=1
printf 'asynq-compat: %s, go.mod pins %s, logs in %s\n' "$ARGS" "$pinned" "$out"
for want in "${versions[@]}"; do
	start=$SECONDS
	log=$out/$want.log
	: >"$log"
	dir=$work/$want
	copy_tree "$dir"
	build=ok cli=ok
	if ! (cd "$dir" && "$GO" get "github.com/hibiken/asynq@$want") >>"$log" 2>&1; then
		build="FAILED (go get)" cli=""
	elif ! (cd "$dir" && "$GO" build ./...) >>"$log" 2>"$work/build.err"; then
		cat "$work/build.err" >>"$log"
		build="FAILED in $(grep '^# ' "$work/build.err" | sed 's/^# //' | paste -sd, -)"
	fi
	if [ -n "$cli" ] && ! (cd "$dir" && "$GO" build -o bin/durasim ./cmd/durasim) >>"$log" 2>&1; then
		cli=""
	fi
	verdict=ok rc=-
	kills=- checks=-
	if [ -n "$cli" ]; then
		echo "== durasim chaos -target asynq $ARGS" >>"$log"
		rc=0
		# shellcheck disable=SC2086
		"$dir/bin/durasim" chaos -target asynq -quiet $ARGS -dir "$work/run-$want" >"$work/run.out" 2>"$work/run.err" || rc=$?
		cat "$work/run.out" "$work/run.err" >>"$log"
		echo "== exit $rc" >>"$log"
		kills=$(awk '$1 == "total" { print $2; exit }' "$work/run.out")
		violated=$(grep -cE '^target-[a-z-]+ +VIOLATED' "$work/run.out" || true)
		checks="$(grep -cE '^target-[a-z-]+ +holds' "$work/run.out" || true) hold, $violated violated"
		if ! grep -q "^asynq chaos: asynq $want's own" "$work/run.out"; then
			verdict="FAIL (the report does not name asynq $want)"
		elif [ "$rc" -gt 1 ]; then
			verdict="FAIL (exit $rc: $(head -c 300 "$work/run.err"))"
		elif [ "$rc" -eq 1 ] && [ "$violated" -eq 0 ]; then
			verdict="FAIL (exit 1 without a verdict: $(head -c 300 "$work/run.err"))"
		elif [ "$rc" -eq 1 ] && at_least "$want" "$pinned"; then
			verdict=FAIL
		elif [ "$rc" -eq 1 ]; then
			verdict="ok (older than $pinned: violations reported, not failed)"
		fi
		rm -rf "$work/run-$want"
	else
		verdict="FAIL (the CLI did not build)"
	fi
	[ "$build" = ok ] || verdict=FAIL
	printf '%-8s build %s  chaos exit %s  kills %s  checks %s  %s  %ds\n' "$want" "$build" "$rc" "${kills:--}" "$checks" "$verdict" $((SECONDS - start))
	[ "${verdict%% *}" != FAIL ] || pass=0
	[ "${ASYNQ_COMPAT_KEEP:-}" = 1 ] || rm -rf "$dir"
done
if [ $pass = 1 ]; then
	echo "asynq-compat: PASS"
	exit 0
fi
echo "asynq-compat: FAIL (see the logs)"
exit 1
