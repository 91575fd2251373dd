"""Kernel Tuner's NVMLObserver: asks tune_kernel for occbench's energy reading per configuration
(docs/energy.md), reported under Kernel Tuner's names: ``nvml_energy`` (J per launch),
``nvml_power`` (W, the window's average) and ``temperature`` (°C), beside occbench's whole
``energy`` section."""

KNOWN = ("nvml_energy", "nvml_power", "temperature", "core_freq", "mem_freq", "power_readings")


class NVMLObserver:
    def __init__(self, observables, device=0, save_all=False, nvidia_smi_fallback=None, use_locked_clocks=False,
                 continuous_duration=1):
        unknown = [o for o in observables if o not in KNOWN]
        if unknown:
            raise ValueError(f"NVMLObserver: unknown observable(s) {unknown}; Kernel Tuner's are {', '.join(KNOWN)}")
        self.observables = list(observables)
        self.device = device
