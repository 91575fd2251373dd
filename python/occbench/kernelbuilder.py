"""Kernel Tuner's kernelbuilder: ``PythonKernel`` calls one configuration of a kernel as a Python
function, the configuration given or chosen from a results file (occbench.integration) for this
GPU and problem size. Each call is a run_kernel: the arguments marked as inputs go to the GPU,
the kernel runs once in a supervised child (a fault fails the call, not Python), and the
arguments marked as outputs come back, always as a list."""

from .interface import run_kernel


class PythonKernel:
    def __init__(self, kernel_name, kernel_string, problem_size, arguments, params=None, inputs=None, outputs=None, device=0,
                 platform=0, block_size_names=None, grid_div_x=None, grid_div_y=None, grid_div_z=None, verbose=True, lang=None,
                 results_file=None):
        self.params = dict(params or {})
        self.why = "the parameters given"
        if results_file:
            from . import cache, integration
            chosen, why = integration.TuneResults(results_file).choose(cache.device_name(device) or "default", problem_size)
            self.params.update(chosen)
            self.why = f"{results_file}: {why}"
            if verbose:
                print(f"PythonKernel {kernel_name}: {self.params} ({self.why})")
        n = len(arguments)
        self.inputs = list(inputs) if inputs is not None else [True] * n
        self.outputs = list(outputs) if outputs is not None else [True] * n
        if len(self.inputs) != n or len(self.outputs) != n:
            raise ValueError(f"inputs, outputs: expected {n} flags each, one per argument")
        self._kernel = dict(kernel_name=kernel_name, kernel_source=kernel_string, problem_size=problem_size, device=device,
                            block_size_names=block_size_names, grid_div_x=grid_div_x, grid_div_y=grid_div_y,
                            grid_div_z=grid_div_z, lang=lang)
        self._arguments = list(arguments)

    def run_kernel(self, args):
        """Runs the kernel once with `args` (those not marked as inputs keep the values given at
        construction); returns the outputs, as NumPy arrays, in a list."""
        if len(args) != len(self._arguments):
            raise TypeError(f"PythonKernel: {len(args)} arguments given; the kernel was built with {len(self._arguments)}")
        args = [a if self.inputs[i] else self._arguments[i] for i, a in enumerate(args)]
        left = run_kernel(arguments=args, params=self.params, quiet=True, **self._kernel)
        return [left[i] for i, a in enumerate(args) if self.outputs[i] and hasattr(a, "shape") and a.shape != ()]

    def __call__(self, *args):
        return self.run_kernel(args)
