"""Kernel Tuner's NCUObserver: asks tune_kernel for occbench's hardware counters per configuration
(CUPTI's range profiler, docs/counters.md), each requested Nsight Compute metric in the result
under its own name. A metric occbench does not read raises NotImplementedError naming it, with
those it reads."""
from .observer import BenchmarkObserver

# Nsight Compute's metric -> the fields of occbench's counters section that make it (summed).
NCU_METRICS = {
    "dram__bytes.sum": ("dram_read_bytes", "dram_write_bytes"),
    "dram__bytes_read.sum": ("dram_read_bytes",),
    "dram__bytes_write.sum": ("dram_write_bytes",),
    "lts__t_bytes.sum": ("l2_bytes",),
    "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum": ("l1_global_load_bytes",),
    "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum": ("l1_global_store_bytes",),
    "smsp__inst_executed_op_shared_ld.sum": ("shared_load_instructions",),
    "smsp__inst_executed_op_shared_st.sum": ("shared_store_instructions",),
    "gpu__time_duration.sum": ("duration_ns",),
    "sm__cycles_elapsed.avg": ("sm_cycles",),
}


class NCUObserver(BenchmarkObserver):
    def __init__(self, metrics=None, device=0):
        self.metrics = list(metrics or [])
        unknown = [m for m in self.metrics if m not in NCU_METRICS]
        if unknown:
            raise NotImplementedError(f"NCUObserver: occbench's counters do not include {', '.join(unknown)}; it reads "
                                      f"{', '.join(NCU_METRICS)} (docs/counters.md)")
        self.device = device

    def get_results(self):
        return {}

    def values(self, counters):
        """The requested metrics from a record's counters section (None where it has no reading)."""
        out = {}
        for metric in self.metrics:
            parts = [counters.get(field) for field in NCU_METRICS[metric]]
            out[metric] = sum(parts) if all(isinstance(p, (int, float)) for p in parts) else None
        return out
