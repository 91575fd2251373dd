"""Kernel Tuner's kernel_source: the kernel's code, a file of any name, a list whose first item is
the kernel's and whose others are files it includes, or a function of the parameters that returns
the code (a code generator, Jinja's ``Template.render``), called once per configuration."""

import os
from pathlib import Path


def looks_like_a_file_name(text):
    """Kernel Tuner's rule for a string that names a file rather than holding code."""
    if len(text) > 250 or any(c in text for c in "();{}\\") or any(s in text for s in ("__global__ ", "__kernel ", "void ", "float ")):
        return False
    return any(s in text for s in (".c", ".opencl", ".F"))


def _read(path, what):
    try:
        return Path(path).read_text()
    except UnicodeDecodeError as e:
        raise ValueError(f"{what}: {path} is not UTF-8 text (byte {e.start}); expected CUDA source") from None
    except OSError as e:
        raise FileNotFoundError(f"{what}: cannot read {path}: {e.strerror}") from None


def _file(item, what):
    """The file an item names, or None where it holds code."""
    if isinstance(item, Path):
        if not item.is_file():
            raise FileNotFoundError(f"{what}: no file {item}")
        return item
    if not isinstance(item, str):
        raise TypeError(f"{what}: expected the kernel's code, a file name or a function returning code, got {type(item).__name__}")
    if "\n" not in item and len(item) < 4096 and os.path.isfile(item):
        return Path(item)
    if looks_like_a_file_name(item):
        raise FileNotFoundError(f"{what}: no file {item}")
    return None


class KernelSource:
    """The kernel's code (``text``) or its generator, where it lives and the folders of its other files."""

    def __init__(self, kernel_source):
        listed = isinstance(kernel_source, (list, tuple))
        items = list(kernel_source) if listed else [kernel_source]
        if not items:
            raise ValueError("kernel_source: an empty list; expected the kernel's code, file or code generator first")
        first, what = items[0], "kernel_source[0]" if listed else "kernel_source"
        self.generator = first if callable(first) else None
        self.text, self.folder, self.name = None, Path.cwd(), getattr(first, "__qualname__", "a code generator")
        if self.generator is None:
            path = _file(first, what)
            self.text = first if path is None else _read(path, what)
            if path is not None:
                self.folder, self.name = path.resolve().parent, str(path)
        self.include_dirs = []
        for i, item in enumerate(items[1:], 1):
            path = _file(item, f"kernel_source[{i}]")
            if path is None:
                raise ValueError(f"kernel_source[{i}]: expected a file the kernel includes, got code")
            folder = path.resolve().parent
            if folder not in self.include_dirs and folder != self.folder:
                self.include_dirs.append(folder)

    def code(self, params):
        """The code of one configuration: the generator's answer for it, or the one text."""
        if self.generator is None:
            return self.text
        code = self.generator(params)
        if not isinstance(code, str):
            raise TypeError(f"kernel_source: {self.name} returned a {type(code).__name__} at {params}; expected the code as a str")
        return code
