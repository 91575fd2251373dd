"""A copy of an occbench sweep config that works from another folder.

The agreement scripts write a derived config (fewer samples, the smallest sizes) into their
output folder. A user-kernel config names files relative to its own folder (`source`, the
`compile.include_dirs`, an input's `init.file`, the `reference.npy` outputs): in the copy they
are made absolute, so any config that `occbench run` accepts runs from anywhere.
"""
import copy
from pathlib import Path


def _absolute(value, base):
    path = Path(value)
    return value if path.is_absolute() else str((base / path).resolve())


def relocated(spec, config_path):
    """`spec` (a config's JSON) with every file it names made absolute against `config_path`'s folder."""
    base = Path(config_path).resolve().parent
    out = copy.deepcopy(spec)
    if isinstance(out.get("source"), str):
        out["source"] = _absolute(out["source"], base)
    dirs = out.get("compile", {}).get("include_dirs") if isinstance(out.get("compile"), dict) else None
    if isinstance(dirs, list):
        out["compile"]["include_dirs"] = [_absolute(d, base) if isinstance(d, str) else d for d in dirs]
    for argument in out.get("arguments", []) if isinstance(out.get("arguments"), list) else []:
        init = argument.get("init") if isinstance(argument, dict) else None
        if isinstance(init, dict) and isinstance(init.get("file"), str):
            init["file"] = _absolute(init["file"], base)
    npy = out.get("reference", {}).get("npy") if isinstance(out.get("reference"), dict) else None
    if isinstance(npy, dict):
        out["reference"]["npy"] = {k: _absolute(v, base) if isinstance(v, str) else v for k, v in npy.items()}
    return out
