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


def _supported_clocks(device, kind):
    try:
        import pynvml
    except ImportError:
        raise NotImplementedError("get_nvml_gr_clocks: needs nvidia-ml-py (pynvml) to ask NVML for the clocks; or give the "
                                  "SM clocks yourself (occbench doctor lists them)") from None
    pynvml.nvmlInit()
    try:
        handle = pynvml.nvmlDeviceGetHandleByIndex(device)
        memory = max(pynvml.nvmlDeviceGetSupportedMemoryClocks(handle))
        return memory if kind == "mem" else sorted(pynvml.nvmlDeviceGetSupportedGraphicsClocks(handle, memory), reverse=True)
    finally:
        pynvml.nvmlShutdown()


def get_nvml_gr_clocks(device=0, n=None, quiet=False):
    """Kernel Tuner's: {"nvml_gr_clock": the SM clocks NVML can lock, highest first (n of them, evenly spread)}.
    As a tunable parameter, nvml_gr_clock locks the SM clock per configuration (occbench's sm_clock_mhz axis)."""
    clocks = _supported_clocks(device, "gr")
    if n and n < len(clocks):
        clocks = [clocks[int(i * (len(clocks) - 1) / max(n - 1, 1))] for i in range(n)]
    return {"nvml_gr_clock": clocks}


def get_nvml_mem_clocks(device=0, n=None, quiet=False):
    raise NotImplementedError("get_nvml_mem_clocks: occbench does not lock the memory clock (only the SM clock: nvml_gr_clock)")


def get_nvml_pwr_limits(device=0, n=None, quiet=False):
    raise NotImplementedError("get_nvml_pwr_limits: occbench never changes the GPU's power limit")


def get_idle_power(device=0, duration=0.5):
    raise NotImplementedError("get_idle_power: occbench measures the idle power itself (each energy section's idle_w)")
