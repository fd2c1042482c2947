#!/usr/bin/env bash
# compat.sh — durasim's adapter of a queue against other releases of it
# (make river-compat, make goqite-compat, make asynq-compat).
#
#   internal/rivercompat/compat.sh [VERSION...]
#   RIVER_VERSIONS="v0.49.0 v0.50.0" internal/rivercompat/compat.sh
#   COMPAT_TARGET=goqite internal/rivercompat/compat.sh [MODULE@VERSION...]
#   COMPAT_TARGET=asynq internal/rivercompat/compat.sh [VERSION...]
#
# COMPAT_TARGET names the target (river, the default, goqite or asynq);
# what follows says River's, and the goqite and asynq differences are at
# the end of this comment.
#
# For each version (arguments, else $RIVER_VERSIONS, else every release
# the module proxy serves riversqlite for from the oldest the adapter
# builds against: v0.42.0 v0.43.0 v0.47.0 v0.48.0 v0.49.0 v0.50.0 v0.51.0 v0.51.1 v0.51.2) it copies the repository's
# working tree (the files git tracks plus the untracked ones it does not
# ignore, as they are on disk, uncommitted changes included; never .git,
# tmp/, .pg/, bin/ or anything else .gitignore names) into a temporary
# directory, and there:
#   1. go get river, riverdriver, riverdriver/riversqlite,
#      riverdriver/riverpgxv5, rivertype and rivershared at that version;
#   2. go build ./...;
#   3. builds the CLI and runs `durasim run -target river -seeds 1:500`
#      ($RIVER_COMPAT_SEEDS), checking that its summary names the version
#      (if ./... fails to build but the CLI builds, the sweep still runs,
#      for what it tells; the version fails all the same).
# The CLI is built and run as a binary, not with `go run`: go run turns
# every non-zero status into 1, and here 1 (a violation) and 2 (bad usage,
# or a Go panic) must be told apart.
#
# What passes (exit 0; 1 otherwise, 2 for bad usage):
#   - the build succeeds on every version tested;
#   - the sweep runs to its verdict on every version: it exits 0 or 1
#     and prints its summary (the `violations N seed(s)` line). An exit 2,
#     a crash, or a seed whose run returned an error instead of a verdict
#     (the CLI then prints `durasim: seed N: ...` and exits 1 with no
#     summary) fails. The script records such an aborted seed and sweeps
#     the seeds before and after it again, so that they still get their
#     verdicts;
#   - on every tested version at or above the one go.mod pins (the
#     release durasim is written against), the correct handler's effects
#     hold: no violation of the handler's checks (target-effect-once,
#     target-tenant-isolation). Violations of River's own guarantees
#     there are findings about River (a superseded attempt's report
#     landing on the current attempt can run a job past max_attempts:
#     target-attempts) and are printed, not failed.
#   An older version may exit 1: a violation there can be a River bug a
#   later release fixed (v0.47.0's rescuer overwrites jobs that left the
#   running state, River issue #1302, fixed in v0.48.0 by PR #1373). Its
#   violating seeds per check are printed, not failed.
#
# Output: one line per version (version, build, the sweep's exit status,
# aborted seeds and the exits of the segments swept around them,
# violating seeds per check, verdict, seconds), then PASS or FAIL. Each
# version's full log (go get, build, every sweep segment with its shrunk
# counterexample and replay command) is kept in $RIVER_COMPAT_OUT
# (default tmp/river-compat/<version>.log). RIVER_COMPAT_KEEP=1 keeps the
# copies. GO names the go command (default go).
#
# goqite (COMPAT_TARGET=goqite, make goqite-compat): each version is a
# MODULE@VERSION (arguments, else $GOQITE_VERSIONS, else
# github.com/maragudk/goqite@v0.2.3 maragu.dev/goqite@v0.4.0). Step 1 is
# go get maragu.dev/goqite@VERSION, or, for the old module path, a copy
# of that module in third_party/goqite with its module path and imports
# rewritten to maragu.dev/goqite, replaced in, and every build with
# -tags goqite_v02 (target/goqitetarget/api_v02.go: v0.2.3's NewOpts and
# schema). The sweep is `run -target goqite -design idempotent-key` (the
# handler goqite needs: it has no unique send); the pinned release is
# maragu.dev/goqite's in go.mod, and the summary must name the version.
#
# asynq (COMPAT_TARGET=asynq, make asynq-compat): versions from the
# arguments, else $ASYNQ_VERSIONS, else the releases the module proxy
# serves from v0.23.0 on (v0.23.0 v0.24.1 v0.25.1 v0.26.0); step 1 is go
# get github.com/hibiken/asynq@VERSION. asynq runs only as real
# processes, so step 3 is one short `durasim chaos -target asynq`
# ($ASYNQ_COMPAT_ARGS, default -kills 6 -jobs 30 -workers 3 -pause-every 0
# -zombies 0) of the correct design instead of a sweep, on a throwaway
# redis-server (the CLI starts one) and a throwaway PostgreSQL server
# this script starts ($DURASIM_PG_URL's when set); its kills land at
# every point of the handler, and the drain waits out asynq's lease and
# recoverer (about 65 s per version). It passes when the run finishes
# with a report (exit 0 or 1) naming the version, and, at or above the
# release go.mod pins, every check holds (exit 0); an older version's
# violations are printed, not failed. Its line: build, the run's exit,
# kills, the checks' verdicts, seconds. Logs in $ASYNQ_COMPAT_OUT
# (default tmp/asynq-compat/); ASYNQ_COMPAT_KEEP=1 keeps the copies.
set -euo pipefail

