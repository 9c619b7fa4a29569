# shellcheck shell=bash disable=SC2034,SC2016
# (the settings are read by the scripts that source this file; the single-quoted $i is
# written, unexpanded, into shard.sh)
# Shared by arena-parallel.sh and arena-slurm.sh (sourced, not run): options, the per-shard
# command, merging, the SPRT stop and the check for shards that did not finish.
#
# A shard is one `arena ... --shard i/N --out OUT/shard-i --stop-file OUT/STOP --resume` run.
# `--resume` makes a rerun of a shard that died play only its missing games, so no game is
# ever played (or counted) twice; `arena merge` also counts a game number once. A shard that
# ran to its end (or stopped on the stop file) leaves OUT/shard-i/report.txt; one without it
# did not finish.

ARENA=${ARENA:-}
SHARDS=
OUT=arena-shards
SPRT=
SPRT_MODEL=pentanomial
POLL=10
RETRIES=2
ARENA_ARGS=()

die() {
  echo "$(basename "$0"): $*" >&2
  exit 2
}

log() {
  echo "[$(date +%H:%M:%S)] $*" >&2
}

# Parses the options common to both drivers; the caller handles its own first (passing the
# rest here). Everything after `--` goes to every shard's arena.
parse_common() {
  while [ $# -gt 0 ]; do
    case "$1" in
      -n | --shards) SHARDS=$2; shift 2 ;;
      -o | --out) OUT=$2; shift 2 ;;
      --arena) ARENA=$2; shift 2 ;;
      --sprt) SPRT=$2; shift 2 ;;
      --sprt-model) SPRT_MODEL=$2; shift 2 ;;
      --poll) POLL=$2; shift 2 ;;
      --retries) RETRIES=$2; shift 2 ;;
      --) shift; ARENA_ARGS=("$@"); break ;;
      *) die "unknown option '$1' (see the header of $0)" ;;
    esac
  done
  [ ${#ARENA_ARGS[@]} -gt 0 ] || die "give the arena's options after --"
  for a in "${ARENA_ARGS[@]}"; do
    case "$a" in
      --sprt | --sprt=* | --sprt-model | --sprt-model=*)
        die "give --sprt to this script, not to the shards: it is decided over all of them" ;;
      --shard | --shard=* | --out | --out=* | --stop-file | --stop-file=* | --resume)
        die "'$a' is set by this script for each shard" ;;
    esac
  done
  if [ -z "$ARENA" ]; then
    ARENA=$(command -v arena || true)
    [ -n "$ARENA" ] || ARENA=$(cd "$(dirname "$0")/../.." && pwd)/target/release/arena
  fi
  [ -x "$ARENA" ] || die "no arena binary at '$ARENA' (build it: cargo build --release -p waggle-tools, or give --arena)"
  ARENA=$(cd "$(dirname "$ARENA")" && pwd)/$(basename "$ARENA")
  mkdir -p "$OUT"
  OUT=$(cd "$OUT" && pwd)
}

# Writes OUT/shard.sh: `bash OUT/shard.sh I` runs shard I of SHARDS (every argument quoted
# once here, so that neither GNU parallel, ssh nor Slurm re-splits them).
write_shard_script() {
  {
    echo '#!/usr/bin/env bash'
    echo '# One shard of the match: bash shard.sh INDEX (1-based). Written by arena-shards.lib.sh.'
    echo 'i=$1'
    printf 'exec %q' "$ARENA"
    printf ' %q' "${ARENA_ARGS[@]}"
    printf ' --shard "$i"/%q --out %q/shard-"$i" --stop-file %q --resume\n' \
      "$SHARDS" "$OUT" "$OUT/STOP"
  } >"$OUT/shard.sh"
  chmod +x "$OUT/shard.sh"
}

# The result files present so far.
result_files() {
  local i
  for i in $(seq 1 "$SHARDS"); do
    [ -s "$OUT/shard-$i/results.tsv" ] && echo "$OUT/shard-$i/results.tsv"
  done
}

# Merges what the shards wrote so far; with an SPRT, writes the stop file once a bound is
# crossed. Quiet; returns 0 when the SPRT has decided.
check_sprt() {
  [ -n "$SPRT" ] || return 1
  local files
  mapfile -t files < <(result_files)
  [ ${#files[@]} -gt 0 ] || return 1
  if "$ARENA" merge --sprt "$SPRT" --sprt-model "$SPRT_MODEL" "${files[@]}" 2>/dev/null |
    grep -qE '^SPRT result: H[01] accepted'; then
    if [ ! -e "$OUT/STOP" ]; then
      log "SPRT bound crossed over the merged shards: writing $OUT/STOP"
      date >"$OUT/STOP"
    fi
    return 0
  fi
  return 1
}

# The shards without a report (they did not finish), one number a line.
incomplete_shards() {
  local i
  for i in $(seq 1 "$SHARDS"); do
    [ -e "$OUT/shard-$i/report.txt" ] || echo "$i"
  done
}

# The final merge: OUT/report.txt and OUT/report.html; says which shards did not finish.
# Returns 1 when some did not.
final_merge() {
  local files missing sprt_args=()
  check_sprt || true
  mapfile -t files < <(result_files)
  mapfile -t missing < <(incomplete_shards)
  [ ${#files[@]} -gt 0 ] || die "no shard wrote results (see $OUT/shard-*/ and the logs)"
  [ -n "$SPRT" ] && sprt_args=(--sprt "$SPRT" --sprt-model "$SPRT_MODEL")
  {
    echo "Shards: $SHARDS in $OUT"
    if [ -e "$OUT/STOP" ]; then
      echo "Stopped early: the SPRT decided over the merged shards"
      # Shards stopped (or never started) once the test had decided: nothing is missing.
      missing=()
    elif [ ${#missing[@]} -gt 0 ]; then
      echo "INCOMPLETE: shards ${missing[*]} did not finish; their missing game pairs are not" \
        "in this report (rerun the driver with the same options to play them)"
    fi
    "$ARENA" merge "${sprt_args[@]}" --html "$OUT/report.html" "${files[@]}"
  } >"$OUT/report.txt"
  cat "$OUT/report.txt"
  [ ${#missing[@]} -eq 0 ]
}
