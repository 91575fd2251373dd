"""The kernel's parameters read from its source, so that an argument of the wrong type or a wrong
number of arguments is refused before anything runs, naming the argument (Kernel Tuner only warns,
and then the kernel reads the bytes as its own type)."""

import re

import numpy as np

# A parameter's base C/CUDA type -> the NumPy type of its argument.
_C_TYPES = {
    "float": "float32", "double": "float64", "half": "float16", "__half": "float16", "bool": "bool",
    "char": "int8", "signed char": "int8", "unsigned char": "uint8", "int8_t": "int8", "uint8_t": "uint8",
    "short": "int16", "short int": "int16", "unsigned short": "uint16", "unsigned short int": "uint16",
    "int16_t": "int16", "uint16_t": "uint16", "int": "int32", "signed": "int32", "signed int": "int32", "int32_t": "int32",
    "unsigned": "uint32", "unsigned int": "uint32", "uint32_t": "uint32", "long long": "int64", "long long int": "int64",
    "long": "int64", "long int": "int64", "int64_t": "int64", "unsigned long": "uint64", "unsigned long long": "uint64",
    "unsigned long int": "uint64", "unsigned long long int": "uint64", "uint64_t": "uint64", "size_t": "uint64",
    "float2": "complex64", "cuFloatComplex": "complex64", "cuComplex": "complex64", "double2": "complex128",
    "cuDoubleComplex": "complex128",
}
_QUALIFIERS = re.compile(r"\b(const|volatile|__restrict__|__restrict|restrict|__grid_constant__|struct)\b")


def _split_params(text):
    params, depth, current = [], 0, ""
    for c in text:
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        if c == "," and depth == 0:
            params.append(current)
            current = ""
        else:
            current += c
    if current.strip():
        params.append(current)
    return [p.strip() for p in params if p.strip() not in ("", "void")]


def kernel_parameters(source, kernel_name):
    """[(declaration, NumPy type or None where unknown, pointer?)] of the one __global__ function
    named kernel_name (its name before any template arguments), or None where there is not exactly one."""
    base = kernel_name.split("<", 1)[0].strip()
    source = re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.S)
    pattern = re.compile(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?"
                         + re.escape(base) + r"\s*\(([^)]*)\)", re.S)
    found = pattern.findall(source)
    if len(found) != 1:
        return None
    out = []
    for declaration in _split_params(found[0]):
        declaration = declaration.split("=")[0].strip()
        pointer = "*" in declaration or "[" in declaration
        words = _QUALIFIERS.sub(" ", declaration.replace("*", " ").replace("&", " ")).split()
        type_words = " ".join(words[:-1]) if len(words) > 1 else " ".join(words)
        out.append((declaration, _C_TYPES.get(type_words), pointer))
    return out


def check_arguments(source, kernel_name, host_arguments):
    """Raises TypeError naming the first argument whose number, kind (array or scalar) or type does
    not match the kernel's parameter; says nothing where the kernel's parameters cannot be read
    (a template's T, a macro, a kernel not found once)."""
    params = kernel_parameters(source, kernel_name) if isinstance(source, str) else None
    if params is None:
        return
    if len(params) != len(host_arguments):
        raise TypeError(f"arguments: {len(host_arguments)} given; the kernel {kernel_name.split('<')[0]} takes {len(params)} "
                        f"({', '.join(d for d, _, _ in params)})")
    for i, ((declaration, expected, pointer), arg) in enumerate(zip(params, host_arguments)):
        is_array = isinstance(arg, np.ndarray)
        if pointer != is_array:
            raise TypeError(f"arguments[{i}]: a {'array' if is_array else 'scalar'} for the kernel's parameter '{declaration}', "
                            f"which takes {'a pointer: an array' if pointer else 'a value: a NumPy scalar'}")
        if expected is not None and np.dtype(arg.dtype) != np.dtype(expected):
            raise TypeError(f"arguments[{i}]: {np.dtype(arg.dtype)} for the kernel's parameter '{declaration}'; expected "
                            f"{expected} (the kernel would read the bytes as its own type)")
