#!/usr/bin/env python
"""Written for this repository (not one of Kernel Tuner's examples): a string parameter that picks the
arithmetic's type of a templated kernel, as Kernel Tuner's accuracy example does with its
`float_type` ("vector_add<float_type>"), here over float32 inputs and outputs so that no
TunablePrecision is needed."""
import json

import numpy
from occbench import tune_kernel

kernel_string = """
#include <cuda_fp16.h>
using half = __half;

template <typename T>
__global__ void axpy(float *y, const float *x, const float *y0, float a, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) y[i] = float(T(a) * T(x[i]) + T(y0[i]));
}
"""


def tune():
    size = 10000000
    x = numpy.random.rand(size).astype(numpy.float32)
    y0 = numpy.random.rand(size).astype(numpy.float32)
    a = numpy.float32(0.5)
    args = [numpy.zeros_like(x), x, y0, a, numpy.int32(size)]
    tune_params = {"block_size_x": [128, 256, 512, 1024], "float_type": ["float", "double", "half"]}
    results, env = tune_kernel("axpy<float_type>", kernel_string, size, args, tune_params,
                               answer=[a * x + y0, None, None, None, None], atol=1e-2)
    with open("precision_template.json", "w") as fp:
        json.dump(results, fp, default=str)
    return results


if __name__ == "__main__":
    tune()
