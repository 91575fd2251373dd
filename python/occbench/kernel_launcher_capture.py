"""Kernel Launcher's captures as occbench configs, so that its users tune them with occbench.

Kernel Launcher (KERNEL_LAUNCHER_CAPTURE=name) writes a launch as ``KEY_XxY.json`` beside its
buffers (``.bin``, or ``.bin.gz``): the tuning space, the kernel, its arguments and the problem's
size. This writes the same launch as the config occbench::launch's own captures are (docs/launch.md):

    python -m occbench.kernel_launcher_capture captures/matmul_1024x1024.json --out tune/matmul
    occbench run tune/matmul/config.json --strategy local --max-points 60

The problem's size becomes the sizes ``x``, ``y`` and ``z`` and the tuning key the variant, as for
Kernel Launcher's wisdom files, so the results choose the launch of an application that declares
the kernel with that variant. What does not map (a device attribute in an expression, a parameter
value that is not a whole number, an element type a config has no name for, preheaders) is refused
with a ``CaptureError`` naming it, never written wrong.
"""
import argparse
import gzip
import json
import os
import re
import sys

import numpy as np


class CaptureError(ValueError):
    """A capture that cannot be written as a config: names the file, the field and why."""


# C type names (after `const` and `*` are taken off) to a config's element type.
_TYPES = {
    "float": "float32", "double": "float64",
    "int": "int32", "signed int": "int32", "int32_t": "int32",
    "unsigned int": "uint32", "uint": "uint32", "uint32_t": "uint32",
    "unsigned char": "uint8", "uchar": "uint8", "uint8_t": "uint8",
    "long long": "int64", "int64_t": "int64", "long": "int64",
    "unsigned long long": "uint64", "uint64_t": "uint64", "unsigned long": "uint64",
}
_DTYPES = {"float32": "<f4", "float64": "<f8", "int32": "<i4", "uint32": "<u4", "uint8": "|u1", "int64": "<i8", "uint64": "<u8"}
_BINARY = {"+", "-", "*", "%", "==", "!=", "<", ">", "<=", ">=", "&&", "||"}


def _fail(path, field, why):
    raise CaptureError(f"{path}: {field}: {why}")


def expression(entry, path, field):
    """A Kernel Launcher expression tree as the text of an occbench expression."""
    if isinstance(entry, bool):
        return "1" if entry else "0"
    if isinstance(entry, (int, float)):
        return repr(entry)
    if isinstance(entry, str):  # a literal as Kernel Launcher keeps it: a template argument's type ("float")
        return entry
    if not isinstance(entry, dict) or "operator" not in entry:
        _fail(path, field, f"expected a number or an expression ({{\"operator\": ..., \"operands\": [...]}}), got {entry!r}")
    op, args = entry["operator"], entry.get("operands", [])
    text = [expression(a, path, field) if op not in ("parameter", "problem_size", "device_attribute") else a for a in args]
    if op == "parameter":
        return str(args[0])
    if op == "problem_size":
        return "xyz"[int(args[0])]
    if op == "device_attribute":
        _fail(path, field, f"a device attribute ({args[0]}) is known only on the GPU that launches; not mapped")
    if op == "select":  # the operand the condition's value indexes
        choice = text[-1]
        for index in range(len(text) - 2, 0, -1):
            choice = f"(({text[0]}) == {index - 1} ? {text[index]} : {choice})"
        return choice
    if op == "/" and len(text) == 2:  # C's division of whole numbers
        return f"floor(({text[0]}) / ({text[1]}))"
    if op in _BINARY and len(text) == 2:
        return f"({text[0]} {op} {text[1]})"
    if len(text) == 1 and op in ("-", "+"):
        return f"({op}{text[0]})"
    if len(text) == 1 and op in ("!", "not"):
        return f"(({text[0]}) == 0)"
    if len(text) == 1 and op in ("round", "ceil", "floor"):
        return f"{'rint' if op == 'round' else op}({text[0]})"
    _fail(path, field, f"the operator {op!r} with {len(text)} operands is not mapped")


def _element_type(type_name, path, field):
    bare = re.sub(r"\bconst\b", "", type_name.replace("*", "")).strip()
    bare = re.sub(r"\s+", " ", bare)
    if bare not in _TYPES:
        _fail(path, field, f"the element type {type_name!r} has no config type (one of: {', '.join(sorted(_TYPES))})")
    return _TYPES[bare]


def _read_buffer(data_dir, name, element, path, field):
    file = os.path.join(data_dir, name)
    try:
        opener = gzip.open if name.endswith(".gz") else open
        with opener(file, "rb") as handle:
            raw = handle.read()
    except OSError as e:
        _fail(path, field, f"cannot read {file}: {e}")
    dtype = np.dtype(_DTYPES[element])
    if len(raw) % dtype.itemsize:
        _fail(path, field, f"{file} holds {len(raw)} bytes, not a whole number of {element}")
    return np.frombuffer(raw, dtype=dtype)


