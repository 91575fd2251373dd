#!/usr/bin/env bash
# The test command (README, CI): builds if needed, then runs every C++ test through CTest, a short
# seeded fuzzing run (scripts/fuzz/fuzz.sh), the plotting tests and the Python package's through pytest. GPU tests skip,
# saying why, where no GPU can be used.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
# Each step's wall time, printed when the script ends (as quickstart.sh's), so a slow CI step is seen.
t0=$(date +%s)
times=()
step() { local now; now=$(date +%s); times+=("$1 $((now - t0)) s"); t0=$now; }
report() { echo "test.sh: time per step: $(IFS=';'; echo "${times[*]}" | sed 's/;/, /g')"; }
trap report EXIT

bash scripts/install-deps.sh --test  # what the tests need besides the build (instant when present)
step packages
# The repository stays light enough to carry to a GPU machine (results/reference/README.md).
python3 scripts/checks/check_tree_size.py
step "tree size"
bash scripts/build.sh
step build
ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 600
step ctest
# The fuzzer, short and seeded: every reader of user input held to its promise on a few thousand
# inputs made from the shipped files (docs/fuzzing.md; a Clang build in build-fuzz/).
bash scripts/fuzz/fuzz.sh
step fuzz
# A real single-node Slurm (slurm-wlm, munge) running shards and the merge step; skips saying why.
bash scripts/slurm/test_slurm.sh "$BUILD_DIR/occbench"
step slurm

# The Python that has matplotlib: $PYTHON, else .venv's (install-deps.sh makes it), else python3,
# else Debian's /usr/bin/python3.
python=${PYTHON:-}
for candidate in .venv/bin/python python3 /usr/bin/python3; do
  if [ -z "$python" ] && "$candidate" -c "import matplotlib, pytest" >/dev/null 2>&1; then python=$candidate; fi
done
if [ -z "$python" ]; then
  echo "test.sh: no Python with matplotlib and pytest: run scripts/install-deps.sh or pip install -r plots/requirements.txt" >&2
  exit 1
fi
"$python" -m pytest plots/tests scripts/tests -q
step "plots and scripts"
# The Python package (python/): its tests on this build's module (BUILD_DIR/python, which build.sh
# makes where nanobind is installed), then `pip install .` as a user runs it, from a clean
# environment, with the tests again on the installed package (scripts/test_pip_install.sh).
PYTHONPATH="$BUILD_DIR/python" "$python" -m pytest python/tests -q -rs
step "python package"
bash scripts/test_pip_install.sh
step "pip install"
