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
