"""Issue 17's device table: every device function of specs/xsf.toml that cupyx.scipy.special
also has, float32 and float64, at 2^22 and 2^24 elements, against eager cupyx and (where it
has the function) jax.scipy.special; then betainc, betaincinv, stdtrit, the device kv and jv
and the Poisson-binomial gufunc against jax.scipy.special and `pure_callback` + SciPy.

Two measurements, each from its own pass over the same cases, on the GPU machine (after
`python bench/device_table.py warm`, which compiles cupyx's kernels in parallel first):

- back to back (`timing.pipelined_time`: calls issued without waiting, then one wait; the
  cost a loop over large arrays pays per call):
      python bench/device_table.py times OUT.json
- kernels alone, under Nsight Compute, which serializes and times every kernel between
  `cudaProfilerStart/Stop`; a marker kernel whose grid size is the case's number opens each
  case, so the report sums the kernels after it (bridge: `bg_*`; cupyx: whatever it ran):
      ncu --profile-from-start off --clock-control none --metrics gpu__time_duration.sum --csv \\
          python bench/device_table.py kernels PLAN.json > KERNELS.csv
- the report (markdown table, summary against the 1.05x target, plot of bridge / cupyx;
  the figures behind it in TABLE.json); each of OUT, PLAN and KERNELS may be a
  comma-separated list, for passes split over device calls on one machine and wheel:
      python bench/device_table.py report OUT.json PLAN.json KERNELS.csv TABLE.md [PLOT.png]

`ONLY=gammainc,kv` restricts the cases; `SIZES=22` the sizes (log2); `DEADLINE_S=400` ends a
pass after that many seconds; `SKIP_DONE=a.json,b.json` skips the cases of earlier passes'
plans or times files (a pass split over calls). scripts/gpu_run.sh's
steps `table-times` and `table-kernels` run them. Ratios mean something only within one run
(docs/benchmarks.md).
"""

from __future__ import annotations

import csv
import faulthandler
import io
import json
import os
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import spec_toml  # noqa: E402

SPEC = spec_toml.load(ROOT / "specs" / "xsf.toml")
UFUNCS = {u["name"]: u for u in SPEC["ufunc"]}
SIZES = [1 << int(s) for s in os.environ.get("SIZES", "22,24").split(",")]
DTYPES = ("float32", "float64")
# Beyond the functions cupyx has: the list (kv and jv on the device, no cupyx peer).
EXTRAS = ("betainc", "betaincinv", "stdtrit", "kv", "jv")
# The gufunc: rows of probabilities, core dimension last (2^18 elements: pure_callback loops
# over rows in Python).
GUFUNC = "poisson_binom_pmf_all"
GUFUNC_SHAPE = (4096, 64)
TARGET = 1.05  # bridge / cupyx, issue 17
PROBE, PROJECTED_LIMIT_S = 4096, 1.0  # see setup()
SKIPPED: dict[tuple, str] = {}  # (function, dtype, n, path) -> why it was not timed
STOPPED: list[tuple] = []  # the case a pass stopped before at DEADLINE_S, if it did


def on_device(u) -> bool:
    return "cuda" in u.get("platforms", SPEC["defaults"]["platforms"]) and "signature" not in u


def cases() -> list[str]:
    """Device functions that cupyx has, then the extras; ONLY= restricts them."""
    names = [u["name"] for u in SPEC["ufunc"] if on_device(u) and u.get("cupy", "").startswith("cupyx.scipy.special.")]
    names += [n for n in EXTRAS if n not in names and on_device(UFUNCS[n])]
    only = [f for f in os.environ.get("ONLY", "").split(",") if f]
    return [n for n in names if not only or n in only]


def loop_for(u, dtype: str) -> str | None:
    """The input codes of the function's loop for `dtype` (integers where the loop has them),
    e.g. 'did' for bdtr in float64; None if it has no such real loop."""
    want = "f" if dtype == "float32" else "d"
    for loop in u["loops"]:
        ins = loop.split(" as ")[0].split("->")[0]
        if all(c in (want, "i", "l") for c in ins) and want in ins:
            return ins
    return None


