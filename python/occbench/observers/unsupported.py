"""Kernel Tuner's observers of hardware occbench cannot read: constructing one raises
NotImplementedError naming it, never a silent substitute."""


def _unsupported(name, why):
    class Unsupported:
        def __init__(self, *args, **kwargs):
            raise NotImplementedError(f"{name}: {why}")
    Unsupported.__name__ = Unsupported.__qualname__ = name
    return Unsupported


PowerSensorObserver = _unsupported("PowerSensorObserver", "occbench does not read a PowerSensor; NVMLObserver reads the "
                                   "GPU's own energy counter (docs/energy.md)")
PMTObserver = _unsupported("PMTObserver", "occbench does not read the Power Measurement Toolkit; NVMLObserver reads the GPU's "
                           "own energy counter (docs/energy.md)")
TegraObserver = _unsupported("TegraObserver", "occbench does not run on Tegra (Jetson) boards")
