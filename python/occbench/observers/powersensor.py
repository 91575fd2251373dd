"""Kernel Tuner's kernel_tuner.observers.powersensor: a PowerSensor, which occbench does not read."""
from .unsupported import PowerSensorObserver

__all__ = ["PowerSensorObserver"]
