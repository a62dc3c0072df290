"""bench/device_table.py's report: Nsight Compute's CSV read per case through the marker
kernels, passes split over device calls merged into one table, the figures written beside it
(the table in docs/benchmarks.md is only as right as this)."""

from __future__ import annotations

import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
device_table = pytest.importorskip("device_table")

HEADER = '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'


def ncu_csv(kernels):
    """ncu --csv's details page: one row per kernel, (name, grid, nanoseconds)."""
    rows = ["==PROF== Connected to process 1 (python3)", HEADER]
    for i, (name, grid, ns) in enumerate(kernels):
        rows.append(
            f'"{i}","1","python3","host","{name}","1","7","(128, 1, 1)","({grid}, 1, 1)","0","9.0",'
            f'"Command line profiler metrics","gpu__time_duration.sum","ns","{ns:,}"'
        )
    return "\n".join(rows) + "\n"


def test_report_merges_passes_and_reads_ncu(tmp_path):
    n = 1 << 22
    # Pass 1: beta float64, bridge then cupyx (cupyx's case ran two kernels: summed).
    plan1 = [dict(function="beta", dtype="float64", n=n, path="bridge"), dict(function="beta", dtype="float64", n=n, path="cupyx")]
    csv1 = ncu_csv([("bench_marker", 1, 2000), ("bg_jax_xsf_beta__dd_d", 32768, 1_226_624), ("bench_marker", 2, 2000), ("cupyx_a", 32768, 400_000), ("cupyx_b", 32768, 131_840)])
    # Pass 2, another device call: erf float32.
    plan2 = [dict(function="erf", dtype="float32", n=n, path="bridge"), dict(function="erf", dtype="float32", n=n, path="cupyx")]
    csv2 = ncu_csv([("bench_marker", 1, 2000), ("bg_jax_xsf_erf__f_f", 1000, 13_500), ("bench_marker", 2, 2000), ("cupyx_erf", 32768, 22_500)])
    times = {"environment": {"date": "d", "gpu": "g"}, "rows": [{"function": "erf", "dtype": "float32", "n": n, "bridge": 46.5e-6, "cupyx": 24.8e-6}]}
    files = {}
    for name, text in [("p1.json", json.dumps(plan1)), ("k1.csv", csv1), ("p2.json", json.dumps(plan2)), ("k2.csv", csv2), ("t.json", json.dumps(times))]:
        files[name] = tmp_path / name
        files[name].write_text(text)
    table = tmp_path / "table.md"
    assert device_table.report(
        str(files["t.json"]), f"{files['p1.json']},{files['p2.json']}", f"{files['k1.csv']},{files['k2.csv']}", str(table)
    ) == 0
    lines = table.read_text().splitlines()
    erf = next(ln for ln in lines if ln.startswith("| erf | float32"))
    beta = next(ln for ln in lines if ln.startswith("| beta | float64"))
    # erf: kernels 13.5 / 22.5 us = 0.60x; back to back 46.5 / 24.8 = 1.88x.
    assert "| 13.5 | 22.5 | 0.60× | 46.5 | 24.8 | 1.88× |" in erf
    # beta: a kernels-only row; cupyx's two kernels summed (531.84 us): 2.31x.
    assert "| 1,226.6 | 531.8 | 2.31× | — | — | — |" in beta
    assert any("kernels alone (Nsight Compute): 1 of 2 cases within 1.05×" in ln for ln in lines)
    raw = json.loads(table.with_suffix(".json").read_text())
    cupyx_beta = next(k for k in raw["kernels_alone"] if k["function"] == "beta" and k["path"] == "cupyx")
    assert cupyx_beta["kernels"] == ["cupyx_a", "cupyx_b"] and cupyx_beta["seconds"] == pytest.approx(531_840e-9)
    assert len(raw["rows"]) == 2
