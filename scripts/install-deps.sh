#!/usr/bin/env bash
# Installs what occbench builds, runs and plots with, from Debian/Ubuntu packages; with --test, what
# the tests need too (GoogleTest, Google Benchmark, pytest, Clang's libFuzzer for the fuzzer, and a
# single-node Slurm for its test).
# The CUDA toolkit (nvcc) must already be installed; it is not in the distribution's default
# repositories.
#   bash scripts/install-deps.sh          # quickstart.sh: build, run, plot
#   bash scripts/install-deps.sh --test   # test.sh and CI
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ git
          nlohmann-json3-dev libfmt-dev libcli11-dev libmuparser-dev libre2-dev pkg-config
          python3 python3-matplotlib python3-numpy
          python3-dev python3-venv python3-pandas)  # the Python package (python/): its module and results
if [ "${1:-}" = "--test" ]; then
  packages+=(ccache libgtest-dev libbenchmark-dev python3-pytest python3-jsonschema
             python3-jinja2  # a Kernel Tuner script's Jinja template as kernel_source
             clang libclang-rt-dev  # scripts/fuzz/fuzz.sh: libFuzzer, AddressSanitizer, UBSan
             slurm-wlm munge)  # scripts/slurm/test_slurm.sh: a single-node Slurm
fi

sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: nvcc not found: install the CUDA toolkit (tested with 13.0) and put its bin/ on PATH" >&2
  exit 1
fi
# The Python package's build tools, which Debian does not package (nanobind, scikit-build-core),
# from PyPI into .venv, a virtual environment over Debian's Python that sees its NumPy, pandas,
# matplotlib and pytest: scripts/build.sh builds the module for it, test.sh tests with it.
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c "import nanobind, scikit_build_core" >/dev/null 2>&1; then
  echo "install-deps: creating .venv with nanobind and scikit-build-core (PyPI)"
  /usr/bin/python3 -m venv --system-site-packages .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check "nanobind>=2.4,<3" "scikit-build-core>=0.10"
fi
echo "install-deps: all dependencies present"
