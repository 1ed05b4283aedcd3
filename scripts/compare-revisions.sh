#!/usr/bin/env bash
# Side-by-side speed of two revisions on this machine: builds `prunesim` and `xtask` of each
# (release, in their own work trees and target folders under $CMP_DIR), checks that both give
# the same results, then alternates the two revisions' runs of each workload and prints the
# median wall and CPU (user + sys) seconds of each and the ratio new / old.
#
#   scripts/compare-revisions.sh OLD [NEW] [--runs N] [--only pam,mm,scale,figures]
#
# OLD and NEW are any git revisions (NEW defaults to HEAD). Workloads:
#   pam      prunesim run --trials 300 --jobs 1 --no-bound (PAM at 34k, 800-task trials)
#   mm       the same with --heuristic MM
#   scale    one PAM trial on 1,024 machines x 100,000 tasks (the load per machine of 34k on 8)
#   figures  cargo xtask reproduce-figure all --jobs 2 (30 trials) on OLD's figure files, so
#            both revisions run the same figures (NEW may have more)
# CPU seconds are the steadier measure on a shared machine; wall seconds are what a user waits.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)

OLD=""; NEW="HEAD"; RUNS=3; ONLY="pam,mm,scale,figures"
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) if [ -z "$OLD" ]; then OLD=$1; else NEW=$1; fi; shift ;;
  esac
done
[ -n "$OLD" ] || { echo "usage: $0 OLD [NEW] [--runs N] [--only pam,mm,scale,figures]" >&2; exit 2; }
CMP_DIR=${CMP_DIR:-${TMPDIR:-/tmp}/prunesim-compare}
mkdir -p "$CMP_DIR"

build() { # rev -> prints the folder holding its binaries
  local rev sha dir
  rev=$1; sha=$(git rev-parse --short=12 "$rev^{commit}")
  dir="$CMP_DIR/$sha"
  if [ ! -d "$dir/tree" ]; then
    git worktree add --detach --force "$dir/tree" "$sha" >/dev/null 2>&1
  fi
  (cd "$dir/tree" && CARGO_TARGET_DIR="$dir/target" CARGO_INCREMENTAL=0 \
     cargo build --release --quiet -p prunesim -p xtask) >&2
  echo "$dir"
}

echo "building $OLD and $NEW (release) ..." >&2
OLD_DIR=$(build "$OLD"); NEW_DIR=$(build "$NEW")

# The figure files of OLD (the top folder: what `all` runs), for both revisions.
FIGURES="$CMP_DIR/figures-of-$(git rev-parse --short=12 "$OLD^{commit}")"
rm -rf "$FIGURES" && mkdir -p "$FIGURES"
git archive "$OLD" experiments | tar -x -C "$FIGURES" --strip-components=1
rm -f "$FIGURES/scale.toml"

SCALE_TOML="$CMP_DIR/scale-1024x100000.toml"
# The load per machine of the paper's 34k on 8 machines (34,000 tasks over 88,200 time units),
# on 1,024 machines: 49.34 tasks per time unit; the horizon holds 1.1 x the tasks, so the
# trial keeps its first 100,000 arrivals (as experiments/scale.toml's grid does).
cat >"$SCALE_TOML" <<'EOF'
[workload]
machines = 1024
tasks = 100000
rate = 110000
horizon = 2229.3
seed = 2019

[mapper]
name = "PAM"
EOF

# workload name -> the command, given a revision's folder
command_for() {
  local dir=$1 what=$2 bin="$1/target/release/prunesim"
  case "$what" in
    pam) echo "$bin run --trials 300 --jobs 1 --no-bound" ;;
    mm) echo "$bin run --trials 300 --jobs 1 --no-bound --heuristic MM" ;;
    scale) echo "$bin run $SCALE_TOML --trials 1 --jobs 1 --no-bound" ;;
    figures) echo "env -C $dir/tree $dir/target/release/xtask reproduce-figure all --jobs 2 --fresh --experiments $FIGURES --out $dir/figures" ;;
  esac
}

# Same results first: every measure both revisions report (a newer one may report more), in
# the summary of each small workload; every figure CSV both draw, after the timing.
same_summaries() { # two summary JSON files
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
skip = {"revision", "git_revision", "version", "elapsed", "elapsed_s", "command", "metrics_doc", "provenance"}
def walk(x, y, path):
    if isinstance(x, dict) and isinstance(y, dict):
        return all(walk(x[k], y[k], path + [k]) for k in x.keys() & y.keys() if k not in skip)
    if x != y:
        print("differs at", "/".join(map(str, path)), x, y, file=sys.stderr)
        return False
    return True
sys.exit(0 if walk(a, b, []) else 1)
PY
}
for what in pam mm; do
  $(command_for "$OLD_DIR" $what) --json >"$CMP_DIR/$what.old.json" 2>/dev/null
  $(command_for "$NEW_DIR" $what) --json >"$CMP_DIR/$what.new.json" 2>/dev/null
  if same_summaries "$CMP_DIR/$what.old.json" "$CMP_DIR/$what.new.json"; then
    echo "$what: identical summaries (every measure both report)"
  else
    echo "$what: SUMMARIES DIFFER" >&2
  fi
done

LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A WALL CPU
measure() { # dir what -> appends "wall cpu" to the arrays keyed by "<dir>|<what>"
  local dir=$1 what=$2 out real user sys
  TIMEFORMAT='%R %U %S'
  out=$( { time $(command_for "$dir" "$what") >/dev/null 2>&1; } 2>&1 | tail -n 1)
  read -r real user sys <<<"$out"
  WALL["$dir|$what"]+="$real "
  CPU["$dir|$what"]+="$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}') "
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

printf '| workload | %s wall s | %s wall s | %s CPU s | %s CPU s | CPU new/old |\n' \
  "$OLD" "$NEW" "$OLD" "$NEW"
printf '|---|---|---|---|---|---|\n'
IFS=',' read -r -a SELECTED <<<"$ONLY"
for what in "${SELECTED[@]}"; do
  runs=$RUNS; [ "$what" = figures ] && runs=$(( RUNS < 2 ? RUNS : 2 ))
  for ((i = 0; i < runs; i++)); do
    measure "$OLD_DIR" "$what"; measure "$NEW_DIR" "$what"
  done
  ow=$(echo "${WALL["$OLD_DIR|$what"]}" | median); nw=$(echo "${WALL["$NEW_DIR|$what"]}" | median)
  oc=$(echo "${CPU["$OLD_DIR|$what"]}" | median); nc=$(echo "${CPU["$NEW_DIR|$what"]}" | median)
  printf '| %s | %.2f | %.2f | %.2f | %.2f | %.3f |\n' "$what" "$ow" "$nw" "$oc" "$nc" "$(awk -v n="$nc" -v o="$oc" 'BEGIN {print n / o}')"
done
if [[ ",$ONLY," == *",figures,"* ]]; then
  # The figures both revisions draw (a newer one may draw more).
  same=0; differ=0
  for f in "$OLD_DIR"/figures/*.csv; do
    g="$NEW_DIR/figures/$(basename "$f")"
    case "$f" in *timings.csv) continue ;; esac
    [ -f "$g" ] || continue
    if cmp -s "$f" "$g"; then same=$((same + 1)); else differ=$((differ + 1)); echo "differs: $(basename "$f")" >&2; fi
  done
  echo "figures: $same CSVs identical, $differ differ (of those both revisions draw)"
fi
echo "(medians of $RUNS alternating runs each, figures at most 2; $(nproc) cores; $(uname -m); load average before: $LOAD)"
