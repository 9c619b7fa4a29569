#!/usr/bin/env bash
# Runs the shards of one arena match as a Slurm job array, merges their results, and stops
# every shard once an SPRT over the merged games decides. The same schedule as
# arena-parallel.sh (see arena-shards.lib.sh); run it on a login node:
#
#   tools/scripts/arena-slurm.sh [OPTIONS] -- ARENA_OPTIONS...
#
#   -n, --shards N        array tasks, one shard each (required)
#   -o, --out DIR         output directory on a file system every node sees (default:
#                         arena-shards)
#       --arena PATH      the arena binary, at a path every node sees (default: `arena` on
#                         PATH, else target/release/arena)
#       --sprt SPEC       SPRT over the merged shards (elo0=..,elo1=..,alpha=..,beta=..)
#       --sprt-model M    pentanomial (default) or trinomial
#       --poll SECS       how often the shards' results are merged (default: 10)
#       --retries R       resubmit the shards that did not finish up to R times (default 2)
#       --sbatch 'ARGS'   extra sbatch options, split on spaces (e.g.
#                         '--partition=cpu --time=04:00:00 --cpus-per-task=2')
#
# What it does:
#   1. writes DIR/shard.sh (the arena command of one shard, with --shard I/N,
#      --out DIR/shard-I, --stop-file DIR/STOP and --resume);
#   2. submits `sbatch --array=<shards> DIR/shard.sh` style tasks (each runs
#      `bash DIR/shard.sh $SLURM_ARRAY_TASK_ID`, log in DIR/slurm-<job>_<task>.log);
#   3. while tasks are queued or running, merges DIR/shard-*/results.tsv every --poll
#      seconds; when the SPRT crosses a bound it writes DIR/STOP (running shards stop
#      cleanly within a second) and cancels the tasks still pending;
#   4. when the array is done, resubmits the shards without a report (a node died, a task
#      hit its time limit): with --resume they play only their missing games;
#   5. writes DIR/report.txt and DIR/report.html with `arena merge`.
#
# Give each task as many CPUs as the games it plays at once need (--concurrency C of the
# arena: about 2*C engine processes). Exit status as arena-parallel.sh: 0 when every shard
# finished or stopped on the SPRT, 1 when some did not (the report names them).
#
# Example:
#   tools/scripts/arena-slurm.sh -n 64 -o "$HOME/matches/m1" --sprt elo0=0,elo1=5 \
#     --sbatch '--partition=short --time=02:00:00 --cpus-per-task=2' -- \
#     -e "new=$HOME/bin/waggle-new" -e "old=$HOME/bin/waggle-old" --clock 10+0.1 \
#     --openings 20000
set -euo pipefail
# shellcheck source=SCRIPTDIR/arena-shards.lib.sh
. "$(dirname "$0")/arena-shards.lib.sh"

SBATCH_EXTRA=
rest=()
while [ $# -gt 0 ]; do
  case "$1" in
    --sbatch) SBATCH_EXTRA=$2; shift 2 ;;
    --) rest+=("$@"); break ;;
    *) rest+=("$1"); shift ;;
  esac
done
parse_common "${rest[@]}"
[ -n "$SHARDS" ] || die "give the number of shards with -n"
command -v sbatch >/dev/null 2>&1 || die "sbatch not found: run this on a Slurm login node"
write_shard_script
rm -f "$OUT/STOP"
check_sprt || true

# Submits the shards given as arguments; prints the job id.
submit() {
  local list
  list=$(IFS=,; echo "$*")
  # shellcheck disable=SC2086 # SBATCH_EXTRA is split on purpose
  sbatch --parsable --job-name=arena --array="$list" \
    --output="$OUT/slurm-%A_%a.log" $SBATCH_EXTRA \
    --wrap="bash $(printf %q "$OUT/shard.sh") \$SLURM_ARRAY_TASK_ID" | cut -d';' -f1
}

# Waits for job $1 to leave the queue, merging and checking the SPRT meanwhile.
watch_job() {
  local job=$1
  while [ -n "$(squeue -h -j "$job" -o %i 2>/dev/null)" ]; do
    if check_sprt; then
      scancel --state=PENDING "$job" 2>/dev/null || true
    fi
    sleep "$POLL"
  done
}

for round in $(seq 0 "$RETRIES"); do
  mapfile -t todo < <(incomplete_shards)
  [ ${#todo[@]} -gt 0 ] || break
  [ -e "$OUT/STOP" ] && break
  [ "$round" -gt 0 ] && log "shards ${todo[*]} did not finish: resubmitting them (round $round)"
  job=$(submit "${todo[@]}")
  log "submitted job array $job: shards ${todo[*]} of $SHARDS; output in $OUT"
  watch_job "$job"
done
final_merge