def arguments(u, codes: str, n: int, rng) -> list[np.ndarray]:
    """Uniform draws over the spec's test ranges (integers rounded), in the loop's types."""
    test = u.get("test", {})
    ranges, integers = test.get("ranges", {}), set(test.get("integers", []))
    out = []
    for arg, code in zip(u["inputs"], codes):
        lo, hi = ranges.get(arg, (-10.0, 10.0))
        x = rng.uniform(lo, hi, n)
        if arg in integers or code in "il":
            x = np.round(x)
        out.append(x.astype({"f": np.float32, "d": np.float64, "i": np.int32, "l": np.int64}[code]))
    return out


def peers(name: str):
    """(cupyx function or None, jax.scipy function or None)."""
    import cupyx.scipy.special as cps
    import jax.scipy.special as jsp

    cup = UFUNCS[name].get("cupy", "")
    c = getattr(cps, cup.rsplit(".", 1)[1], None) if cup.startswith("cupyx.scipy.special.") else None
    return c, getattr(jsp, name, None)


def setup(name, dtype, n, rng, with_jax_scipy=True):
    """Callables for one case: bridge, and cupyx and (unless told not to) jax.scipy where they
    have the function."""
    import cupy
    import jax
    import jax_xsf

    u = UFUNCS[name]
    codes = loop_for(u, dtype)
    if codes is None:
        return None
    host = arguments(u, codes, n, rng)
    dev = jax.devices("cuda")[0]
    xs = [jax.device_put(a, dev) for a in host]
    f = jax.jit(getattr(jax_xsf, name))
    c, j = peers(name)
    calls = {"bridge": lambda: f(*xs)}
    if c is not None:
        # cupyx takes floats where our integer loops take integers.
        cs = [cupy.asarray(a.astype(dtype) if a.dtype.kind == "i" else a) for a in host]
        calls["cupyx"] = lambda: c(*cs)
    if with_jax_scipy and j is not None and all(a.dtype.kind == "f" for a in host):
        g = jax.jit(j)
        # jax.scipy's exp1 and expi run a while loop until every element has converged: at
        # 2^22 on the H100 one call did not return in 5 minutes (2026-12-05), after a 4096-
        # element probe with its compile had taken under 5 s (22:33 UTC). So the probe is
        # timed once compiled and scaled to n elements; a path projected that slow is
        # reported, not timed. The probe grows 8x at a time while its own time is short: a
        # while loop's iterations cost about the same at 4096 elements as at 2^22, so one
        # small probe projected betainc at 5 s a call where it takes 70 ms (2026-12-06).
        m = PROBE
        while True:
            small = [x[:m] for x in xs]
            jax.block_until_ready(g(*small))
            t0 = time.perf_counter()
            jax.block_until_ready(g(*small))
            took = time.perf_counter() - t0
            projected = took * n / m
            if projected < PROJECTED_LIMIT_S or took > PROJECTED_LIMIT_S / 8 or 8 * m > n:
                break
            m *= 8
        if projected < PROJECTED_LIMIT_S:
            calls["jax.scipy"] = lambda: g(*xs)
        else:
            SKIPPED[(name, dtype, n, "jax.scipy")] = f"not timed: about {projected:.0f} s a call projected from {m} elements"
    return calls


def done_before() -> set[tuple]:
    """(function, dtype, n) of the cases in the files SKIP_DONE names (plans or times files of
    earlier calls on this machine and wheel), which a pass skips."""
    done = set()
    for path in filter(None, os.environ.get("SKIP_DONE", "").split(",")):
        if os.path.exists(path):
            data = json.load(open(path))
            for r in data["rows"] if isinstance(data, dict) else data:
                if not r.get("extra"):
                    done.add((r["function"], r["dtype"], r["n"]))
    return done


