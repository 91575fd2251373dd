"""The configuration to launch a tuned kernel with, from the results files of its tuning: the same
rule as the C++ library occbench::launch (docs/launch.md): this GPU's best at the recorded problem
size nearest the wanted one, else the best of a GPU of the same architecture, else the defaults,
with the reason. Never an error for lack of tuning data: a results file that cannot be read is
left out and named.

    from occbench.launch import choose
    chosen = choose(["tuned/scale.json"], "app/scale", {"n": n}, defaults={"BLOCK": 256})
    chosen.params    # {"BLOCK": 512}: the defaults with the chosen point's values
    chosen.reason    # "app/scale: this GPU's (NVIDIA H200) best at this size (timing.median_ms:min 0.5)"
"""
import json
from dataclasses import dataclass, field

from . import _engine


@dataclass
class Choice:
    params: dict
    source: str  # "this_gpu", "same_architecture" or "defaults"
    reason: str
    left_out: list = field(default_factory=list)  # results files not read, with why


def this_gpu():
    """(name, compute capability) of CuPy's current device."""
    import cupy
    device = cupy.cuda.Device()
    props = cupy.cuda.runtime.getDeviceProperties(device.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    return name, f"{props['major']}.{props['minor']}"


def choose(results, variant, sizes, defaults=None, gpu=None, compute_capability=None, objective="timing.median_ms"):
    """The configuration for `variant` ("family/variant" or the variant's name) at `sizes` on `gpu`
    (default: CuPy's current device)."""
    if gpu is None:
        gpu, compute_capability = this_gpu()
    source, params_json, reason, left_out = _engine.choose_launch(list(map(str, results)), variant, gpu, compute_capability or "",
                                                                 {k: float(v) for k, v in sizes.items()}, objective)
    params = dict(defaults or {})
    chosen = json.loads(params_json) if params_json else {}
    params.update({k: v for k, v in chosen.items() if not defaults or k in defaults})
    return Choice(params, source, reason, left_out)


class Kernel:
    """A kernel declared once, launched with CuPy in the configuration ``choose`` picks for the GPU
    and problem size at hand, as occbench::launch does in C++ (docs/launch.md):

        scale = Kernel("scale.cu", "scale", "app/scale", {"BLOCK": 256},
                       grid=lambda p, s: ((s["n"] + p["BLOCK"] - 1) // p["BLOCK"],), block=lambda p, s: (p["BLOCK"],),
                       results=["tuned/scale-h200.json"])
        scale({"n": n}, out, x, np.float32(2), np.int32(n))

    The parameters are ``#define`` lines above the source. The first launch on a device at a size
    chooses, compiles (CuPy's compiler and cache) and says which configuration and why on
    ``log``; a chosen configuration that does not compile gives way to the defaults, saying so."""

    def __init__(self, source, name, variant, parameters, grid, block, results=(), dynamic_smem_bytes=lambda p, s: 0,
                 options=(), log=None):
        import sys
        with open(source, encoding="utf8") as handle:
            self._source = handle.read()
        self.name, self.variant, self.defaults = name, variant, dict(parameters)
        self._grid, self._block, self._smem = grid, block, dynamic_smem_bytes
        self._results, self._options = [str(r) for r in results], tuple(options)
        self._log = log or (lambda line: print(line, file=sys.stderr))
        self._ready = {}

    def _compile(self, params):
        import cupy
        code = "".join(f"#define {k} {v}\n" for k, v in params.items()) + "#line 1\n" + self._source
        expressions = [self.name] if "<" in self.name else None
        return cupy.RawModule(code=code, options=self._options, name_expressions=expressions).get_function(self.name)

    def _prepare(self, sizes):
        import cupy
        gpu, compute_capability = this_gpu()
        chosen = choose(self._results, self.variant, sizes, defaults=self.defaults, gpu=gpu, compute_capability=compute_capability)
        for path in chosen.left_out:
            self._log(f"occbench.launch: {self.name}: results file left out: {path}")
        try:
            function = self._compile(chosen.params)
        except cupy.cuda.compiler.CompileException as e:
            if chosen.source == "defaults":
                raise
            self._log(f"occbench.launch: {self.name}: the chosen {chosen.params} does not compile here ({str(e).splitlines()[0]}); "
                      "the defaults instead")
            chosen = Choice(dict(self.defaults), "defaults", "the defaults: the chosen configuration did not compile", chosen.left_out)
            function = self._compile(chosen.params)
        text = " ".join(f"{k}={v}" for k, v in sizes.items())
        self._log(f"occbench.launch: {self.name} on {gpu} at {text}: {chosen.reason}; "
                  + " ".join(f"{k}={v}" for k, v in chosen.params.items()))
        p = chosen.params
        return chosen, function, tuple(self._grid(p, sizes)), tuple(self._block(p, sizes)), int(self._smem(p, sizes))

    def ready(self, sizes):
        """(choice, function, grid, block, shared memory) at `sizes` on CuPy's current device."""
        import cupy
        key = (cupy.cuda.Device().id, tuple(sorted(sizes.items())))
        if key not in self._ready:
            self._ready[key] = self._prepare(sizes)
        return self._ready[key]

    def choice(self, sizes):
        return self.ready(sizes)[0]

    def __call__(self, sizes, *args, stream=None):
        _, function, grid, block, smem = self.ready(sizes)
        function(grid, block, args, shared_mem=smem, stream=stream)
