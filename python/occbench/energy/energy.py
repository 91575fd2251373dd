"""Kernel Tuner's kernel_tuner.energy.energy: its power-frequency model of the GPU ("Going green",
PMBS 2022) is not ported. Each of its functions raises NotImplementedError naming itself and what
occbench measures instead: energy per configuration with the SM clock as a tunable parameter."""

_INSTEAD = ("occbench does not fit Kernel Tuner's power-frequency model; tune with nvml_gr_clock as a parameter and "
            "NVMLObserver (occbench.observers.nvml) to measure energy at each SM clock (docs/energy.md)")


def _not_ported(name):
    def function(*args, **kwargs):
        raise NotImplementedError(f"occbench.energy.energy.{name}: {_INSTEAD}")
    function.__name__ = function.__qualname__ = name
    return function


get_frequency_power_relation_fp32 = _not_ported("get_frequency_power_relation_fp32")
estimated_voltage = _not_ported("estimated_voltage")
estimated_power = _not_ported("estimated_power")
fit_power_frequency_model = _not_ported("fit_power_frequency_model")
create_power_frequency_model = _not_ported("create_power_frequency_model")
get_frequency_range_around_ridge = _not_ported("get_frequency_range_around_ridge")