def each_case(rng, with_jax_scipy=True):
    """(function, dtype, n, calls) for every case that has a loop for its dtype, until
    DEADLINE_S seconds have passed (so a pass under Nsight Compute ends, and prints, within a
    device call's limit), skipping SKIP_DONE's cases."""
    start, deadline = time.perf_counter(), float(os.environ.get("DEADLINE_S", "inf"))
    done = done_before()
    for name in cases():
        for dtype in DTYPES:
            for n in SIZES:
                if (name, dtype, n) in done:
                    continue
                if time.perf_counter() - start > deadline:
                    print(f"DEADLINE_S={deadline:.0f} passed: stopping before {name} {dtype} {n}", file=sys.stderr, flush=True)
                    STOPPED.append((name, dtype, n))
                    return
                calls = setup(name, dtype, n, rng, with_jax_scipy)
                if calls is not None:
                    yield name, dtype, n, calls


def sync_for(path):
    import timing

    return timing.cupy_sync if path == "cupyx" else timing.jax_sync


def times(out_path: str) -> int:
    """Back-to-back time per call of every case and path."""
    import cupy
    import jax

    jax.config.update("jax_enable_x64", True)
    import timing

    rng = np.random.default_rng(0)
    gpu = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    env = timing.environment(gpu=gpu, cupy=cupy.__version__)
    rows = []
    start = time.perf_counter()
    faulthandler.dump_traceback_later(60, repeat=True)  # where a hung case waits (see _warm_one)
    print(f"{env['date']}: timing {len(cases())} functions", flush=True)
    for name, dtype, n, calls in each_case(rng):
        # The elapsed time says how many cases a 10-minute device call holds (about 120 at
        # 2^22 on 2026-12-05, the cupyx warm-up included).
        row = {"function": name, "dtype": dtype, "n": n, "elapsed_s": round(time.perf_counter() - start, 1)}
        for (*case, path), why in SKIPPED.items():
            if tuple(case) == (name, dtype, n):
                row[path + " error"] = why
        for path, fn in calls.items():
            try:
                row[path] = timing.pipelined_time(fn, sync_for(path), k=5, budget=0.1, min_reps=3)
            except Exception as e:  # a peer that rejects the case: say so, go on
                row[path + " error"] = f"{type(e).__name__}: {str(e)[:200]}"
        rows.append(row)
        print(json.dumps(row), flush=True)
        # Rewritten after every case, so a call cut off at its time limit still leaves a table.
        save(out_path, env, rows)
    # The extras once the cases are done: by the pass that timed the last of them.
    if rows and not STOPPED:
        save(out_path, env, rows + extras())
    return 0


def save(path, env, rows):
    with open(path, "w") as f:
        json.dump({"environment": env, "rows": rows}, f, indent=1)


