#!/usr/bin/env bash
# Here, on the GPU-less machine: build for the H100 only (sm_90) into build-h100/, which the device
# call carries. The binaries link fmt header-only, CUDA's runtime statically and find libbenchmark
# beside them (RPATH $ORIGIN); cuBLAS comes from the device machine's CUDA toolkit.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=build-h100 CUDA_ARCHS=90 bash scripts/build.sh
du -sh build-h100