TARGET=${COMPAT_TARGET:-river}
case $TARGET in
river | goqite | asynq) ;;
*)
	echo "compat.sh: unknown COMPAT_TARGET $TARGET (want river, goqite or asynq)" >&2
	exit 2
	;;
esac

GO=${GO:-go}
SEEDS=${RIVER_COMPAT_SEEDS:-${GOQITE_COMPAT_SEEDS:-1:500}}
MODULES=(river river/riverdriver river/riverdriver/riversqlite river/riverdriver/riverpgxv5 river/rivertype river/rivershared)

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${RIVER_COMPAT_OUT:-${ASYNQ_COMPAT_OUT:-$repo/tmp/$TARGET-compat}}
keep=${RIVER_COMPAT_KEEP:-${ASYNQ_COMPAT_KEEP:-}}
chaos_args=${ASYNQ_COMPAT_ARGS:--kills 6 -jobs 30 -workers 3 -pause-every 0 -zombies 0}

usage() {
	echo "usage: $0 [vX.Y.Z ...]   (or RIVER_VERSIONS=\"vX.Y.Z ...\"; RIVER_COMPAT_SEEDS=A:B)" >&2
	exit 2
}

versions=("$@")
if [ ${#versions[@]} -eq 0 ] && [ "$TARGET" = river ]; then
	read -r -a versions <<<"${RIVER_VERSIONS:-v0.42.0 v0.43.0 v0.47.0 v0.48.0 v0.49.0 v0.50.0 v0.51.0 v0.51.1 v0.51.2}"
elif [ ${#versions[@]} -eq 0 ] && [ "$TARGET" = asynq ]; then
	read -r -a versions <<<"${ASYNQ_VERSIONS:-v0.23.0 v0.24.1 v0.25.1 v0.26.0}"
elif [ ${#versions[@]} -eq 0 ]; then
	read -r -a versions <<<"${GOQITE_VERSIONS:-github.com/maragudk/goqite@v0.2.3 maragu.dev/goqite@v0.4.0}"
fi
[ ${#versions[@]} -gt 0 ] || usage
semver='v[0-9]+\.[0-9]+\.[0-9]+([-+].*)?'
for v in "${versions[@]}"; do
	if [ "$TARGET" != goqite ]; then
		[[ $v =~ ^$semver$ ]] || { echo "compat.sh: bad version $v" >&2; usage; }
	else
		[[ $v =~ ^(maragu\.dev/goqite|github\.com/maragudk/goqite)@$semver$ ]] || { echo "compat.sh: bad goqite version $v (want MODULE@vX.Y.Z)" >&2; usage; }
	fi
done
[[ $SEEDS =~ ^([0-9]+):([0-9]+)$ ]] || { echo "compat.sh: bad RIVER_COMPAT_SEEDS $SEEDS" >&2; usage; }
seed_lo=${BASH_REMATCH[1]} seed_hi=${BASH_REMATCH[2]}
[ "$seed_lo" -le "$seed_hi" ] || usage

case $TARGET in
river) pinmod=github.com/riverqueue/river ;;
goqite) pinmod=maragu.dev/goqite ;;
asynq) pinmod=github.com/hibiken/asynq ;;
esac
pinned=$(awk -v m="$pinmod" '$1 == m { print $2; exit }' "$repo/go.mod")
[ -n "$pinned" ] || { echo "compat.sh: go.mod pins no $pinmod" >&2; exit 2; }
tags=() sweep_args=()
[ "$TARGET" != goqite ] || sweep_args=(-design idempotent-key)

# prepare DIR VERSION: the copy in DIR switched to VERSION of the target
# (tags: the build tags it then needs).
prepare() {
	local dir=$1 v=$2 m d gets=()
	tags=()
	if [ "$TARGET" = river ]; then
		for m in "${MODULES[@]}"; do gets+=("github.com/riverqueue/$m@$v"); done
		(cd "$dir" && "$GO" get "${gets[@]}")
		return
	fi
	if [ "$TARGET" = asynq ]; then
		(cd "$dir" && "$GO" get "github.com/hibiken/asynq@$v")
		return
	fi
	case $v in
	maragu.dev/goqite@*) (cd "$dir" && "$GO" get "$v") ;;
	github.com/maragudk/goqite@*)
		d=$(cd "$dir" && "$GO" mod download -json "$v" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
		[ -n "$d" ] || return 1
		mkdir -p "$dir/third_party" && cp -r "$d" "$dir/third_party/goqite" && chmod -R u+w "$dir/third_party/goqite"
		sed -i '1s#.*#module maragu.dev/goqite#' "$dir/third_party/goqite/go.mod"
		grep -rl 'github.com/maragudk/goqite' "$dir/third_party/goqite" --include='*.go' | xargs -r sed -i 's#github.com/maragudk/goqite#maragu.dev/goqite#g'
		(cd "$dir" && "$GO" mod edit -replace maragu.dev/goqite=./third_party/goqite)
		tags=(-tags goqite_v02)
		;;
	esac
}

work=$(mktemp -d "${TMPDIR:-/tmp}/$TARGET-compat.XXXXXX")
pg=""
cleanup() {
	[ -z "$pg" ] || (cd "$repo" && "$GO" run ./internal/pgtest/cmd/pgserver down -dir "$pg" >/dev/null 2>&1) || true
	[ "$keep" = 1 ] && echo "copies kept in $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$out"
# asynq's handlers write their effects to PostgreSQL: a throwaway server
# unless $DURASIM_PG_URL names one.
if [ "$TARGET" = asynq ] && [ -z "${DURASIM_PG_URL:-}" ]; then
	pg=$work/pg
	chmod 755 "$work" # as root, the server runs as the postgres user, who must enter it
	env=$(cd "$repo" && "$GO" run ./internal/pgtest/cmd/pgserver up -dir "$pg") || { echo "compat.sh: no PostgreSQL server" >&2; exit 2; }
	eval "$env"
	export DURASIM_PG_URL
fi

# at_least A B: version A >= version B.
at_least() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n1)" = "$2" ]; }

# copy_tree DIR: the working tree's files into DIR.
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

# Per version, filled by sweep: the checks' violating-seed counts and the
# segments' results.
declare -A viol
checks=() aborted=() seg_exits=() seeds_run=0 failing=0 handler=0 queue_only=0 sweep_bad=""

# sweep BIN LOG: durasim run -target river over the seeds. A seed whose
# run returns an error stops the CLI before its summary, so the seeds
# before it get no verdict either: the script records the seed and sweeps
# the seeds before it and after it again, as segments of their own.
sweep() {
	local bin=$1 log=$2 rc n lo hi
	local -a todo=("$seed_lo:$seed_hi")
	viol=() checks=() aborted=() seg_exits=() seeds_run=0 failing=0 handler=0 queue_only=0 sweep_bad=""
	while [ ${#todo[@]} -gt 0 ]; do
		lo=${todo[0]%:*} hi=${todo[0]#*:}
		todo=("${todo[@]:1}")
		echo "== durasim run -target $TARGET ${sweep_args[*]} -seeds $lo:$hi" >>"$log"
		rc=0
		"$bin" run -target "$TARGET" "${sweep_args[@]}" -seeds "$lo:$hi" >"$work/seg.out" 2>"$work/seg.err" || rc=$?
		cat "$work/seg.out" "$work/seg.err" >>"$log"
		echo "== exit $rc" >>"$log"
		seg_exits+=("$rc")
		if [ "$rc" -le 1 ] && grep -q '^violations ' "$work/seg.out"; then
			tally "$work/seg.out"
		elif [ "$rc" -eq 1 ] && [[ $(head -n1 "$work/seg.err") =~ ^durasim:\ seed\ ([0-9]+): ]] &&
			n=${BASH_REMATCH[1]} && [ "$n" -ge "$lo" ] && [ "$n" -le "$hi" ]; then
			aborted+=("$n")
			local -a next=()
			[ "$n" -eq "$lo" ] || next+=("$lo:$((n - 1))")
			[ "$n" -eq "$hi" ] || next+=("$((n + 1)):$hi")
			todo=("${next[@]}" "${todo[@]}")
		else
			sweep_bad="exit $rc without a verdict"
			return
		fi
	done
}

# tally OUT: one segment's summary into the version's counts. The
# summary's last line: "violations N seed(s)", and since the checks were
# split by whose guarantee they are, ": H of the handler's effects, Q of
# the queue's guarantees only".
violations_re="^violations +([0-9]+) seed\\(s\\)(: ([0-9]+) of the handler's effects, ([0-9]+) of the queue's)?"
tally() {
	local line name n
	while IFS= read -r line; do
		if [[ $line =~ ^\ +(target-[a-z-]+)\ .*(holds|VIOLATED\ in\ ([0-9]+)\ seed) ]]; then
			name=${BASH_REMATCH[1]} n=${BASH_REMATCH[3]:-0}
			[ -n "${viol[$name]+x}" ] || { checks+=("$name"); viol[$name]=0; }
			viol[$name]=$((viol[$name] + n))
		elif [[ $line =~ ^seeds\ +([0-9]+) ]]; then
			seeds_run=$((seeds_run + BASH_REMATCH[1]))
		elif [[ $line =~ $violations_re ]]; then
			failing=$((failing + BASH_REMATCH[1]))
			handler=$((handler + ${BASH_REMATCH[3]:-0})) queue_only=$((queue_only + ${BASH_REMATCH[4]:-0}))
		elif [[ $line =~ ^target\ +$TARGET\ +([^ ]+) ]] && [ "${BASH_REMATCH[1]}" != "${want##*@}" ]; then
			sweep_bad="ran $TARGET ${BASH_REMATCH[1]}, not ${want##*@}"
		fi
	done <"$1"
}

# chaos BIN LOG: asynq's check of a version, one short chaos run of the
# correct design; it prints the version's line and sets verdict.
chaos() {
	local bin=$1 log=$2 rc=0 kills violated checks
	echo "== durasim chaos -target $TARGET $chaos_args" >>"$log"
	# shellcheck disable=SC2086
	"$bin" chaos -target "$TARGET" -quiet $chaos_args -dir "$work/run-$ver" >"$work/run.out" 2>"$work/run.err" || rc=$?
	cat "$work/run.out" "$work/run.err" >>"$log"
	echo "== exit $rc" >>"$log"
	kills=$(awk '$1 == "total" { print $2; exit }' "$work/run.out")
	violated=$(grep -cE '^target-[a-z-]+ +VIOLATED' "$work/run.out" || true)
	checks="$(grep -cE '^target-[a-z-]+ +holds' "$work/run.out" || true) hold, $violated violated"
	if ! grep -q "^asynq chaos: asynq $ver's own" "$work/run.out"; then
		verdict="FAIL (the report does not name asynq $ver)"
	elif [ "$rc" -gt 1 ]; then
		verdict="FAIL (exit $rc: $(head -c 300 "$work/run.err"))"
	elif [ "$rc" -eq 1 ] && [ "$violated" -eq 0 ]; then
		verdict="FAIL (exit 1 without a verdict: $(head -c 300 "$work/run.err"))"
	elif [ "$rc" -eq 1 ] && at_least "$ver" "$pinned"; then
		verdict=FAIL
	elif [ "$rc" -eq 1 ]; then
		verdict="ok (older than $pinned: violations reported, not failed)"
	fi
	[ "$build" = ok ] || verdict=FAIL
	rm -rf "$work/run-$ver"
	printf '%-8s build %s  chaos exit %s  kills %s  checks %s  %s  %ds\n' "$want" "$build" "$rc" "${kills:--}" "$checks" "$verdict" $((SECONDS - start))
}

# join SEP ITEMS...
join() {
	local sep=$1 s
	shift
	s=$(printf "%s$sep" "$@")
	printf '%s' "${s%"$sep"}"
}

pass=1
what="seeds $SEEDS"
[ "$TARGET" != asynq ] || what=$chaos_args
printf '%s-compat: %s, go.mod pins %s, logs in %s\n' "$TARGET" "$what" "$pinned" "$out"
for want in "${versions[@]}"; do
	start=$SECONDS
	ver=${want##*@}
	log=$out/${want//\//_}.log
	: >"$log"
	dir=$work/${want//\//_}
	copy_tree "$dir"
	build=ok cli=ok
	if ! prepare "$dir" "$want" >>"$log" 2>&1; then
		build="FAILED (go get)" cli=""
	elif ! (cd "$dir" && "$GO" build "${tags[@]}" ./...) >>"$log" 2>"$work/build.err"; then
		cat "$work/build.err" >>"$log"
		build="FAILED in $(grep '^# ' "$work/build.err" | sed 's/^# //' | paste -sd, -)"
	fi
	if [ -n "$cli" ] && ! (cd "$dir" && "$GO" build "${tags[@]}" -o bin/durasim ./cmd/durasim) >>"$log" 2>&1; then
		cli=""
	fi
	verdict=ok
	[ "$build" = ok ] || verdict=FAIL
	if [ -n "$cli" ] && [ "$TARGET" = asynq ]; then
		chaos "$dir/bin/durasim" "$log"
	elif [ -n "$cli" ]; then
		sweep "$dir/bin/durasim" "$log"
		if [ -n "$sweep_bad" ] || [ ${#aborted[@]} -gt 0 ]; then
			verdict=FAIL
		elif at_least "$ver" "$pinned" && [ "$handler" -gt 0 ]; then
			verdict=FAIL
		elif at_least "$ver" "$pinned" && [ "$failing" -gt 0 ] && [ $verdict = ok ]; then
			verdict="ok ($TARGET's own findings reported, not failed)"
		elif [ "$failing" -gt 0 ] && [ $verdict = ok ]; then
			verdict="ok (older than $pinned: violations reported, not failed)"
		fi
		per=()
		for c in "${checks[@]}"; do [ "${viol[$c]}" -eq 0 ] || per+=("$c=${viol[$c]}"); done
		[ ${#per[@]} -gt 0 ] || per=(none)
		ab=none
		[ ${#aborted[@]} -eq 0 ] || ab=$(join , "${aborted[@]}")
		segs=""
		[ ${#seg_exits[@]} -le 1 ] || segs=" (then $(join / "${seg_exits[@]:1}") in the segments around them)"
		whose=""
		[ $((handler + queue_only)) -eq 0 ] || whose=": $handler of the handler's effects, $queue_only of the queue's guarantees only"
		printf '%-8s build %s  sweep exit %s  aborted seeds: %s%s  violating seeds per check: %s  (%d of %d seeds failing%s)%s  %s  %ds\n' \
			"$want" "$build" "${seg_exits[0]}" "$ab" "$segs" "$(join ' ' "${per[@]}")" "$failing" "$seeds_run" "$whose" \
			"${sweep_bad:+  [$sweep_bad]}" "$verdict" $((SECONDS - start))
	else
		printf '%-8s build %s  no sweep: the CLI did not build (see %s)  FAIL  %ds\n' "$want" "$build" "$log" $((SECONDS - start))
		verdict=FAIL
	fi
	[ "${verdict%% *}" != FAIL ] || pass=0
	[ "$keep" = 1 ] || rm -rf "$dir"
done

if [ $pass = 1 ]; then
	echo "$TARGET-compat: PASS"
	exit 0
fi
echo "$TARGET-compat: FAIL (see the logs)"
exit 1