def extras() -> list[dict]:
    """The extras and the gufunc against pure_callback + SciPy (2^22 float64 elementwise; the
    gufunc at GUFUNC_SHAPE): one call each after a warm-up, the host round trip included."""
    import jax
    import jax.numpy as jnp
    import jax_xsf
    import scipy.special
    import scipy.stats
    import timing

    rng = np.random.default_rng(1)
    rows = []
    n = 1 << 22
    for name in [e for e in EXTRAS if e in cases()]:
        u = UFUNCS[name]
        codes = loop_for(u, "float64")
        xs = [jax.device_put(a, jax.devices("cuda")[0]) for a in arguments(u, codes, n, rng)]
        ref = getattr(scipy.special, name)
        cb = jax.jit(lambda *a, ref=ref: jax.pure_callback(lambda *h: ref(*h).astype(np.float64), jax.ShapeDtypeStruct(a[0].shape, jnp.float64), *a))
        f = jax.jit(getattr(jax_xsf, name))
        row = {"function": name, "dtype": "float64", "n": n, "extra": True}
        row["bridge"] = timing.median_time(lambda: f(*xs), timing.jax_sync, budget=0.2, min_reps=3)
        row["pure_callback"] = one_call(lambda: cb(*xs))
        rows.append(row)
        print(json.dumps(row), flush=True)
    p = jax.device_put(rng.uniform(0, 1, GUFUNC_SHAPE), jax.devices("cuda")[0])
    g = jax.jit(getattr(jax_xsf, GUFUNC))
    out_shape = jax.ShapeDtypeStruct((GUFUNC_SHAPE[0], GUFUNC_SHAPE[1] + 1), jnp.float64)
    k = np.arange(GUFUNC_SHAPE[1] + 1)
    ref = lambda h: np.stack([scipy.stats.poisson_binom.pmf(k, row) for row in np.asarray(h)])  # noqa: E731
    cb = jax.jit(lambda a: jax.pure_callback(ref, out_shape, a))
    row = {"function": GUFUNC, "dtype": "float64", "n": int(np.prod(GUFUNC_SHAPE)), "shape": list(GUFUNC_SHAPE), "extra": True}
    row["bridge"] = timing.median_time(lambda: g(p), timing.jax_sync, budget=0.2, min_reps=3)
    row["pure_callback"] = one_call(lambda: cb(p))
    rows.append(row)
    print(json.dumps(row), flush=True)
    return rows


def one_call(fn) -> float:
    import timing

    timing.jax_sync(fn())
    t0 = time.perf_counter()
    timing.jax_sync(fn())
    return time.perf_counter() - t0


def kernels(plan_path: str) -> int:
    """Each case's calls once between profiler start/stop, after a marker kernel whose grid
    is the case's number (1-based); warm-up calls run outside the profiled ranges."""
    import cupy
    import jax

    jax.config.update("jax_enable_x64", True)
    marker = cupy.RawKernel('extern "C" __global__ void bench_marker() {}', "bench_marker")
    rng = np.random.default_rng(0)
    plan = []
    # jax.scipy is compared back to back only: not set up (nor probed) here.
    for name, dtype, n, calls in each_case(rng, with_jax_scipy=False):
        for path, fn in calls.items():
            sync = sync_for(path)
            try:
                sync(fn())  # compile and first touch, unprofiled
                sync(fn())
            except Exception:  # the times pass records the error
                continue
            plan.append({"function": name, "dtype": dtype, "n": n, "path": path})
            cupy.cuda.runtime.deviceSynchronize()
            cupy.cuda.profiler.start()
            marker((len(plan),), (1,), ())
            cupy.cuda.runtime.deviceSynchronize()
            sync(fn())
            cupy.cuda.runtime.deviceSynchronize()
            cupy.cuda.profiler.stop()
            json.dump(plan, open(plan_path, "w"), indent=0)  # after every case, as `times`
    return 0


SCALE = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3, "s": 1.0, "second": 1.0}


