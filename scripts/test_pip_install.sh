#!/usr/bin/env bash
# `pip install .` as a user runs it (scikit-build-core builds occbench._engine), into a fresh
# virtual environment over the system's Python (its NumPy, pandas and pytest), then the package's
# tests on the installed package, from outside the checkout. The build folder (build/pip-*) and
# ccache are kept, so a second run rebuilds only what changed. One GPU architecture unless
# CUDA_ARCHS says otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=$(realpath -m "${PIP_TEST_VENV:-build/pip-test-venv}")
archs=${CUDA_ARCHS:-90}
rm -rf "$venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "nanobind>=2.4,<3" "scikit-build-core>=0.10"
settings=(--config-settings=cmake.define.CMAKE_CUDA_ARCHITECTURES="${archs// /;}")
if command -v ccache >/dev/null 2>&1; then
  settings+=(--config-settings=cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache
             --config-settings=cmake.define.CMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
PATH="$PATH:/usr/local/cuda/bin" "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation "${settings[@]}" .
cd /tmp
"$venv/bin/python" -c "import occbench, sys; sys.exit(0 if occbench.__file__.startswith('$venv') else 'not the installed package: ' + occbench.__file__)"
"$venv/bin/python" -m pytest "$root/python/tests" -q -p no:cacheprovider
test -x "$venv/bin/occbench" && "$venv/bin/occbench" --version
