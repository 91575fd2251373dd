"""Kernel Tuner's arguments, answer and cmem_args as occbench's config arguments and arrays in
memory (harness/family/host_hooks.hpp): each array is handed to the engine as it is, not copied
to a file."""

import inspect
import numbers

import numpy as np

# NumPy's types that the engine's arguments take (harness/sweep/source_kernels.hpp).
TYPES = {"<f4": "float32", "<f8": "float64", "<i4": "int32", "<u4": "uint32", "|u1": "uint8", "<i8": "int64", "<u8": "uint64"}


def _type_name(dtype, what):
    descr = np.dtype(dtype).newbyteorder("<").str if np.dtype(dtype).byteorder not in "|" else np.dtype(dtype).str
    if descr not in TYPES:
        raise TypeError(f"{what}: NumPy type {np.dtype(dtype)} is not one occbench passes to a kernel; expected one of "
                        f"{', '.join(TYPES.values())}")
    return descr, TYPES[descr]


def _scalar_text(value):
    """An exact expression of a scalar's value (the engine stores it in the argument's type)."""
    if isinstance(value, (np.floating, float)):
        return repr(float(value))
    return str(int(value))


class Arguments:
    """The config's "arguments" and "reference" and the arrays they name, from Kernel Tuner's lists."""

    def __init__(self, arguments, answer=None, verify=None, cmem_args=None, atol=1e-6):
        if not isinstance(arguments, (list, tuple)):
            raise TypeError(f"arguments: expected a list of NumPy arrays and NumPy scalars, got {type(arguments).__name__}")
        if answer is not None and (not isinstance(answer, (list, tuple)) or len(answer) != len(arguments)):
            raise TypeError("answer: expected a list as long as arguments, with None for each argument not checked")
        self.config = []          # the config's "arguments"
        self.arrays = {}          # name -> (array, NumPy descr), handed over in memory
        self.expected = {}        # output name -> array name, the config's "reference": {"host": ...}
        self.shapes = []          # each argument's shape and type, for run_kernel and verify
        self.atol = atol
        self._outputs = []        # indices of the arguments the engine reads back for verify
        for i, arg in enumerate(arguments):
            self._add(i, arg, None if answer is None else answer[i], verify is not None)
        for name, value in (cmem_args or {}).items():
            self._add_global(name, value)

    def _keep(self, name, array):
        array = np.ascontiguousarray(array).reshape(-1)
        self.arrays[name] = (array, _type_name(array.dtype, name)[0])
        return array

    def _add(self, i, arg, expected, with_verify):
        what = f"arguments[{i}]"
        name = f"arg{i}"
        if isinstance(arg, np.ndarray):
            descr, type_name = _type_name(arg.dtype, what)
            if arg.size == 0:
                raise ValueError(f"{what}: an empty array")
            self.shapes.append((arg.shape, arg.dtype))
            self._keep(name, arg)
            entry = {"name": name, "type": type_name, "count": str(arg.size), "init": {"kind": "host", "array": name}}
            if expected is None:
                entry["role"] = "input"
            else:
                entry["role"] = "output"
                entry["tolerance"] = {"abs": float(self.atol), "rel": 1e-5}  # np.allclose's, as Kernel Tuner verifies
                self._outputs.append(i)
                if not with_verify:
                    self.expected[name] = self._expected(i, arg, expected)
            self.config.append(entry)
        elif isinstance(arg, np.generic) and isinstance(arg, (np.integer, np.floating)):
            _, type_name = _type_name(arg.dtype, what)
            self.shapes.append(((), arg.dtype))
            self.config.append({"name": name, "role": "scalar", "type": type_name, "value": _scalar_text(arg)})
        elif isinstance(arg, (numbers.Number, bool)):
            raise TypeError(f"{what}: a Python {type(arg).__name__} ({arg!r}); expected a NumPy scalar of the kernel "
                            "parameter's type, such as numpy.int32(n), as Kernel Tuner does")
        else:
            raise TypeError(f"{what}: expected a NumPy array or a NumPy scalar, got {type(arg).__name__}")

    def _expected(self, i, arg, expected):
        if isinstance(expected, np.generic) or isinstance(expected, numbers.Number):
            expected = np.asarray([expected])
        if not isinstance(expected, np.ndarray):
            raise TypeError(f"answer[{i}]: expected a NumPy array (or None), got {type(expected).__name__}")
        if expected.size != arg.size:
            raise TypeError(f"answer[{i}]: {expected.size} elements; the argument has {arg.size} (give a verify function "
                            "to compare outputs of another shape)")
        if not np.can_cast(arg.dtype, expected.dtype) and not np.can_cast(expected.dtype, arg.dtype, "same_kind"):
            raise TypeError(f"answer[{i}]: type {expected.dtype} does not match the argument's {arg.dtype}")
        name = f"answer{i}"
        self._keep(name, expected.astype(arg.dtype, copy=False))
        return name

    def _add_global(self, name, value):
        what = f"cmem_args['{name}']"
        if isinstance(value, np.ndarray):
            _, type_name = _type_name(value.dtype, what)
            array_name = "cmem_" + name
            self._keep(array_name, value)
            self.config.append({"name": name, "role": "input", "type": type_name, "count": str(value.size),
                                "global": True, "init": {"kind": "host", "array": array_name}})
        elif isinstance(value, np.generic):
            _, type_name = _type_name(value.dtype, what)
            self.config.append({"name": name, "role": "scalar", "type": type_name, "value": _scalar_text(value), "global": True})
        else:
            raise TypeError(f"{what}: expected a NumPy array or a NumPy scalar, got {type(value).__name__}")

    @property
    def output_indices(self):
        return list(self._outputs)

    def reference(self, verifier_name=None):
        ref = {"host": dict(self.expected)}
        if verifier_name:
            ref["verify"] = verifier_name
        return ref

    def verifier(self, verify, answer, arguments):
        """The engine calls this with the outputs (in order); Kernel Tuner's verify gets lists as long as arguments."""
        outputs = self.output_indices
        parameters = inspect.signature(verify).parameters.values()
        takes_atol = any(p.name == "atol" or p.kind == inspect.Parameter.VAR_KEYWORD for p in parameters)

        def judge(arrays):
            result = [None] * len(arguments)
            for i, array in zip(outputs, arrays):
                result[i] = array.reshape(self.shapes[i][0])
            passed = verify(answer, result, atol=self.atol) if takes_atol else verify(answer, result)
            return bool(passed), "" if passed else "the verify function returned False"

        return judge
