#!/usr/bin/env bash
# A real single-node Slurm on this machine (Debian's slurm-wlm and munge; no systemd needed):
# starts munged, slurmctld and slurmd from a temporary folder with a minimal slurm.conf for this
# host (CPU-only, no gres), submits a sweep through scripts/slurm/submit.sh (3 array tasks running
# `occbench plan --shard auto`, then the dependent merge), and checks the merged document holds
# every point of the sweep exactly once with one device record per shard. Where a GPU exists it
# also runs `occbench run` shards (the node declares no gres, so without --gres).
# The daemons are always stopped on exit. Exit 0 with "SKIPPED: <reason>" when Slurm or munge is
# missing or the daemons cannot start; non-zero when a check fails. Runs as root (the daemons'
# user) or as a user the daemons may run as.
#   bash scripts/slurm/test_slurm.sh [OCCBENCH_BINARY]   (default: $BUILD_DIR/occbench, BUILD_DIR=build)
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
occbench=$(realpath "${1:-$repo/${BUILD_DIR:-build}/occbench}")
config=${SLURM_TEST_CONFIG:-$repo/configs/stencil.json}
skip() { echo "test_slurm: SKIPPED: $*"; exit 0; }
fail() { echo "test_slurm: FAILED: $*" >&2; show_logs; exit 1; }

for tool in munged slurmctld slurmd sbatch squeue sinfo scontrol; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool not found (install Debian's slurm-wlm and munge: scripts/install-deps.sh)"
done
[ -x "$occbench" ] || { echo "test_slurm: FAILED: $occbench is not built" >&2; exit 1; }

work=$(mktemp -d /tmp/occbench-slurm.XXXXXX)
chmod 755 "$work"
pids=()
show_logs() {
  for log in "$work"/*.log "$work"/out/*.out; do
    [ -f "$log" ] && { echo "--- $log (last lines)"; tail -n 15 "$log"; }
  done >&2
}
stop_daemons() {
  # Jobs first: their steps are not the daemons' children and would outlive them.
  command -v scancel >/dev/null 2>&1 && [ -f "${SLURM_CONF:-}" ] && timeout 5 scancel --full --user "$(id -un)" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  rm -rf "$work"
}
trap stop_daemons EXIT

host=$(hostname -s)
user=$(id -un)
cpus=$(nproc)
# Ports away from the defaults (6817/6818), so a real Slurm on this machine is left alone.
port_base=$((20000 + RANDOM % 20000))
export SLURM_CONF=$work/slurm.conf
cat > "$SLURM_CONF" <<CONF
ClusterName=occbenchtest
SlurmctldHost=$host
SlurmctldPort=$port_base
SlurmdPort=$((port_base + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=30 State=UP
CONF
mkdir -p "$work/state" "$work/spool" "$work/out"

dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge.key"
munged --foreground --force --socket="$work/munge.socket" --key-file="$work/munge.key" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munged.seed" > "$work/munged.out.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge.socket" ] && break; sleep 0.1; done
[ -S "$work/munge.socket" ] || { show_logs; skip "munged did not start (no socket at $work/munge.socket; its log is above)"; }

slurmctld -D -i -f "$SLURM_CONF" > "$work/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" > "$work/slurmd.out.log" 2>&1 &
pids+=($!)
ready=""
for _ in $(seq 100); do
  if state=$(sinfo -h -N -o "%T" 2>/dev/null) && [[ $state == idle* ]]; then ready=1; break; fi
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || { show_logs; skip "a daemon exited at start (pid $pid; logs above)"; }; done
  sleep 0.2
done
[ -n "$ready" ] || { show_logs; skip "the node did not become idle within 20 s (sinfo: ${state:-no answer})"; }
echo "test_slurm: single-node Slurm $(slurmctld -V | awk '{print $2}') up on $host ($cpus CPUs), ports $port_base-$((port_base + 1))"

# Waits for a job to leave the queue; prints its final state.
wait_job() {
  for _ in $(seq 600); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && break
    sleep 0.2
  done
  scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1
}

# Submits CONFIG in MODE through submit.sh and checks the merged document against the whole sweep.
check_sweep() {
  local mode=$1 shards=$2 out=$work/out/$1
  local flags=(--shards "$shards" --occbench "$occbench" --no-gres)
  [ "$mode" = plan ] && flags+=(--plan)
  local jobs
  jobs=$(bash "$repo/scripts/slurm/submit.sh" "${flags[@]}" "$config" "$out") || fail "submit.sh failed"
  read -r array_job merge_job <<< "$jobs"
  echo "test_slurm: $mode: array job $array_job ($shards tasks), merge job $merge_job (afterok)"
  local state
  state=$(wait_job "$merge_job")
  [ -f "$out/merged.json" ] || fail "$mode: no $out/merged.json (merge job $state)"
  local expected
  expected=$("$occbench" run "$config" --dry-run | tail -n +2 | sort)
  python3 - "$out/merged.json" "$shards" "$mode" <<PY || fail "$mode: the merged document is not the whole sweep"
import json, sys
doc = json.load(open(sys.argv[1]))
shards, mode = int(sys.argv[2]), sys.argv[3]
ids = [r["point_id"] for r in doc["results"]]
expected = """$expected""".split("\n")
assert sorted(ids) == expected, f"{len(ids)} points merged, {len(expected)} expected"
assert len(set(ids)) == len(ids), "a point twice"
assert len(doc["devices"]) == shards, f'{len(doc["devices"])} device records for {shards} shards'
assert {r["device"] for r in doc["results"]} == set(range(shards)), "a shard contributed no point"
if mode == "run":
    assert all(r["verification"]["status"] == "passed" for r in doc["results"] if r["status"] == "ok")
print(f"test_slurm: {mode}: merged {len(ids)} points from {shards} shards, one device record each: ok")
PY
}

check_sweep plan 3
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  SLURM_TEST_CONFIG=${SLURM_TEST_CONFIG:-$repo/configs/matmul.json}
  config=$SLURM_TEST_CONFIG
  check_sweep run 2
else
  echo "test_slurm: no GPU here: the shards ran plan only"
fi
echo "test_slurm: passed"
