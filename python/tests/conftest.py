"""The package under test: the build's (PYTHONPATH=BUILD_DIR/python, as test.sh sets it) or an installed one."""
import shutil
import subprocess

import pytest


def gpu_reason():
    """Why the GPU tests skip, or "" where a GPU can be used."""
    if shutil.which("nvidia-smi") is None:
        return "no GPU: nvidia-smi not found"
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        return f"no GPU: nvidia-smi failed ({e})"
    if out.returncode != 0 or "GPU" not in out.stdout:
        return "no GPU: nvidia-smi lists none"
    return ""


requires_gpu = pytest.mark.skipif(bool(gpu_reason()), reason=gpu_reason() or "a GPU is present")
