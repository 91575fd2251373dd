#!/usr/bin/env bash
# On the device machine: the Python package's GPU tests and Kernel Tuner's examples with
# occbench.tune_kernel (examples/kernel_tuner_python), each beside Kernel Tuner itself where
# KT=1 (its wheels carried in .whl/, its CuPy backend: no PyCUDA there).
#   bash scripts/device/device_python.sh tests                 # pytest python/tests (GPU tests included)
#   EXAMPLES="vector_add stencil" KT=1 bash scripts/device/device_python.sh examples
#   (KEEP_LOGS=1: the logs stay in $OUT beside examples.tar.gz, for kt_examples_summary.py --bests)
# Unpack the binaries first (tar -xJf build-h100-bin.tar.xz). Writes $OUT (or results/python).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-results/python}
mkdir -p "$out"
export PYTHONPATH="$PWD/build-h100-bin/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
python=${PYTHON:-python3}
if [ "${KT:-0}" = 1 ] && [ -d .whl ]; then
  "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/kt-site .whl/*.whl
fi

case "${1:-tests}" in
  tests)
    "$python" -m pytest python/tests -q -rs 2>&1 | tee "$out/pytest.log"
    ;;
  examples)
    for example in ${EXAMPLES:-vector_add}; do
      work=$(mktemp -d) && cp examples/kernel_tuner_python/* "$work/"
      inputs=$(cd "$work" && ls *.json 2>/dev/null)  # the script's own files: what it writes is what is new
      start=$(date +%s%N)
      run=("$example.py"); case "$example" in test_*) run=(-m pytest -q -p no:cacheprovider "$example.py") ;; esac
      (cd "$work" && timeout "${LIMIT_S:-600}" "$python" "${run[@]}") >"$out/$example.occbench.log" 2>&1
      echo "$example occbench rc=$? wall_s=$(( ($(date +%s%N) - start) / 1000000 ))e-3" | tee -a "$out/walls.txt"
      mkdir -p "$out/files" && for f in "$work"/*.json; do
        case " $inputs " in *" $(basename "$f") "*) continue ;; esac
        [ -e "$f" ] && cp "$f" "$out/files/$example.occbench.$(basename "$f")" && rm "$f"  # not Kernel Tuner's when it writes none
      done
      if [ "${KT:-0}" = 1 ]; then
        # The unchanged script (the import lines back to kernel_tuner), Kernel Tuner on CuPy.
        sed -i 's/^import occbench as kernel_tuner$/import kernel_tuner/; s/^from occbench/from kernel_tuner/' "$work/$example.py"
        start=$(date +%s%N)
        (cd "$work" && PYTHONPATH=/tmp/kt-site timeout "${LIMIT_S:-600}" "$python" "$OLDPWD/scripts/kernel_tuner/kt_cupy.py" "$example.py") \
          >"$out/$example.kernel_tuner.log" 2>&1
        echo "$example kernel_tuner rc=$? wall_s=$(( ($(date +%s%N) - start) / 1000000 ))e-3" | tee -a "$out/walls.txt"
        for f in "$work"/*.json; do
          case " $inputs " in *" $(basename "$f") "*) continue ;; esac
          [ -e "$f" ] && cp "$f" "$out/files/$example.kernel_tuner.$(basename "$f")"
        done
      fi
      rm -rf "$work"
    done
    tar -czf "$out/examples.tar.gz" -C "$out" files $(cd "$out" && ls *.log)
    if [ "${KEEP_LOGS:-0}" != 1 ]; then rm -rf "$out/files" "$out"/*.log; fi
    ;;
esac
