#!/usr/bin/env python
"""Written for this repository (not one of Kernel Tuner's examples): a tiled transpose tuned the way people
write such a script, with a parameter named `pad` (shared-memory padding against bank conflicts).
Parameters that reached NVRTC as -D options made -Dpad=1 rewrite NVRTC's own headers and fail every
configuration; written as #define lines above the source, as Kernel Tuner writes them, they work."""
import json

import numpy
from occbench import tune_kernel

kernel_string = """
__global__ void transpose(float *out, const float *in, int width, int height) {
    __shared__ float tile[tile_size][tile_size + pad];
    int x = blockIdx.x * tile_size + threadIdx.x;
    int y = blockIdx.y * tile_size + threadIdx.y;
    for (int j = 0; j < tile_size; j += block_size_y)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * tile_size + threadIdx.x;
    y = blockIdx.x * tile_size + threadIdx.y;
    for (int j = 0; j < tile_size; j += block_size_y)
        if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
"""


def tune():
    width, height = 4096, 4096
    image = numpy.random.randn(height, width).astype(numpy.float32)
    out = numpy.zeros_like(image)
    args = [out, image, numpy.int32(width), numpy.int32(height)]
    tune_params = {"tile_size": [16, 32], "block_size_y": [2, 4, 8, 16], "pad": [0, 1]}
    tune_params["block_size_x"] = [16, 32]
    restrictions = ["block_size_x == tile_size", "block_size_y <= tile_size"]
    results, env = tune_kernel("transpose", kernel_string, (width, height), args, tune_params,
                               grid_div_x=["tile_size"], grid_div_y=["tile_size"], restrictions=restrictions,
                               answer=[image.T.copy(), None, None, None])
    with open("transpose_pad.json", "w") as fp:
        json.dump(results, fp, default=str)
    return results


if __name__ == "__main__":
    tune()
