"""tune_kernel's observers sorted by what occbench does with each: NVMLObserver and "energy" ask
the engine for its energy reading, NCUObserver and "counters" for its counters, RegisterObserver
for each record's registers; a user's BenchmarkObserver subclass is told around each
configuration's samples (its results join the configuration's), an OutputObserver also sees the
verified launch's outputs. Observers of hardware occbench cannot read raise NotImplementedError."""

import json

import numpy as np

from .observers.observer import BenchmarkObserver, OutputObserver

_FLAGS = {"energy": "--energy", "NVMLObserver": "--energy", "counters": "--counters", "NCUObserver": "--counters"}
_UNSUPPORTED = {"PowerSensorObserver", "PMTObserver", "TegraObserver"}


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value if isinstance(value, (int, float, str, bool, list, dict)) or value is None else str(value)


class ObserverSet:
    def __init__(self, observers):
        if observers is None:
            observers = []
        elif isinstance(observers, (str, BenchmarkObserver)) or not hasattr(observers, "__iter__"):
            observers = [observers]  # one observer, not a list of them (a string is not its letters)
        self.flags, self.own, self.outputs, self.registers, self.ncu = set(), [], [], False, []
        for o in observers:
            kind = o if isinstance(o, str) else type(o).__name__
            if kind in _FLAGS:
                self.flags.add(_FLAGS[kind])
                if kind == "NCUObserver":
                    self.ncu.append(o)
            elif kind == "RegisterObserver":
                self.registers = True
            elif kind in _UNSUPPORTED:
                raise NotImplementedError(f"observers: occbench cannot read a {kind}")
            elif isinstance(o, BenchmarkObserver):
                self.own.append(o)
                if isinstance(o, OutputObserver):
                    self.outputs.append(o)
            else:
                raise ValueError(f"observers: occbench has no observer like {kind}; it has 'energy' (power, energy and the SM "
                                 "clock per point, as NVMLObserver), 'counters' (hardware counters, as NCUObserver), "
                                 "RegisterObserver, and a BenchmarkObserver subclass of your own")

    def record_values(self, record):
        """What the engine-read observers give a result beyond occbench's sections: NCUObserver's metrics."""
        counters = record.get("counters") or {}
        out = {}
        for o in self.ncu:
            out.update(o.values(counters))
        return out

    def engine_flags(self):
        return sorted(self.flags)

    def process_output(self, answer, outputs):
        for o in self.outputs:
            o.process_output(answer, outputs)

    def hooks(self, decode):
        """(before(params), between(), after() -> JSON) for the engine, or None without observers of one's own."""
        if not self.own:
            return None

        def before(engine_params):
            params = decode(engine_params)
            for o in self.own:
                o.register_configuration(params)
                o.before_start()
                o.after_start()

        def between():
            for o in self.own:
                o.during()

        def after():
            results = {}
            for o in self.own:
                o.after_finish()
                results.update(o.get_results() or {})
            return json.dumps({k: _plain(v) for k, v in results.items()})

        return before, between, after
