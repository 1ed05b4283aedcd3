#!/usr/bin/env bash
# A real Slurm test of the sharded sweeps: installs Debian's slurm-wlm and munge when
# missing, starts a one-node cluster on localhost from a private configuration (its own ports,
# munge socket, spool and state folders, so it touches no running Slurm), submits two figures'
# sweeps (2 trials) with `prunesim sweep --slurm` as job arrays of 2 shards, waits, collects,
# and compares the merged files with a local run's byte for byte. Stops the daemons it started,
# by PID, on exit.
#
# Needs root and apt-get (skips with a message otherwise). Bounded: every wait has a limit;
# .ci/run wraps the whole script in `timeout 600`.
# Env: CARGO_TARGET_DIR (default: the workspace's target/), SLURM_TEST_FIGURES, SLURM_TEST_KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
T0=$(date +%s)
say() { echo "[slurm-test $(($(date +%s) - T0))s] $*"; }

if [ "$(id -u)" != 0 ]; then
  echo "slurm-test: SKIP (not root: cannot install or run slurmctld/slurmd)"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "slurm-test: SKIP (no apt-get: cannot install Debian's slurm-wlm)"
  exit 0
fi

FIGURES=${SLURM_TEST_FIGURES:-"thesis-4.4 thesis-4.3"}
TRIALS=2
SHARDS=2
WORK=$(mktemp -d /tmp/prunesim-slurm.XXXXXX)
PIDS=()
RESULT=FAIL

cleanup() {
  local rc=$?
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  if [ "$RESULT" = PASS ] && [ "${SLURM_TEST_KEEP:-0}" != 1 ]; then
    rm -rf "$WORK"
  else
    echo "slurm-test: files kept in $WORK"
  fi
  echo "slurm-test: $RESULT ($(($(date +%s) - T0)) s)"
  [ "$RESULT" = PASS ] && exit 0
  exit $((rc == 0 ? 1 : rc))
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. Packages (only when missing).
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
  || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  say "installing slurm-wlm and munge with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq slurm-wlm munge >"$WORK/apt.log" 2>&1 || {
    tail -20 "$WORK/apt.log"
    exit 1
  }
fi
say "$(slurmctld -V)"

# 2. A private munge daemon: its own key and socket.
mkdir -p "$WORK/munge" "$WORK/spool" "$WORK/state" "$WORK/log"
chmod 755 "$WORK/munge"
dd if=/dev/urandom of="$WORK/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$WORK/munge/munge.key"
SOCKET=$WORK/munge/munge.socket
munged --foreground --force --key-file="$WORK/munge/munge.key" --socket="$SOCKET" \
  --pid-file="$WORK/munge/munged.pid" --log-file="$WORK/log/munged.log" \
  --seed-file="$WORK/munge/munged.seed" >"$WORK/log/munged.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [ -S "$SOCKET" ] && break; sleep 0.1; done
[ -S "$SOCKET" ] || { say "munged did not start"; cat "$WORK/log/munged.log"; exit 1; }
munge --socket="$SOCKET" -n | unmunge --socket="$SOCKET" >/dev/null
say "munged up ($SOCKET)"

# 3. slurm.conf for one node on localhost, on ports of its own.
HOST=$(hostname -s)
CPUS=$(nproc)
MEM=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
free_port() {
  local p=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
  echo "$p"
}
CTLD_PORT=$(free_port 16817)
SLURMD_PORT=$(free_port $((CTLD_PORT + 1)))
export SLURM_CONF=$WORK/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=prunesim-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCKET
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=600
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF

# 4. The daemons, in the foreground of our own background jobs (so we hold their PIDs).
slurmctld -D -c -f "$SLURM_CONF" >>"$WORK/log/slurmctld.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do scontrol ping >/dev/null 2>&1 && break; sleep 0.2; done
slurmd -D -f "$SLURM_CONF" >>"$WORK/log/slurmd.out" 2>&1 &
PIDS+=($!)
STATE=
for _ in $(seq 150); do
  STATE=$(sinfo -h -n "$HOST" -o %T 2>/dev/null || true)
  [ "$STATE" = idle ] && break
  sleep 0.2
done
if [ "$STATE" != idle ]; then
  say "node is '$STATE', not idle"
  tail -20 "$WORK/log/slurmctld.log" "$WORK/log/slurmd.log" 2>/dev/null || true
  exit 1
fi
say "slurmctld :$CTLD_PORT and slurmd :$SLURMD_PORT up; node $HOST idle ($CPUS CPUs, ${MEM} MB)"

