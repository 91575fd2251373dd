#!/usr/bin/env python3
"""Where a contained fault's wall time goes, on the GPU machine (issue 29, item 3).

    python3 bench/fault_latency/fault_latency.py PROBE OUT.jsonl [latency,disturbance]

PROBE is fault_probe built from fault_probe.cu beside this file (nvcc -arch=sm_90 -o PROBE).
For each faulting kernel and grid: the faulting process (launch to error, and its exit), then a
fresh process started right after it (what occbench's next process pays), then a process started
*before* the fault and released when the fault is reported (what a standby process would pay).
Then (disturbance) a timed kernel in one process while another starts a context and exits, or
faults: what a standby's start and a lost child's teardown do to the measuring process.
One JSON line per measurement; a table on stdout.
"""
import json
import subprocess
import sys
import time


def run_process(args):
    t0 = time.monotonic()
    p = subprocess.run(args, capture_output=True, text=True)
    wall = time.monotonic() - t0
    line = (p.stdout.strip().splitlines() or ['{}'])[-1]
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        record = {"unparsed": line, "stderr": p.stderr[-500:]}
    record.update(wall_s=round(wall, 6), exit=p.returncode)
    return record


def fault_then_fresh(probe, kind, blocks, how):
    fault = run_process([probe, kind, str(blocks), how])
    fresh = run_process([probe, "ok"])
    return {"experiment": "fault_then_fresh", "kind": kind, "blocks": blocks, "how": how,
            "fault": fault, "fresh": fresh}


def fault_with_standby(probe, kind, blocks):
    standby = subprocess.Popen([probe, "standby"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert standby.stdout.readline().strip() == "ready"
    t0 = time.monotonic()
    fault = subprocess.Popen([probe, kind, str(blocks), "poll"], stdout=subprocess.PIPE, text=True)
    reported = json.loads(fault.stdout.readline())
    t_report = time.monotonic() - t0
    standby.stdin.write("go\n")
    standby.stdin.flush()
    released = json.loads(standby.stdout.readline())
    t_standby_done = time.monotonic() - t0
    fault.wait()
    t_fault_exit = time.monotonic() - t0
    standby.wait()
    return {"experiment": "fault_with_standby", "kind": kind, "blocks": blocks, "fault": reported,
            "standby": released, "report_s": round(t_report, 6), "standby_done_s": round(t_standby_done, 6),
            "fault_exit_s": round(t_fault_exit, 6)}


def summary(values):
    if not values:
        return {"n": 0}
    values = sorted(values)
    return {"n": len(values), "median_us": values[len(values) // 2],
            "p99_us": values[min(len(values) - 1, int(len(values) * 0.99))], "max_us": values[-1]}


def disturbance(probe, other, label):
    """A timed 64 MiB copy, launch after launch, while another process runs `other` (a context
    start and exit, or a fault): the launches of each phase of the other process against the rest."""
    loop = subprocess.Popen([probe, "timeloop", "2.5"], stdout=subprocess.PIPE, text=True)
    assert loop.stdout.readline().strip() == "ready"
    time.sleep(0.8)
    t0 = time.monotonic()
    record = run_process([probe] + other)
    t1 = time.monotonic()
    rows = [tuple(map(float, line.split())) for line in loop.communicate()[0].splitlines()[1:] if line.strip()]
    init_end = t0 + record.get("init_s", 0)
    fault_end = init_end + record.get("fault_s", 0)
    phases = {"before": [us for t, us in rows if t < t0 - 0.02],
              "context_start": [us for t, us in rows if t0 <= t < init_end],
              "fault_pending": [us for t, us in rows if init_end <= t < fault_end],
              "exit": [us for t, us in rows if fault_end <= t <= t1],
              "after": [us for t, us in rows if t > t1 + 0.02]}
    return {"experiment": "disturbance", "label": label, "other": record,
            "phases": {name: summary(values) for name, values in phases.items()}}


def main():
    probe, out_path = sys.argv[1], sys.argv[2]
    parts = sys.argv[3].split(",") if len(sys.argv) > 3 else ["latency", "disturbance"]
    rows = [{"experiment": "ok", "ok": run_process([probe, "ok"])} for _ in range(3)]
    for repeat in range(2 if "latency" in parts else 0):
        for kind in ("oob_all", "oob_one", "trap_one"):
            for blocks in (4, 512, 4096):
                for how in ("poll", "sync"):
                    rows.append(fault_then_fresh(probe, kind, blocks, how))
            rows.append(fault_with_standby(probe, kind, 4096))
    for repeat in range(2 if "disturbance" in parts else 0):
        rows.append(disturbance(probe, ["ok"], "context start and exit"))
        for kind in ("oob_all", "oob_one", "trap_one"):
            rows.append(disturbance(probe, [kind, "4096", "poll"], f"{kind} fault"))
    with open(out_path, "w") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    for row in rows:
        if row["experiment"] == "ok":
            ok = row["ok"]
            print(f"ok: process {ok['wall_s']:.3f} s, context+alloc {ok.get('init_s', 0):.3f} s")
        elif row["experiment"] == "fault_then_fresh":
            f, n = row["fault"], row["fresh"]
            print(f"{row['kind']:9} {row['blocks']:5} {row['how']}: launch->error {f.get('fault_s', -1):.3f} s "
                  f"({f.get('error')}), faulting process {f['wall_s']:.3f} s; next process {n['wall_s']:.3f} s "
                  f"(context {n.get('init_s', -1):.3f}, first launch {n.get('first_launch_s', -1):.4f})")
        elif row["experiment"] == "disturbance":
            phases = "; ".join(f"{name} n={p['n']}" + (f" median {p['median_us']:.1f} p99 {p['p99_us']:.1f} max {p['max_us']:.1f}"
                                                       if p["n"] else "") for name, p in row["phases"].items())
            print(f"timed 64 MiB copy (µs) during {row['label']}: {phases}")
        else:
            print(f"{row['kind']:9} {row['blocks']:5} standby: error reported at {row['report_s']:.3f} s, "
                  f"standby's kernel done at {row['standby_done_s']:.3f} s "
                  f"(its launch {row['standby'].get('first_launch_after_go_s', -1):.4f} s), faulting process gone at "
                  f"{row['fault_exit_s']:.3f} s")


if __name__ == "__main__":
    main()