def parse_ncu(text: str, plan: list[dict]) -> dict:
    """(function, dtype, n, path) -> [seconds summed over the case's kernels, kernel names].
    Reads ncu's --csv output: the details page (a row per kernel and metric, with "Metric
    Unit") or the raw page (a column per metric, units in the row after the header)."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    metric = "gpu__time_duration.sum"
    unit = 1e-9
    out, case = {}, None
    for r in rows:
        if not r.get("ID", "").strip().isdigit():  # raw page: the units row
            unit = SCALE.get(r.get(metric, "").strip(), unit)
            continue
        if "Metric Value" in r:  # details page
            if r.get("Metric Name") != metric:
                continue
            value = float(r["Metric Value"].replace(",", "")) * SCALE.get(r["Metric Unit"].strip(), 1e-9)
        else:
            value = float(r[metric].replace(",", "")) * unit
        name = r["Kernel Name"]
        if name.startswith("bench_marker"):
            grid = int(r["Grid Size"].strip("()").split(",")[0])
            p = plan[grid - 1]
            case = (p["function"], p["dtype"], p["n"], p["path"])
            out[case] = [0.0, []]
            continue
        if case is not None:
            out[case][0] += value
            out[case][1].append(name.split("(")[0])
    return out


def report(times_path, plan_path, kernels_path, table_path, plot_path=None) -> int:
    """The table from a times file and a kernels pass (plan + ncu CSV). Each argument may be
    a comma-separated list, for passes split over several device calls on one machine and
    wheel (the plans pair with the CSVs in order); a case measured by only one pass gets a
    row with the other's columns empty."""
    runs = [json.load(open(t)) for t in times_path.split(",") if os.path.exists(t)]
    kt = {}
    for pp, kp in zip(plan_path.split(","), kernels_path.split(",")):
        if os.path.exists(pp) and os.path.exists(kp):
            kt.update(parse_ncu(open(kp).read(), json.load(open(pp))))
    env = runs[0]["environment"] if runs else {}
    res = {"rows": [r for run in runs for r in run["rows"]]}
    seen = {(r["function"], r["dtype"], r["n"]) for r in res["rows"] if not r.get("extra")}
    order = {name: i for i, name in enumerate(cases())}
    kernel_only = sorted({k[:3] for k in kt} - seen, key=lambda k: (order.get(k[0], len(order)), k[1], k[2]))
    res["rows"] = [r for r in res["rows"] if not r.get("extra")] + [
        {"function": f, "dtype": d, "n": n} for f, d, n in kernel_only
    ] + [r for r in res["rows"] if r.get("extra")]
    us = lambda t: f"{t * 1e6:,.1f}" if t else "—"  # noqa: E731
    ratio = lambda a, b: f"{a / b:.2f}×" if a and b else "—"  # noqa: E731
    lines = [
        f"Environment: {json.dumps(env)}",
        "",
        "| function | dtype | n | kernel: bridge µs | cupyx µs | bridge / cupyx | back to back: bridge µs | cupyx µs | bridge / cupyx | jax.scipy µs | bridge / jax.scipy |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    summary = {"kernel": [], "b2b": []}
    for r in (r for r in res["rows"] if not r.get("extra")):
        key = (r["function"], r["dtype"], r["n"])
        kb, kc = kt.get((*key, "bridge"), [None])[0], kt.get((*key, "cupyx"), [None])[0]
        b, c, j = r.get("bridge"), r.get("cupyx"), r.get("jax.scipy")
        lines.append(
            f"| {key[0]} | {key[1]} | 2^{key[2].bit_length() - 1} | {us(kb)} | {us(kc)} | {ratio(kb, kc)} | "
            f"{us(b)} | {us(c)} | {ratio(b, c)} | {us(j)} | {ratio(b, j)} |"
        )
        if kb and kc:
            summary["kernel"].append((kb / kc, *key))
        if b and c:
            summary["b2b"].append((b / c, *key))
    errors = [f"- {r['function']} {r['dtype']} 2^{r['n'].bit_length() - 1}: {k} {v}" for r in res["rows"] for k, v in r.items() if k.endswith(" error")]
    if errors:
        lines += ["", "Calls that failed (left out above):", "", *errors]
    lines += ["", "Beside pure_callback + SciPy (host round trip; float64):", "",
              "| function | elements | bridge µs (one call, waited) | pure_callback µs | pure_callback / bridge |", "|---|---|---|---|---|"]
    for r in (r for r in res["rows"] if r.get("extra")):
        shape = "×".join(map(str, r["shape"])) if "shape" in r else f"2^{r['n'].bit_length() - 1}"
        lines.append(f"| {r['function']} | {shape} | {us(r['bridge'])} | {us(r['pure_callback'])} | {r['pure_callback'] / r['bridge']:.0f}× |")
    head = ["## Summary against the target (bridge / cupyx ≤ 1.05×)", ""]
    for kind, label in (("kernel", "kernels alone (Nsight Compute)"), ("b2b", "back to back")):
        rs = summary[kind]
        if not rs:
            head.append(f"- {label}: not measured")
            continue
        over = sorted((x for x in rs if x[0] > TARGET), reverse=True)
        fns = {x[1] for x in rs}
        bad = {x[1] for x in over}
        head.append(
            f"- {label}: {len(rs) - len(over)} of {len(rs)} cases within {TARGET}× ({len(fns) - len(bad)} of {len(fns)} functions in every case); "
            f"median {np.median([x[0] for x in rs]):.2f}×; over: "
            + (", ".join(f"{f} {d} 2^{n.bit_length() - 1} {x:.2f}×" for x, f, d, n in over) or "none")
        )
    pathlib.Path(table_path).write_text("\n".join(head + [""] + lines) + "\n")
    # The figures behind the table, beside it: the times rows and each case's kernels.
    kernels_alone = [
        {"function": f, "dtype": d, "n": n, "path": p, "seconds": v[0], "kernels": sorted(set(v[1]))}
        for (f, d, n, p), v in sorted(kt.items())
    ]
    raw = {"environment": env, "rows": res["rows"], "kernels_alone": kernels_alone}
    pathlib.Path(table_path).with_suffix(".json").write_text(json.dumps(raw, indent=1) + "\n")
    print("\n".join(head))
    if plot_path:
        plot(summary, env, plot_path)
    return 0


def plot(summary, env, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kinds = [(k, label) for k, label in (("kernel", "kernels alone"), ("b2b", "back to back")) if summary[k]]
    fig, axes = plt.subplots(len(kinds), 1, figsize=(16, 4.5 * len(kinds)), sharex=True, squeeze=False)
    for ax, (kind, label) in zip(axes[:, 0], kinds):
        pts = [x for x in summary[kind] if x[3] == 1 << 22]
        names = sorted({x[1] for x in summary["kernel"] + summary["b2b"]})
        for dtype, mark in (("float32", "o"), ("float64", "s")):
            xs = [names.index(x[1]) for x in pts if x[2] == dtype]
            ys = [x[0] for x in pts if x[2] == dtype]
            ax.scatter(xs, ys, marker=mark, label=dtype, s=18)
        ax.axhline(TARGET, color="red", lw=0.8, ls="--", label=f"target {TARGET}×")
        ax.axhline(1.0, color="grey", lw=0.5)
        ax.set_yscale("log")
        ax.set_ylabel(f"bridge / cupyx, {label}, 2^22")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=90, fontsize=7)
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"{env.get('gpu')}, jax {env.get('jax')}, CuPy {env.get('cupy')}, {env.get('date')}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def _warm_one(names):
    import cupy

    # A peer that never returns (seen on 2026-12-05: calls that printed nothing for 240 s
    # and 530 s) shows its stack here instead of silently eating the device call.
    faulthandler.dump_traceback_later(60, repeat=True)
    for name in names:
        print(f"warm {name}", flush=True)
        c, _ = peers(name)
        for dtype in DTYPES:
            codes = loop_for(UFUNCS[name], dtype)
            if c is not None and codes is not None:
                args = [cupy.asarray(a.astype(dtype)) for a in arguments(UFUNCS[name], codes, 8, np.random.default_rng(0))]
                c(*args)
    cupy.cuda.runtime.deviceSynchronize()


def warm() -> int:
    """Compile cupyx's kernels into CuPy's on-disk cache from several processes at once, so
    the timed passes do not wait for NVRTC one kernel at a time (a fresh machine has none)."""
    import multiprocessing

    names = cases()
    jobs = max(1, min(12, (os.cpu_count() or 2) - 2))
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        pool.map(_warm_one, [names[i::jobs] for i in range(jobs)])
    return 0


def main(argv):
    sys.path.insert(0, str(ROOT / "bench"))
    cmd, args = argv[1], argv[2:]
    return {"warm": warm, "times": times, "kernels": kernels, "report": report}[cmd](*args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
