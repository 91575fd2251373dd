"""Kernel Tuner's kernel_tuner.observers.tegra: Jetson boards, on which occbench does not run."""
from .unsupported import TegraObserver

__all__ = ["TegraObserver"]
