// The best point of each variant measured by occbench (occbench best /tmp/w/syrk/full/syrk_search-NVIDIA-H100-80GB-HBM3-20261125T231229Z.jsonl, objective timing.median_ms:min).
// GPU: NVIDIA H100 80GB HBM3; occbench 19b898ceb08a.
#pragma once

// covariance naive at m=20000 n=2475: min timing.median_ms = 61.5949; median 61.59 ms (of 1 point(s))

// covariance register_tiled at m=20000 n=2475: min timing.median_ms = 3.98128; median 3.981 ms (of 2640 point(s))
#define OCCBENCH_COVARIANCE_REGISTER_TILED_BLOCK_TILE 128
#define OCCBENCH_COVARIANCE_REGISTER_TILED_THREAD_ROWS 8
#define OCCBENCH_COVARIANCE_REGISTER_TILED_THREAD_COLS 8
#define OCCBENCH_COVARIANCE_REGISTER_TILED_K_STEP 8
#define OCCBENCH_COVARIANCE_REGISTER_TILED_SMEM_VECTOR 4
#define OCCBENCH_COVARIANCE_REGISTER_TILED_PADDING 0
#define OCCBENCH_COVARIANCE_REGISTER_TILED_DOUBLE_BUFFER 1
#define OCCBENCH_COVARIANCE_REGISTER_TILED_SPLIT_K 4
