"""Kernel Tuner's arguments, answer and cmem_args as occbench's config arguments and arrays in
memory (harness/family/host_hooks.hpp): each array is handed to the engine as it is, not copied
to a file.

The engine's element types are float32/64, int32/64, uint8/32/64. An array of another type Kernel
Tuner takes (float16, int8, int16, uint16, bool, complex64, complex128) travels as its bytes, and
its answer is checked here, in its own type, with Kernel Tuner's rule; a scalar of such a type as
its bits in the low bytes of a wider one (the kernel reads its own parameter's size). CuPy arrays
and PyTorch tensors are copied to the host first."""

import inspect
import numbers

import numpy as np

# NumPy's types that the engine's arguments take (harness/sweep/source_kernels.hpp).
TYPES = {"<f4": "float32", "<f8": "float64", "<i4": "int32", "<u4": "uint32", "|u1": "uint8", "<i8": "int64", "<u8": "uint64"}
# The other types Kernel Tuner passes, carried as bytes.
AS_BYTES = {"<f2", "|i1", "<i2", "<u2", "|b1", "<c8", "<c16"}


def _descr(dtype):
    dtype = np.dtype(dtype)
    return dtype.newbyteorder("<").str if dtype.byteorder not in "|" else dtype.str


def _type_name(dtype, what):
    descr = _descr(dtype)
    if descr not in TYPES:
        raise TypeError(f"{what}: NumPy type {np.dtype(dtype)} is not one occbench passes to a kernel; expected one of "
                        f"{', '.join(TYPES.values())}, float16, int8, int16, uint16, bool, complex64 or complex128")
    return descr, TYPES[descr]


def host_array(arg, what):
    """A NumPy array of an argument given as NumPy, CuPy or PyTorch (copied to the host), else None."""
    if isinstance(arg, np.ndarray):
        return arg
    module = type(arg).__module__.split(".")[0]
    if module == "cupy" and hasattr(arg, "get"):
        return arg.get()
    if module == "torch" and hasattr(arg, "detach"):
        return arg.detach().cpu().numpy()
    return None


def write_back(originals, results):
    """Each CuPy array or PyTorch tensor given as an argument gets the values the kernel left in it,
    in place (Kernel Tuner launches on the caller's own device arrays, so a script reads them after)."""
    for original, result in zip(originals, results):
        module = type(original).__module__.split(".")[0]
        if module == "cupy" and hasattr(original, "set"):
            original.set(np.ascontiguousarray(result).reshape(original.shape))
        elif module == "torch" and hasattr(original, "copy_"):
            import torch
            original.copy_(torch.from_numpy(np.ascontiguousarray(result).reshape(tuple(original.shape))))


def _scalar_text(value):
    """An exact expression of a scalar's value (the engine stores it in the argument's type)."""
    if isinstance(value, (np.floating, float)):
        return repr(float(value))
    return str(int(value))


def _scalar_entry(name, arg, what):
    """A config scalar: an engine type as it is; int8, int16, uint16, float16 and bool as their
    bits in a uint32 (a kernel parameter of that type reads its own low bytes)."""
    if isinstance(arg, np.floating) and not np.isfinite(arg):
        raise ValueError(f"{what}: the scalar is {arg}; occbench passes finite scalars")
    descr = _descr(arg.dtype)
    if descr in TYPES:
        return {"name": name, "role": "scalar", "type": TYPES[descr], "value": _scalar_text(arg)}
    if descr in AS_BYTES and arg.dtype.itemsize <= 2:
        bits = int(np.frombuffer(np.asarray(arg, dtype=arg.dtype.newbyteorder("<")).tobytes().ljust(4, b"\0"), "<u4")[0])
        return {"name": name, "role": "scalar", "type": "uint32", "value": str(bits)}
    raise TypeError(f"{what}: a NumPy {arg.dtype} scalar is not one occbench passes to a kernel; expected a float, an integer "
                    "or a bool type (a complex scalar is not supported)")


