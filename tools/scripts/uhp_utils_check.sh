#!/usr/bin/env bash
# Checks target/release/waggle with the tools outside users check engines with: uhp-utils
# (PyPI), installed into a throwaway virtual environment.
#
# - uhp-compare-perft, waggle against itself through depth 4 from three positions: the tool
#   must read every depth's count from waggle's `perft N` reply;
# - uhp-compare-validmoves, waggle against tools/scripts/mzinga_replay_engine.py, which replays
#   Mzinga's recorded `validmoves` replies (engine-tests/data/mzinga-spelling/): the move strings
#   must be the same at all 205 positions;
# - and, so that a match means something, uhp-compare-validmoves against the replay engine with
#   one move left out of each reply must report a difference at every position.
#
# Exit status 0 when all of it holds, or when it cannot be run here (no python3, no venv, no
# network for pip): then it says SKIPPED and why. Non-zero when a tool reports a mismatch or
# cannot read waggle. Build first: cargo build --release (or set WAGGLE to another binary).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
root=$(pwd)
waggle="${WAGGLE:-$root/target/release/waggle}"
data="$root/engine-tests/data/mzinga-spelling/mzinga-validmoves.tsv"
replay="$root/tools/scripts/mzinga_replay_engine.py"
uhp_utils_version=0.1.1

skip() {
  echo "uhp-utils check SKIPPED: $*"
  exit 0
}
fail() {
  echo "uhp-utils check FAILED: $*" >&2
  exit 1
}
# Runs a command, indenting its output; its status is left in $status, its output in $out.
run() {
  local shown="$*"
  shown=${shown//"$tmp/venv/bin/"/}
  shown=${shown//"$tmp/"/}
  echo "\$ ${shown//"$root/"/}"
  out=$("$@" 2>&1)
  status=$?
  printf '%s\n' "$out" | sed 's/^/    /'
}

[ -x "$waggle" ] || fail "$waggle is missing: run cargo build --release first"
[ -r "$data" ] || fail "$data is missing"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"

tmp=$(mktemp -d) || fail "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv" >"$tmp/venv.log" 2>&1 ||
  skip "python3 -m venv failed: $(tail -n 1 "$tmp/venv.log")"
"$tmp/venv/bin/python" -m pip install --disable-pip-version-check --no-input --quiet \
  --timeout 30 --retries 1 "uhp-utils==$uhp_utils_version" >"$tmp/pip.log" 2>&1 ||
  skip "pip could not install uhp-utils==$uhp_utils_version (no network?): $(tail -n 1 "$tmp/pip.log")"
bin="$tmp/venv/bin"
echo "uhp-utils $uhp_utils_version installed in a throwaway virtual environment"

# Perft: waggle against itself, so the counts agree; what is checked is that the tool reads them.
midgame=$(grep -v '^#' "$data" | grep '^Base+MLP;' | head -n 1 | cut -f 1)
for state in 'Base;NotStarted;White[1]' 'Base+MLP;NotStarted;White[1]' "$midgame"; do
  run "$bin/uhp-compare-perft" "$waggle" "$waggle" "$state" 4 --timeout 300
  [ "$status" -eq 0 ] || fail "uhp-compare-perft exited with $status on $state"
  grep -qx 'Perft results match.' <<<"$out" || fail "uhp-compare-perft did not report a match on $state"
  grep -q ': {1: [0-9]*, 2: [0-9]*, 3: [0-9]*, 4: [0-9]*}' <<<"$out" ||
    fail "uhp-compare-perft did not read depths 1 to 4 on $state"
done

# Valid moves: the tool compares the position before each line's last move, so every recorded
# position gets one of its own moves appended.
positions="$tmp/positions.uhp"
awk -F '\t' '!/^#/ && NF == 2 { split($2, m, ";"); print $1 ";" m[1] }' "$data" >"$positions"
total=$(wc -l <"$positions")
[ "$total" -eq 205 ] || fail "expected 205 recorded positions, found $total"
run "$bin/uhp-compare-validmoves" "$waggle" "$replay" "$positions" \
  --engine-b-arg="$data" --timeout 60
[ "$status" -eq 0 ] || fail "uhp-compare-validmoves exited with $status: waggle's move strings differ from Mzinga's"
grep -qx "Compared $total positions: $total matched, 0 differed" <<<"$out" ||
  fail "uhp-compare-validmoves did not report $total matches"

# The control: a replay engine that leaves a move out must be caught.
head -n 5 "$positions" >"$tmp/control.uhp"
run "$bin/uhp-compare-validmoves" "$waggle" "$replay" "$tmp/control.uhp" \
  --engine-b-arg="$data" --engine-b-arg=--drop-one --no-cross-check --timeout 60
[ "$status" -eq 1 ] && grep -qx 'Compared 5 positions: 0 matched, 5 differed' <<<"$out" ||
  fail "the control with a move left out was not reported as 5 differences (exit $status)"

echo "uhp-utils check passed: uhp-compare-perft reads waggle's perft through depth 4, and waggle's validmoves match Mzinga's at all $total positions"