def _argument(i, entry, data_dir, out_dir, path, expected):
    field = f"arguments[{i}]"
    name = f"arg{i}"
    element = _element_type(entry.get("type", ""), path, field + ".type")
    if entry.get("kind") == "scalar":
        value = np.frombuffer(bytes(entry["data"]), dtype=np.dtype(_DTYPES[element]))[0]
        return {"name": name, "role": "scalar", "type": element, "value": repr(value.item())}
    if entry.get("kind") != "array":
        _fail(path, field + ".kind", f"expected \"array\" or \"scalar\", got {entry.get('kind')!r}")
    if element in ("int64", "uint64"):
        _fail(path, field + ".type", "a buffer of 64-bit integers (a config has them for scalars only)")
    before = _read_buffer(data_dir, entry["file"], element, path, field + ".file")
    np.save(os.path.join(out_dir, name + ".npy"), before)
    arg = {"name": name, "role": "input", "type": element, "count": int(before.size),
           "init": {"kind": "npy", "file": name + ".npy"}}
    if "reference_file" in entry:  # written by the kernel: its contents before, as its starting values
        after = _read_buffer(data_dir, entry["reference_file"], element, path, field + ".reference_file")
        np.save(os.path.join(out_dir, name + ".expected.npy"), after)
        arg["role"] = "output"
        expected[name] = name + ".expected.npy"
    return arg


def _axes(space, path):
    axes, defaults = {}, {}
    for p in space.get("parameters", []):
        values = p.get("values", [])
        if not all(isinstance(v, (int, bool)) for v in values):
            _fail(path, f"config_space.parameters.{p.get('name')}", f"values {values!r}: only whole numbers map to a config's axes")
        axes[p["name"]] = [int(v) for v in values]
        defaults[p["name"]] = int(p.get("default", values[0]))
    return axes, defaults


def _source(kernel, capture_dir, out_dir, path):
    if kernel.get("headers"):
        _fail(path, "kernel.headers", "preheaders are not mapped (include them from the kernel's source)")
    if kernel.get("source"):
        source = os.path.join(out_dir, "kernel.cu")
        with open(source, "w", encoding="utf8") as handle:
            handle.write(kernel["source"])
        return source
    file = kernel.get("file", "")
    for base in (capture_dir, os.getcwd()):
        if os.path.isfile(os.path.join(base, file)):
            return os.path.abspath(os.path.join(base, file))
    _fail(path, "kernel.file", f"the kernel's source {file!r} is neither beside the capture nor in the current folder")


def _kernel_name(kernel, path):
    targs = [("{" + a["operands"][0] + "}") if isinstance(a, dict) and a.get("operator") == "parameter"
             else expression(a, path, "kernel.template_args") for a in kernel.get("template_args", [])]
    return kernel["name"] + (f"<{', '.join(targs)}>" if targs else "")


def capture_to_config(capture, out_dir):
    """Writes ``out_dir/config.json`` and its .npy files from Kernel Launcher's capture file; returns the config's path."""
    with open(capture, encoding="utf8") as handle:
        try:
            doc = json.load(handle)
        except json.JSONDecodeError as e:
            raise CaptureError(f"{capture}: not JSON: {e}") from None
    os.makedirs(out_dir, exist_ok=True)
    kernel, capture_dir = doc.get("kernel", {}), os.path.dirname(os.path.abspath(capture))
    axes, defaults = _axes(doc.get("config_space", {}), capture)
    key = re.sub(r"[^A-Za-z0-9_.-]", "_", str(doc.get("key", "kernel")))
    size = (list(doc.get("problem_size", [])) + [1, 1, 1])[:3]
    expected, arguments = {}, []
    for i, entry in enumerate(doc.get("arguments", [])):
        arguments.append(_argument(i, entry, capture_dir, out_dir, capture, expected))
    if not expected:
        _fail(capture, "arguments", "no buffer has a reference_file (the kernel's outputs after the launch): nothing to verify against")
    dims = lambda field: [expression(e, capture, f"kernel.{field}[{i}]") for i, e in enumerate((kernel.get(field, []) + [1, 1, 1])[:3])]
    entry = {"kernel": _kernel_name(kernel, capture), "grid": dims("grid_size"), "block": dims("block_size"),
             "dynamic_smem_bytes": expression(kernel.get("shared_memory", 0), capture, "kernel.shared_memory"),
             "defines": {k: expression(v, capture, f"kernel.defines.{k}") for k, v in kernel.get("defines", {}).items()}}
    if kernel.get("compile_flags"):
        entry["options"] = [str(f) for f in kernel["compile_flags"]]
    config = {"name": "kernel_launcher", "family": "kernel_launcher",
              "description": f"Kernel Launcher's capture {os.path.basename(capture)} (tuning key {doc.get('key')!r}), problem size "
                             f"{size[0]}x{size[1]}x{size[2]}; its defaults: {defaults}",
              "source": _source(kernel, capture_dir, out_dir, capture),
              "sizes": {"x": [size[0]], "y": [size[1]], "z": [size[2]]},
              "axes": axes,
              "arguments": arguments,
              "kernels": {key: entry},
              "reference": {"npy": expected}}
    restrictions = [expression(r, capture, f"config_space.restrictions[{i}]") for i, r in enumerate(doc.get("config_space", {}).get("restrictions", []))]
    if restrictions:
        config["restrictions"] = restrictions
    path = os.path.join(out_dir, "config.json")
    with open(path, "w", encoding="utf8") as handle:
        json.dump(config, handle, indent=2)
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description="Write Kernel Launcher's capture as an occbench config (with .npy files)")
    parser.add_argument("capture", help="Kernel Launcher's capture file (KEY_SIZE.json), its buffers beside it")
    parser.add_argument("--out", required=True, help="folder for config.json and its .npy files")
    args = parser.parse_args(argv)
    try:
        print(capture_to_config(args.capture, args.out))
    except (CaptureError, OSError) as e:
        print(f"occbench.kernel_launcher_capture: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
