#!/usr/bin/env bash
# Here, on the GPU-less machine: build for the H100 only (sm_90) into build-h100/, which the device
# call carries. The binaries link fmt header-only, CUDA's runtime statically and find libbenchmark
# beside them (RPATH $ORIGIN); cuBLAS comes from the device machine's CUDA toolkit.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The Python module for the device machine's Python (3.12): PYTHON names a 3.12 with nanobind here.
BUILD_DIR=build-h100 CUDA_ARCHS=90 PYTHON=${DEVICE_PYTHON:-/root/.pyenv/versions/3.12.1/bin/python} bash scripts/build.sh
du -sh build-h100
# The binaries alone (about 20 MiB) travel to the device machine more easily than the whole build
# folder: run there with BUILD_DIR=build-h100-bin scripts/device/device_check.sh ...
rm -rf build-h100-bin && mkdir -p build-h100-bin/tests build-h100-bin/bench
# The Python package (its sources and module; PYTHONPATH=build-h100-bin/python there).
if [ -d build-h100/python/occbench ]; then mkdir -p build-h100-bin/python && cp -rL build-h100/python/occbench build-h100-bin/python/; fi
cp build-h100/occbench build-h100-bin/
cp build-h100/tests/occbench_gpu_tests build-h100/tests/occbench_cpu_tests build-h100-bin/tests/
if [ -x build-h100/bench/occbench_gbench ]; then cp build-h100/bench/occbench_gbench build-h100/bench/libbenchmark* build-h100-bin/bench/; fi
# examples/launch_matmul: the application on occbench::launch, its kernel's source beside it.
if [ -x build-h100/examples/launch_matmul/launch_matmul ]; then
  mkdir -p build-h100-bin/examples/launch_matmul
  cp build-h100/examples/launch_matmul/launch_matmul build-h100/examples/launch_matmul/matmul.cu build-h100-bin/examples/launch_matmul/
fi
# muparser (user kernels' expressions), fmt and re2 (--filter) are not on the device machine: carried beside each
# binary, where its RPATH ($ORIGIN) finds them.
for lib in $(ldd build-h100/occbench | awk '/libmuparser|libfmt|libre2/ {print $3}'); do
  for dir in build-h100-bin build-h100-bin/tests build-h100-bin/bench build-h100-bin/python/occbench build-h100-bin/examples/launch_matmul; do
    if [ -d "$dir" ]; then cp "$lib" "$dir/"; fi
  done
done
# The working tree travels whole with every device call (under 30 MB: scripts/checks/check_tree_size.py;
# the limit is 64 MiB for the tree and what is carried together): carry the stripped binaries packed
# (about 3 MiB) and unpack them there with `tar -xJf build-h100-bin.tar.xz`.
find build-h100-bin -type f \( -name 'occbench*' -o -name '_engine*.so' -o -name launch_matmul \) -exec strip --strip-unneeded {} +
tar -cJf build-h100-bin.tar.xz build-h100-bin
du -sh build-h100-bin build-h100-bin.tar.xz