class Arguments:
    """The config's "arguments" and "reference" and the arrays they name, from Kernel Tuner's lists."""

    def __init__(self, arguments, answer=None, verify=None, cmem_args=None, atol=1e-6):
        if not isinstance(arguments, (list, tuple)):
            raise TypeError(f"arguments: expected a list of NumPy arrays and NumPy scalars, got {type(arguments).__name__}")
        if answer is not None and (not isinstance(answer, (list, tuple)) or len(answer) != len(arguments)):
            raise TypeError("answer: expected a list as long as arguments, with None for each argument not checked")
        if isinstance(atol, bool) or not isinstance(atol, numbers.Real) or not atol >= 0:
            raise TypeError(f"atol: expected a number of at least 0, got {atol!r}")
        self.config = []          # the config's "arguments"
        self.arrays = {}          # name -> (array, NumPy descr), handed over in memory
        self.expected = {}        # output name -> array name, the config's "reference": {"host": ...}
        self.shapes = []          # each argument's shape and type, for run_kernel and verify
        self.host = []            # each argument as the engine gets it (a NumPy array or scalar)
        self.atol = float(atol)
        self._outputs = []        # indices of the arguments the engine reads back for verify
        self._checked_here = {}   # output index -> its answer, checked here in its own type (bytes to the engine)
        for i, arg in enumerate(arguments):
            self._add(i, arg, None if answer is None else answer[i], verify is not None)
        for name, value in (cmem_args or {}).items():
            self._add_global(name, value)

    def _keep(self, name, array):
        array = np.ascontiguousarray(array).reshape(-1)
        descr = _descr(array.dtype)
        if descr in AS_BYTES:
            array = array.astype(array.dtype.newbyteorder("<"), copy=False).view(np.uint8)
            descr = "|u1"
        elif array.dtype.byteorder == ">":
            array = array.astype(array.dtype.newbyteorder("<"))
        self.arrays[name] = (array, descr)
        return array

    def _add(self, i, arg, expected, with_verify):
        what = f"arguments[{i}]"
        name = f"arg{i}"
        array = host_array(arg, what)
        if array is not None:
            if _descr(array.dtype) not in AS_BYTES:
                _type_name(array.dtype, what)
            if array.size == 0:
                raise ValueError(f"{what}: an empty array")
            self.shapes.append((array.shape, array.dtype))
            self.host.append(array)
            kept = self._keep(name, array)
            type_name = TYPES[self.arrays[name][1]]
            entry = {"name": name, "type": type_name, "count": str(kept.size), "init": {"kind": "host", "array": name}}
            if expected is None:
                entry["role"] = "input"
            else:
                entry["role"] = "output"
                entry["tolerance"] = {"abs": self.atol, "rel": 1e-5}  # np.allclose's, as Kernel Tuner verifies
                self._outputs.append(i)
                if _descr(array.dtype) in AS_BYTES and not with_verify:
                    self._checked_here[i] = self._expected_array(i, array, expected)
                elif not with_verify and _descr(array.dtype) not in AS_BYTES:
                    self.expected[name] = self._expected(i, array, expected)
            self.config.append(entry)
        elif isinstance(arg, np.generic) and isinstance(arg, (np.integer, np.floating, np.bool_, np.complexfloating)):
            self.shapes.append(((), arg.dtype))
            self.host.append(arg)
            self.config.append(_scalar_entry(name, arg, what))
        elif isinstance(arg, (numbers.Number, bool)):
            raise TypeError(f"{what}: a Python {type(arg).__name__} ({arg!r}); expected a NumPy scalar of the kernel "
                            "parameter's type, such as numpy.int32(n), as Kernel Tuner does")
        else:
            raise TypeError(f"{what}: expected a NumPy, CuPy or PyTorch array or a NumPy scalar, got {type(arg).__name__}")

    def _expected_array(self, i, arg, expected):
        expected = host_array(expected, f"answer[{i}]") if not isinstance(expected, (np.generic, numbers.Number)) else \
            np.asarray([expected])
        if expected is None:
            raise TypeError(f"answer[{i}]: expected a NumPy array (or None)")
        if expected.size != arg.size:
            raise TypeError(f"answer[{i}]: {expected.size} elements; the argument has {arg.size} (give a verify function "
                            "to compare outputs of another shape)")
        if not np.can_cast(arg.dtype, expected.dtype) and not np.can_cast(expected.dtype, arg.dtype, "same_kind"):
            raise TypeError(f"answer[{i}]: type {expected.dtype} does not match the argument's {arg.dtype}")
        return expected.reshape(-1)

    def _expected(self, i, arg, expected):
        name = f"answer{i}"
        self._keep(name, self._expected_array(i, arg, expected).astype(arg.dtype, copy=False))
        return name

    def _add_global(self, name, value):
        what = f"cmem_args['{name}']"
        array = host_array(value, what)
        if array is not None:
            if _descr(array.dtype) not in AS_BYTES:
                _type_name(array.dtype, what)
            array_name = "cmem_" + name
            kept = self._keep(array_name, array)
            self.config.append({"name": name, "role": "input", "type": TYPES[self.arrays[array_name][1]], "count": str(kept.size),
                                "global": True, "init": {"kind": "host", "array": array_name}})
        elif isinstance(value, np.generic):
            _, type_name = _type_name(value.dtype, what)
            self.config.append({"name": name, "role": "scalar", "type": type_name, "value": _scalar_text(value), "global": True})
        else:
            raise TypeError(f"{what}: expected a NumPy array or a NumPy scalar, got {type(value).__name__}")

    @property
    def output_indices(self):
        return list(self._outputs)

    @property
    def checked_here(self):
        """Whether outputs of types the engine lacks are checked against their answers here."""
        return bool(self._checked_here)

    def reference(self, verifier_name=None):
        ref = {"host": dict(self.expected)}
        if verifier_name:
            ref["verify"] = verifier_name
        return ref

    def _as_own_type(self, i, array):
        shape, dtype = self.shapes[i]
        if _descr(dtype) in AS_BYTES:
            array = array.view(np.dtype(dtype).newbyteorder("<"))
        return array.reshape(shape)

    def _check_here(self, results):
        """Kernel Tuner's rule for the outputs carried as bytes: np.allclose (exact for integers and bools)."""
        for i, want in self._checked_here.items():
            got = results[i].reshape(-1)
            if got.dtype.kind in "iub":
                ok = np.array_equal(got, want.astype(got.dtype, copy=False))
            else:
                ok = np.allclose(want, got, atol=self.atol)
            if not ok:
                return False, f"arguments[{i}] ({got.dtype}): differs from its answer beyond atol={self.atol}"
        return True, ""

    def verifier(self, verify, answer, arguments, observed=None):
        """The engine calls this with the outputs (in order): those of types the engine lacks are
        checked against their answers here; Kernel Tuner's verify gets lists as long as arguments;
        `observed(answer, outputs)` (output observers) sees them too, and with it alone the
        configuration passes (Kernel Tuner: the observers measure the error)."""
        if verify is None and observed is None and not self._checked_here:
            return None
        outputs = self.output_indices
        takes_atol = verify is not None and any(p.name == "atol" or p.kind == inspect.Parameter.VAR_KEYWORD
                                                for p in inspect.signature(verify).parameters.values())

        def judge(arrays):
            result = [None] * len(arguments)
            for i, array in zip(outputs, arrays):
                result[i] = self._as_own_type(i, array)
            if observed is not None:
                observed(answer, result)
            passed, detail = self._check_here(result)
            if passed and verify is not None:
                passed = bool(verify(answer, result, atol=self.atol) if takes_atol else verify(answer, result))
                detail = "" if passed else "the verify function returned False"
            return passed, detail

        return judge
