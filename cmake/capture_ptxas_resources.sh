#!/usr/bin/env bash
# CUDA compiler launcher for the kernel families (kernels/CMakeLists.txt):
#   capture_ptxas_resources.sh [LAUNCHER...] -- NVCC ARGS...
# Runs the real compile (through LAUNCHER, e.g. ccache, when one is configured) with nvcc's
# --resource-usage added, and keeps ptxas's per-kernel lines (entry function and architecture,
# stack frame and spills, registers and shared memory) in <object>.resources.txt, which
# cmake/gather_kernel_resources.cmake embeds in the binary for `occbench plan`. Everything else
# nvcc prints (warnings, errors) still goes to stderr; ptxas's info lines do not clutter the log.
# ccache replays a cached compile's stderr, so a cache hit writes the same file.
launcher=()
while (($#)) && [[ $1 != -- ]]; do
  [[ -n $1 ]] && launcher+=("$1")
  shift
done
if (($# == 0)); then
  echo "capture_ptxas_resources.sh: expected [LAUNCHER...] -- COMPILER ARGS..." >&2
  exit 2
fi
shift  # the --

object=""
args=("$@")
for ((i = 0; i + 1 < ${#args[@]}; ++i)); do
  [[ ${args[i]} == -o ]] && object=${args[i + 1]}
done
if [[ -z $object ]]; then  # not a compile to an object: nothing to capture
  exec "${launcher[@]}" "$@"
fi

log=$(mktemp "${TMPDIR:-/tmp}/occbench-ptxas.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
"${launcher[@]}" "$@" --resource-usage 2>"$log"
status=$?

keep='^ptxas info *: (Compiling entry function|Function properties for|Used )|^ +[0-9]+ bytes stack frame'
drop='^ptxas info *:|^ +[0-9]+ bytes stack frame'
grep -Ev "$drop" "$log" >&2
if ((status == 0)); then
  grep -E "$keep" "$log" >"$object.resources.txt.tmp"
  mv -f "$object.resources.txt.tmp" "$object.resources.txt" || status=1
fi
exit $status