# 5. The binary the array tasks run: release by default; PRUNESIM_PROFILE=debug reuses the debug
# build that `cargo test --workspace` already made (CI: the sweep is small, a release build of
# the whole tree would take minutes).
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
if [ "${PRUNESIM_PROFILE:-release}" = debug ]; then
  # `cargo test --workspace --no-run` resolves features as `cargo test --workspace` did, so it
  # finds that build fresh; `cargo build -p prunesim` would build its dependencies a second time.
  say "cargo test --workspace --no-run (debug, target $TARGET)"
  CARGO_TARGET_DIR=$TARGET cargo test --workspace --no-run --quiet
  PRUNESIM=$TARGET/debug/prunesim
else
  say "cargo build --release -p prunesim (target $TARGET)"
  CARGO_TARGET_DIR=$TARGET cargo build --release --quiet -p prunesim
  PRUNESIM=$TARGET/release/prunesim
fi

# 6. Submit one job array per figure (shards of points), wait for them, collect.
SLURM_OUT=$WORK/slurm
LOCAL_OUT=$WORK/local
JOBS=()
for fig in $FIGURES; do
  say "prunesim sweep experiments/$fig.toml --trials $TRIALS --out $SLURM_OUT --slurm --shards $SHARDS --jobs 1 --submit"
  out=$("$PRUNESIM" sweep "experiments/$fig.toml" --trials "$TRIALS" --out "$SLURM_OUT" --slurm \
    --shards "$SHARDS" --jobs 1 --time 00:09:00 --submit)
  echo "$out" | sed 's/^/    /'
  JOBS+=("$(echo "$out" | sed -n 's/^submitted job array //p')")
done
wait_for() {
  local ids deadline
  ids=$(IFS=,; echo "$*")
  say "waiting for job(s) $ids (at most 240 s)"
  deadline=$(($(date +%s) + 240))
  while [ -n "$(squeue -h -j "$ids" 2>/dev/null)" ]; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      say "job(s) $ids still queued or running after 240 s"
      squeue
      scancel "$@" || true
      exit 1
    fi
    sleep 2
  done
  say "job(s) $ids done"
}
wait_for "${JOBS[@]}"
for j in "${JOBS[@]}"; do
  scontrol -o show job "$j" 2>/dev/null | grep -o 'JobId=[0-9]* ArrayJobId=[0-9]* ArrayTaskId=[0-9]*\|JobState=[A-Z_]*\|ExitCode=[0-9:]*' \
    | paste -d' ' - - - | sed 's/^/    /' || true
done
for f in "$SLURM_OUT"/slurm-logs/*.out; do
  echo "    $(basename "$f"): $(tr '\n' ' ' <"$f" | cut -c1-200)"
done

# 7. A lost shard: drop one point file of the last figure; collect must fail, name the shard and
# the resubmit command; run that command, wait, and the collect below succeeds.
LAST=${FIGURES##* }
LOST=$(ls "$SLURM_OUT/$LAST.points"/0001-*.toml)
rm "$LOST"
say "removed $(basename "$LOST"); collect $LAST must name shard 1"
if "$PRUNESIM" sweep "experiments/$LAST.toml" --trials "$TRIALS" --out "$SLURM_OUT" --collect \
  >/dev/null 2>"$WORK/collect.err"; then
  say "collect succeeded with a point file missing"
  exit 1
fi
sed 's/^/    /' "$WORK/collect.err"
RESUBMIT=$(sed -n 's/^resubmit them alone: //p' "$WORK/collect.err")
case "$RESUBMIT" in
  "sbatch --array=1 "*) ;;
  *) say "unexpected resubmit command: '$RESUBMIT'"; exit 1 ;;
esac
say "$RESUBMIT"
# shellcheck disable=SC2086 # the printed command, split into words
JOB=$(sbatch --parsable ${RESUBMIT#sbatch })
wait_for "$JOB"
[ -f "$LOST" ] || { say "the resubmitted shard did not write $(basename "$LOST")"; exit 1; }

# 8. Collect, run locally, compare.
for fig in $FIGURES; do
  say "collect $fig"
  "$PRUNESIM" sweep "experiments/$fig.toml" --trials "$TRIALS" --out "$SLURM_OUT" --collect >/dev/null
  say "local run of $fig"
  "$PRUNESIM" sweep "experiments/$fig.toml" --trials "$TRIALS" --out "$LOCAL_OUT" --jobs "$CPUS" >/dev/null
  for ext in csv trials.csv manifest.json svg; do
    cmp "$SLURM_OUT/$fig.$ext" "$LOCAL_OUT/$fig.$ext"
  done
  say "$fig: csv, trials.csv, manifest.json and svg identical to the local run's ($(($(wc -l <"$LOCAL_OUT/$fig.csv") - 1)) rows)"
done
RESULT=PASS
