#!/usr/bin/env bash
# Submits a sweep to Slurm as an array of shards (one GPU each) and a merge step that runs after
# all of them succeed. Prints the two job ids ("ARRAY_JOB MERGE_JOB").
#   scripts/slurm/submit.sh [--shards N] [--plan] [--no-gres] [--occbench PATH] [--sbatch-args "..."] CONFIG OUT_DIR [-- occbench args]
#     --shards N       array tasks (default 4), each `occbench run CONFIG --shard auto`
#     --plan           `occbench plan` instead of run: no GPU needed (and no --gres)
#     --no-gres        leave out --gres=gpu:1 (a cluster whose nodes declare no GPU gres)
#     --sbatch-args    more sbatch options for both jobs (partition, account, time limit ...)
# The result: OUT_DIR/merged.json and merged.csv; each shard's files in OUT_DIR/shard-<task id>/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shards=4 mode=run gres="--gres=gpu:1" occbench="" extra_sbatch=""
while [ $# -gt 0 ]; do
  case $1 in
    --shards) shards=$2; shift 2 ;;
    --plan) mode=plan; gres=""; shift ;;
    --no-gres) gres=""; shift ;;
    --occbench) occbench=$2; shift 2 ;;
    --sbatch-args) extra_sbatch=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "usage: submit.sh [--shards N] [--plan] [--no-gres] [--occbench PATH] CONFIG OUT_DIR [-- occbench args]" >&2
  exit 2
fi
config=$(realpath "$1") out=$2
shift 2
[ "${1:-}" = "--" ] && shift
if ! [[ $shards =~ ^[1-9][0-9]*$ ]]; then echo "submit.sh: --shards expects a whole number >= 1, got '$shards'" >&2; exit 2; fi
occbench=$(realpath "${occbench:-$here/../../build/occbench}")
[ -x "$occbench" ] || { echo "submit.sh: $occbench is not an executable occbench (give --occbench PATH)" >&2; exit 2; }
mkdir -p "$out"
out=$(realpath "$out")
# shellcheck disable=SC2086  # extra_sbatch and gres are option lists
array_job=$(sbatch --parsable --array=0-$((shards - 1)) $gres $extra_sbatch --chdir="$out" \
  "$here/shard.sbatch" "$occbench" "$mode" "$config" "$out" "$@")
array_job=${array_job%%;*}
# shellcheck disable=SC2086
merge_job=$(sbatch --parsable --dependency=afterok:"$array_job" --kill-on-invalid-dep=yes $extra_sbatch --chdir="$out" \
  "$here/merge.sbatch" "$occbench" "$out")
merge_job=${merge_job%%;*}
echo "$array_job $merge_job"
