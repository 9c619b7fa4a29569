#!/usr/bin/env bash
# Runs the shards of one arena match with GNU parallel, on local slots or over SSH hosts,
# merges their results, and stops every shard once an SPRT over the merged games decides.
#
#   tools/scripts/arena-parallel.sh [OPTIONS] -- ARENA_OPTIONS...
#
#   -n, --shards N        split the schedule into N shards (default: the number of slots)
#   -j, --jobs J          shards run at once per host (default: the number of cores)
#   -S, --sshlogin HOSTS  GNU parallel's --sshlogin (`host1,2/host2,:` ...); the output
#                         directory and the arena and engine paths must be the same on
#                         every host (a shared file system), see the README
#   -o, --out DIR         output directory (default: arena-shards)
#       --arena PATH      the arena binary (default: `arena` on PATH, else target/release/arena)
#       --sprt SPEC       SPRT over the merged shards (elo0=..,elo1=..,alpha=..,beta=..)
#       --sprt-model M    pentanomial (default) or trinomial
#       --poll SECS       how often the shards' results are merged (default: 10; may be
#                         fractional)
#       --retries R       GNU parallel reruns a shard that died up to R more times (default 2)
#
# Each shard writes DIR/shard-I/ (results.tsv, games, PGN, report); a shard that died is
# rerun with --resume and plays only its missing games. While the shards run, their results
# are merged every --poll seconds; when the SPRT crosses a bound, DIR/STOP is written and
# every shard (polling it with --stop-file) stops cleanly. At the end DIR/report.txt and
# DIR/report.html hold the merged report. Running the script again with the same options
# completes shards that did not finish. Exit status: 0 when every shard finished (or
# stopped on the SPRT), 1 when some did not (the report names them), 2 on a usage error.
#
# Example (4 local slots):
#   tools/scripts/arena-parallel.sh -j 4 -n 4 -o match --sprt elo0=0,elo1=10 -- \
#     -e 'new=/opt/waggle/new' -e 'old=/opt/waggle/old' --clock 10+0.1 --openings 10000
set -euo pipefail
# shellcheck source=SCRIPTDIR/arena-shards.lib.sh
. "$(dirname "$0")/arena-shards.lib.sh"

JOBS=$(nproc 2>/dev/null || echo 2)
SSHLOGIN=
rest=()
while [ $# -gt 0 ]; do
  case "$1" in
    -j | --jobs) JOBS=$2; shift 2 ;;
    -S | --sshlogin) SSHLOGIN=$2; shift 2 ;;
    --) rest+=("$@"); break ;;
    *) rest+=("$1"); shift ;;
  esac
done
parse_common "${rest[@]}"
command -v parallel >/dev/null 2>&1 ||
  die "GNU parallel is not installed (Debian/Ubuntu: apt-get install parallel)"
[ -n "$SHARDS" ] || SHARDS=$JOBS
write_shard_script
rm -f "$OUT/STOP"
check_sprt || true

parallel_args=(--jobs "$JOBS" --retries $((RETRIES + 1)) --joblog "$OUT/joblog.txt"
  --line-buffer --tagstring 'shard {}')
[ -n "$SSHLOGIN" ] && parallel_args+=(--sshlogin "$SSHLOGIN")
log "$SHARDS shards, $JOBS at once${SSHLOGIN:+ on $SSHLOGIN}; output in $OUT"
# Only the shards that have not finished (all of them on a first run).
mapfile -t todo < <(incomplete_shards)
set +e
parallel "${parallel_args[@]}" bash "$OUT/shard.sh" {} ::: "${todo[@]}" \
  >"$OUT/shards.log" 2>&1 &
pid=$!
# Merge and check the SPRT every --poll seconds while the shards run.
poll_ms=$(awk -v p="$POLL" 'BEGIN { printf "%d", p * 1000 }')
next=0
while kill -0 "$pid" 2>/dev/null; do
  now=$(($(date +%s%N) / 1000000))
  if [ "$now" -ge "$next" ]; then
    check_sprt || true
    next=$((now + poll_ms))
  fi
  sleep 0.2
done
wait "$pid"
status=$?
set -e
[ "$status" -eq 0 ] || log "GNU parallel: $status shard runs failed even after retries (see $OUT/shards.log and $OUT/joblog.txt)"
final_merge
