"""scripts/studies/energy_agreement.py on runs made here: the run-to-run spread of joules per launch, the
counter against the power samples, and the cost from walls.tsv."""
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "studies" / "energy_agreement.py"


def write_run(folder, sweep, joules, average_w=400.0, samples_w=410.0, again=False, at_limit=()):
    folder.mkdir(parents=True, exist_ok=True)
    results = [{"point_id": f"{sweep}/v/p={i}", "energy": {"status": "ok", "joules_per_launch": j, "average_w": average_w,
                                                             "power_samples_mean_w": samples_w, "at_power_limit": i in at_limit}}
               for i, j in enumerate(joules)]
    for r in results:
        if again:
            r["energy"]["other_window"] = {"average_w": average_w * 1.05, "power_samples_mean_w": samples_w}
    (folder / f"{sweep}-GPU-1.json").write_text(json.dumps({"results": results}))


def test_tables_say_how_many_points_agree_and_what_energy_costs(tmp_path):
    for sweep in ("adjacent_difference", "covariance_chunk_sweep"):
        write_run(tmp_path / "p0", sweep, [0.96, 2.0, 3.0], again=True)  # -4%: the first run, on a cooler GPU
        write_run(tmp_path / "p1", sweep, [1.0, 2.0, 3.0], at_limit=(2,))  # read again over a cycle at the limit
        write_run(tmp_path / "p2", sweep, [1.01, 2.1, 3.0])  # +1%, +5%, 0%
        write_run(tmp_path / "window0.3", sweep, [1.0, 2.0, 3.0])
        write_run(tmp_path / "window1.0", sweep, [1.0, 2.0, 3.03], samples_w=440.0)  # power samples 10% off
    (tmp_path / "logs").mkdir()
    walls = {"adjacent_difference-plain": 1000, "adjacent_difference-energy-p1": 1500, "covariance_chunk_sweep-plain": 2000,
             "covariance_chunk_sweep-energy-p1": 3000, "covariance_seed_size-plain": 4000, "covariance_seed_size-energy": 5000,
             "matmul-plain": 100, "matmul-energy": 300}
    (tmp_path / "logs" / "walls.tsv").write_text("".join(f"{k}\t{v}\n" for k, v in walls.items()))
    done = subprocess.run([sys.executable, SCRIPT, tmp_path], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "| adjacent_difference: two processes, 0.2 s window | 3 | 1.00% | 5.00% (`adjacent_difference/v/p=1`) | 2 of 3 |" in out
    assert "| adjacent_difference: 0.3 s against 1 s window | 3 | 0.00% | 1.00% (`adjacent_difference/v/p=2`) | 3 of 3 |" in out
    assert "| adjacent_difference window1.0 | 3 | 10.00% | 10.00% | 0 of 3 | 0 | 0 |" in out
    assert "| adjacent_difference p0 | 3 | 2.50% | 2.50% | 3 of 3 | 3 | 0 |" in out  # every window measured twice
    assert "| adjacent_difference p1 | 3 | 2.50% | 2.50% | 3 of 3 | 0 | 1 |" in out
    assert ("| adjacent_difference: the first run on the GPU as found against the next, 0.2 s | 3 | 0.00% | 4.17% "
            "(`adjacent_difference/v/p=0`) | 2 of 3 |") in out
    assert "0.1 s against 1 s" not in out  # no such run: no row
    assert "| matmul (energy) | 0.1 s | 0.3 s | 3.00x |" in out
