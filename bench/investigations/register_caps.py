"""Does capping registers close the device-kernel gap to CuPy (issue 17 item 5)?

xsf's iterative functions compile to 255 registers per thread (occupancy 12.5 % on an
H200); CuPy's own Cephes ports of the same functions use about half. This compiles the
generated kernels (`generated/jax_xsf/rust/cuda/<fn>.cu`, as shipped) with the options
`bridgegen build` passes to NVRTC, once as shipped and once per `--maxrregcount` cap, and
times each kernel alone with CUDA events beside cupyx's ufunc writing into a
preallocated output. Two steps, so the GPU machine compiles nothing:

    python bench/investigations/register_caps.py compile DIR   # here: cubins + registers
    python bench/investigations/register_caps.py time DIR      # GPU machine: the table

    python bench/investigations/register_caps.py here DIR      # GPU machine: both

`compile` uses the NVRTC of the active environment (nvidia-cuda-nvrtc-cu12 first, else the
CUDA toolkit's) and reads registers and spills with `cuobjdump --dump-resource-usage`
($CUOBJDUMP, else the one on PATH). `CAPS=shipped,128,80,noinline` picks the variants of the
heavy kernels: a cap strips the spec's `__maxnreg__` and passes `--maxrregcount`;
`noinline` moves the function's expression into a `__noinline__` device function, as
cupyx declares its Cephes ports (registers then follow the callee, not the loop around it).
A name of `EDITS` (`CAPS=shipped,s2inc`) compiles the function with that edit of its source
(`noinline_lgamma`: igam.h/igami.h out of line with the math library's lgamma, as cupyx;
`log_div`, `log_rcp`: rel_entr and logit with one log, log_residual.cuh; `f32math`: xlogy
and xlog1py's float32 loop in single precision); `_free` drops the spec's register cap.
`plain`, `plain_free`, `plain48`, ...: pdtr as xsf's inline code under another cap (PLAIN).
`LOG2N=24` sets the size (default 2^22), `RANGES` the inputs' ranges. Functions of `SCIPY_CHECK` are also compared with
scipy.special, on the timing inputs and, for rel_entr and logit, near a ratio of 1.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import statistics
import subprocess
import sys
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import spec_toml  # noqa: E402

GENERATED = ROOT / "generated" / "jax_xsf" / "rust" / "cuda"
RUNTIME_INCLUDE = ROOT / "runtime" / "rust" / "include"
N = 1 << int(os.environ.get("LOG2N", "22"))
BLOCK = 128
BLOCKS_PER_SM = 64  # runtime/rust/src/cuda/module.rs
CAPS = [
    None if c == "shipped" else int(c) if c.isdigit() else c
    for c in os.environ.get("CAPS", "shipped,168,128,96").split(",")
]
ONLY = [f for f in os.environ.get("ONLY", "").split(",") if f]  # time these functions only

# function -> per-input range (integers for the int slots), cupyx name
HEAVY = {
    "gammaincinv": [(0.5, 20.0), (0.0, 1.0)],
    "gammainc": [(0.5, 20.0), (0.0, 30.0)],
    "k1": [(0.1, 20.0)],
    "betainc": [(0.5, 10.0), (0.5, 10.0), (0.0, 1.0)],
    "bdtr": [(0.0, 50.0), (50, 100), (0.0, 1.0)],
    "pdtri": [(0, 50), (0.0, 1.0)],
    "yn": [(0, 20), (0.1, 50.0)],
    "fdtr": [(1.0, 30.0), (1.0, 30.0), (0.0, 10.0)],
    "fdtri": [(1.0, 30.0), (1.0, 30.0), (0.0, 1.0)],
    "nbdtr": [(0, 30), (1, 30), (0.0, 1.0)],
    "chdtri": [(0.5, 50.0), (0.0, 1.0)],
    "betaincinv": [(0.5, 10.0), (0.5, 10.0), (0.0, 1.0)],
    # The rest of the incomplete gamma/beta families (capped at 96 until measured).
    "gammaincc": [(0.5, 20.0), (0.0, 30.0)],
    "gammainccinv": [(0.5, 20.0), (0.0, 1.0)],
    "chdtr": [(0.5, 50.0), (0.0, 100.0)],
    "chdtrc": [(0.5, 50.0), (0.0, 100.0)],
    "gdtr": [(0.5, 5.0), (0.5, 20.0), (0.0, 20.0)],
    "gdtrc": [(0.5, 5.0), (0.5, 20.0), (0.0, 20.0)],
    "pdtr": [(0.0, 50.0), (0.0, 50.0)],
    "pdtrc": [(0.0, 50.0), (0.0, 50.0)],
    "bdtrc": [(0.0, 50.0), (50, 100), (0.0, 1.0)],
    "bdtri": [(0.0, 50.0), (50, 100), (0.0, 1.0)],
    "fdtrc": [(1.0, 30.0), (1.0, 30.0), (0.0, 10.0)],
    "nbdtrc": [(0, 30), (1, 30), (0.0, 1.0)],
    "nbdtri": [(0, 30), (1, 30), (0.0, 1.0)],
    "betaincc": [(0.5, 10.0), (0.5, 10.0), (0.0, 1.0)],
    "betainccinv": [(0.5, 10.0), (0.5, 10.0), (0.0, 1.0)],
    "stdtr": [(1.0, 30.0), (-5.0, 5.0)],
    "stdtrit": [(1.0, 30.0), (0.0, 1.0)],
    # With xsf's Cephes Gamma: 136-160 registers, 2.3-2.5x cupyx's kernels (H100, 2026-12-05
    # 15:31 UTC); with the tgamma/lgamma ports (gamma_device) 1.00-1.21x (22:27 UTC). On the
    # spec's default test range; CAPS=shipped,64,40,noinline.
    "beta": [(-10.0, 10.0), (-10.0, 10.0)],
    "betaln": [(-10.0, 10.0), (-10.0, 10.0)],
    "binom": [(-10.0, 10.0), (-10.0, 10.0)],
    # Float64 kernels at 45-46 registers, 1.04-1.05x cupyx's in the 2026-12-06 table: the
    # math library's I0/I1 with Cephes' series past |x| = 700 in the same kernel.
    "i0e": [(-10.0, 10.0)],
    "i1e": [(-10.0, 10.0)],
}
CHEAP = {
    "erfinv": [(-1.0, 1.0)],
    "erfcinv": [(0.0, 2.0)],
    "log1p": [(-0.9, 10.0)],
    "expm1": [(-5.0, 5.0)],
    "entr": [(0.0, 100.0)],
    "xlogy": [(-10.0, 10.0), (0.0, 100.0)],
    "boxcox": [(0.0, 50.0), (-3.0, 3.0)],
    "ndtri": [(0.0, 1.0)],
    # 2.2-2.5x cupyx's kernel (H100, 2026-12-05) with the same specfun algorithm and 72 vs 76
    # registers: "alt" runs cupyx's own lpmv code inside our kernel, to tell the code from
    # the wrapper ("alt_free": without the spec's register cap). m: integral floats (INTEGRAL).
    "lpmv": [(0, 5), (0.0, 10.0), (-1.0, 1.0)],
    # One log a lane (LOG_EDITS) and float32 in single precision, as cupyx (2026-12-06).
    "rel_entr": [(0.0, 100.0), (0.0, 100.0)],
    "logit": [(0.0, 1.0)],
    "xlog1py": [(-10.0, 10.0), (-0.9, 100.0)],
}
# RANGES="gammaincinv=0:50,0:1;pdtr=0:50,0:50" draws those functions' inputs from other ranges
# (device_table.py uses the spec's test ranges).
for _item in filter(None, os.environ.get("RANGES", "").split(";")):
    _fn, _spans = _item.split("=")
    (HEAVY if _fn in HEAVY else CHEAP)[_fn] = [tuple(float(v) for v in span.split(":")) for span in _spans.split(",")]
# Float arguments drawn as integers (orders that must be integral).
INTEGRAL = {"lpmv": {0}}
DTYPE = {"f": "float32", "d": "float64", "i": "int32", "l": "int64"}
# Variant "alt": the real kernels call CUDA's math library instead (as cupyx does).
ALT = {
    "erfinv": ("xsf::cephes::erfinv(", "erfinv("),
    "erfcinv": ("xsf::cephes::erfcinv(", "erfcinv("),
    "ndtri": ("xsf::ndtri(", "normcdfinv("),
    "lpmv": ("jax_xsf_lpmv::on_device(", "pmv_wrap("),
    "expm1": ("jax_xsf_expm1::eval(", "expm1("),
    # cupyx's own Cephes igami/igamci (same xsf-era algorithm): the code or the wrapper?
    "gammaincinv": ("xsf::gammaincinv(", "igami("),
    "gammainccinv": ("xsf::gammainccinv(", "igamci("),
    "pdtr": ("xsf::pdtr(", "pdtr("),
}


# Named source edits, each a list of (old, new) replacements that must all apply. (lpmv's
# "s2inc" and "noinline0", H100 2026-12-06 03:26 UTC, now ship in its prelude; so do
# "noinline_igam" for chdtri and gammainccinv, "noinline_incbet" for bdtri and stdtrit, and
# "noarray" for pdtr, 08:45 UTC: igam/igamc without the asymptotic series' array, in
# igam_math_library.)
# The noinline edits put the spec's own prelude (its headers, then its code, as the
# generator lays it out) before the function's headers.
KERNEL_H = "#include <bridgegen/kernel.cuh>"
PRELUDES = {p["name"]: p for p in spec_toml.load(ROOT / "specs" / "xsf.toml")["prelude"]}


def with_prelude(name):
    p = PRELUDES[name]
    return KERNEL_H + "\n" + "".join(f'#include "{h}"\n' for h in p.get("headers", [])) + p["code"]


FIRST_KERNEL = 'extern "C" __global__ void '
# igam.h/igami.h out of line with log|Gamma| from the math library, both as cupyx's ports.
LGAMMA = """
namespace xsf { namespace cephes {
XSF_HOST_DEVICE inline double lgam_math_library(double x) { return lgamma(x); }
} }
#define lgam lgam_math_library
"""
# ... and with Cephes' erfc and expm1 (igam.h's asymptotic series and igamc_series) from the
# math library too, as cupyx's igam calls them.
MATHLIB_DEFS = """
namespace xsf { namespace cephes {
XSF_HOST_DEVICE inline double erfc_math_library(double x) { return ::erfc(x); }
XSF_HOST_DEVICE inline double expm1_math_library(double x) { return ::expm1(x); }
} }
#define erfc erfc_math_library
#define expm1 expm1_math_library
"""
MATHLIB_UNDEFS = "\n#undef erfc\n#undef expm1\n"
OOL_BEGIN, OOL_END = "#include <bridgegen/out_of_line_begin.cuh>", "#include <bridgegen/out_of_line_end.cuh>"
NOINLINE_LGAMMA = [(OOL_BEGIN, LGAMMA + OOL_BEGIN), (OOL_END, OOL_END + "\n#undef lgam")]
IGAM_H = '#include "xsf/cephes/igam.h"'
LOG_CODE = Path(__file__).with_name("log_residual.cuh").read_text()


def kernel_call(call, dtype):
    return f"static_cast<{dtype}>(static_cast<double>({call}))"


def log_edit(kind):
    return {
        "rel_entr": [
            (FIRST_KERNEL, LOG_CODE + FIRST_KERNEL),
            (kernel_call("jax_xsf_log1::rel_entr(x, y)", "float"), f"bg_v::rel_entr_{kind}(float(x), float(y))"),
            (kernel_call("jax_xsf_log1::rel_entr(x, y)", "double"), f"bg_v::rel_entr_{kind}(x, y)"),
        ],
        "logit": [
            (FIRST_KERNEL, LOG_CODE + FIRST_KERNEL),
            (kernel_call("jax_xsf_log1::logit(p)", "double"), f"bg_v::logit_{kind}(p)"),
        ],
    }


IGAM_READ = '#include "xsf/cephes/igam.h"\n#include "xsf/cephes/igami.h"\n'


def igam_rerouted(out_of_line):
    """gammaincinv's source with igam.h/igami.h read under the math-library reroutes."""
    p = PRELUDES["igam_noinline"]
    heads = "".join(f'#include "{h}"\n' for h in p.get("headers", []))
    body = f"{OOL_BEGIN}\n{IGAM_READ}{OOL_END}\n" if out_of_line else IGAM_READ
    code = LGAMMA + MATHLIB_DEFS + body + "#undef lgam" + MATHLIB_UNDEFS + '#include "xsf/gamma.h"\n'
    return [(KERNEL_H, KERNEL_H + "\n" + heads + code)]


EDITS = {
    "noinline_igam": {
        fn: [(KERNEL_H, with_prelude("igam_noinline"))] for fn in ("gammaincinv", "gammainc", "gammaincc")
    },
    "noinline_incbet": {fn: [(KERNEL_H, with_prelude("incbet_noinline"))] for fn in ("betaincinv", "fdtri")},
    "noinline_lgamma": {
        **{fn: [(KERNEL_H, with_prelude("igam_noinline")), *NOINLINE_LGAMMA] for fn in ("gammaincinv", "gammainc")},
        **{fn: NOINLINE_LGAMMA for fn in ("chdtri", "gammainccinv")},
        "pdtr": [(IGAM_H, f"{OOL_BEGIN}\n{IGAM_H}\n{OOL_END}")],
    },
    "log_div": log_edit("div"),
    "log_rcp": log_edit("rcp"),
    "f32math": {
        fn: [
            (
                kernel_call(f"(x == 0 && !isnan(y)) ? 0.0 : x * {f}(y)", "float"),
                f"((x == 0 && !isnan(y)) ? 0.0f : float(x) * {f}f(float(y)))",
            )
        ]
        for fn, f in (("xlogy", "log"), ("xlog1py", "log1p"))
    },
}
EDITS["mathlib"] = {
    "gammaincinv": igam_rerouted(False),
    "pdtr": [
        ("#define lgam lgam_math_library", "".join(f'#include "{h}"\n' for h in PRELUDES["igam_noinline"]["headers"]) + "#define lgam lgam_math_library" + MATHLIB_DEFS),
        ("#undef lgam", "#undef lgam" + MATHLIB_UNDEFS),
    ],
}
EDITS["noinline_mathlib"] = {
    "gammaincinv": igam_rerouted(True),
    "pdtr": [*EDITS["mathlib"]["pdtr"], (IGAM_H, f"{OOL_BEGIN}\n{IGAM_H}\n{OOL_END}")],
}
# The same edits without the spec's register cap.
EDITS["mathlib_free"] = EDITS["mathlib"]
EDITS["noinline_mathlib_free"] = EDITS["noinline_mathlib"]
EDITS["noinline_lgamma_free"] = EDITS["noinline_lgamma"]


# pdtr as xsf's inline code with no reroutes: pdtrc's kernel source calling xsf::pdtr, with
# pdtrc's register cap (40), none (`plain_free`) or another (`plain48`). pdtrc runs the same
# igam.h paths at 0.88-0.92x cupyx's kernel where pdtr ran 1.05-1.11x (2026-12-06 table).
PLAIN = ("plain", "plain_free", "plain32", "plain48", "plain64", "plain80")


def plain_source(variant):
    src = (GENERATED / "pdtrc.cu").read_text().replace("xsf::pdtrc(", "xsf::pdtr(").replace("bg_jax_xsf_pdtrc_", "bg_jax_xsf_pdtr_")
    cap = variant.removeprefix("plain")
    if cap == "_free":
        return uncapped(src)
    return re.sub(r"__maxnreg__\(\d+\)", f"__maxnreg__({cap})", src) if cap else src


def applies(cap):
    """The functions a variant can be built for."""
    if cap in PLAIN:
        return {"pdtr": HEAVY["pdtr"]}
    return ALT if cap in ("alt", "alt_free") else EDITS[cap] if cap in EDITS else {**HEAVY, **CHEAP}


def edited_source(fn, src, edit):
    for old, new in EDITS[edit][fn]:
        assert old in src, (fn, edit, old[:60])
        src = src.replace(old, new, 1)
    return uncapped(src) if edit.endswith("_free") else src


def alt_preamble(fn):
    """Device code the alternative call needs: cupyx's own preamble where ALT calls a cupyx
    function rather than CUDA's math library."""
    if fn == "lpmv":
        from cupyx.scipy.special import _lpmv

        return _lpmv.lpmv_definition
    if fn in ("gammaincinv", "gammainccinv"):
        from cupyx.scipy.special import _gammainc

        return _gammainc._igami_preamble
    if fn == "pdtr":
        from cupyx.scipy.special import _gammainc, _stats_distributions

        return _gammainc._igam_preamble + _stats_distributions.pdtr_definition
    return ""


def alt_source(fn, src, syms):
    """`src` with ALT[fn]'s call replaced inside the real kernels `syms` only."""
    old, new = ALT[fn]
    parts = src.split('extern "C" __global__ void ')
    for k, part in enumerate(parts):
        if any(re.match(rf"(__maxnreg__\(\d+\) )?{sym}\(", part) for sym in syms):
            parts[k] = part.replace(old, new)
    parts[0] += alt_preamble(fn)
    return 'extern "C" __global__ void '.join(parts)


def uncapped(src):
    return re.sub(r"__maxnreg__\(\d+\) ", "", src)


def noinline_source(src, syms):
    """`src` with each real kernel's expression moved into a `__noinline__` function."""
    parts = src.split('extern "C" __global__ void ')
    for k, part in enumerate(parts):
        sym = next((s for s in syms if part.startswith(s + "(") or re.match(rf"__maxnreg__\(\d+\) {s}\(", part)), None)
        if sym is None:
            continue
        params = re.findall(r"const (double|float|long long|int) (\w+) = ", part)
        m = re.search(r"bg_out0\[bg_i\] = static_cast<(\w+)>\(static_cast<(\w+)>\((.*)\)\);\n", part)
        expr, rtype = m.group(3), m.group(2)
        helper = f"bg_alt_{sym}"
        decl = ", ".join(f"{t} {n}" for t, n in params)
        call = ", ".join(n for _, n in params)
        parts[k] = part.replace(m.group(3), f"{helper}({call})", 1)
        parts[k - 1] += f"__device__ __noinline__ {rtype} {helper}({decl}) {{ return {expr}; }}\n\n"
    return 'extern "C" __global__ void '.join(parts)


def kernels(fn):
    """The generated kernel symbols of `fn` whose inputs are real or integer."""
    src = (GENERATED / f"{fn}.cu").read_text()
    return src, [
        s
        for s in re.findall(r"void (?:__maxnreg__\(\d+\) )?(bg_\w+)\(", src)
        if re.fullmatch(r"bg_jax_xsf_\w+__[fdil]+_[fd]", s)
    ]


def nvrtc_options(cap):
    import cupy

    inc = Path(cupy.__file__).parent / "_core" / "include"
    site = Path(cupy.__file__).parents[1]
    cudart = site / "nvidia" / "cuda_runtime" / "include"
    o = [
        f"-I{inc}/cupy/_cccl/cub",
        f"-I{inc}/cupy/_cccl/thrust",
        f"-I{inc}/cupy/_cccl/libcudacxx",
        "--std=c++17",
        f"-I{inc}",
    ]
    if cudart.is_dir():
        o.append(f"-I{cudart}")
    elif Path("/usr/local/cuda/include").is_dir():
        o.append("-I/usr/local/cuda/include")
    o += [
        "-ftz=true",
        "-arch=sm_90",
        "--device-as-default-execution-space",
        f"-I{inc}/cupy",
        f"-I{RUNTIME_INCLUDE}",
        f"-I{RUNTIME_INCLUDE}/nvrtc",
    ]
    if isinstance(cap, int):
        o.append(f"--maxrregcount={cap}")
    return o


def load_nvrtc():
    try:
        import nvidia

        bases = list(nvidia.__path__)
    except ImportError:
        bases = []
    for sub in ["cuda_nvrtc/lib/libnvrtc.so.12", "cu13/lib/libnvrtc.so.13"]:
        for base in bases:
            p = Path(base) / sub
            if p.exists():
                return ctypes.CDLL(str(p)), p
    for p in sorted(Path("/usr/local/cuda/lib64").glob("libnvrtc.so*")):
        return ctypes.CDLL(str(p)), p
    raise SystemExit("no NVRTC in this environment")


def compile_one(lib, src, name, opts):
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(), 0, None, None) == 0
    arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
    if rc != 0:
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(f"{name}: NVRTC {rc}\n{log.value.decode()[-2000:]}")
    size = ctypes.c_size_t()
    assert lib.nvrtcGetCUBINSize(prog, ctypes.byref(size)) == 0
    buf = ctypes.create_string_buffer(size.value)
    assert lib.nvrtcGetCUBIN(prog, buf) == 0
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return buf.raw


def resources(cubin):
    tool = (
        os.environ.get("CUOBJDUMP")
        or shutil.which("cuobjdump")
        or ("/usr/local/cuda/bin/cuobjdump" if Path("/usr/local/cuda/bin/cuobjdump").exists() else None)
    )
    if not tool:
        return {}
    out = subprocess.run([tool, "--dump-resource-usage", str(cubin)], capture_output=True, text=True).stdout
    found, current = {}, None
    for line in out.splitlines():
        m = re.search(r"Function (\w+):", line)
        if m:
            current = m.group(1)
        m = re.search(r"REG:(\d+) STACK:(\d+)", line)
        if m and current:
            found[current] = dict(registers=int(m.group(1)), stack=int(m.group(2)))
    return found


def compile_all(out):
    import cupyx.scipy.special  # noqa: F401  (once, here: importing it in the pool's threads races)

    out.mkdir(parents=True, exist_ok=True)
    lib, path = load_nvrtc()
    print("NVRTC:", path)
    jobs = [(fn, None) for fn in CHEAP] + [(fn, "alt") for fn in ALT]
    jobs += [(fn, cap) for fn in HEAVY for cap in CAPS if cap not in ("alt", "alt_free") and fn in applies(cap)]
    jobs += [(fn, "alt_free") for fn in ALT if "alt_free" in CAPS]
    jobs += [(fn, e) for e in CAPS if e in EDITS for fn in EDITS[e]]
    jobs = [j for j in jobs if not ONLY or j[0] in ONLY]
    # The slowest compiles first, so the pool's last round is short.
    jobs.sort(key=lambda j: j[0] not in HEAVY)

    def job(fc):
        fn, cap = fc
        src, syms = kernels(fn)
        if cap in ("alt", "alt_free"):
            src = alt_source(fn, src, syms)
            src = uncapped(src) if cap == "alt_free" else src
        elif cap == "noinline":
            src = noinline_source(src, syms)
        elif cap in EDITS:
            src = edited_source(fn, src, cap)
        elif cap in PLAIN:
            src = plain_source(cap)
        elif cap is not None:
            src = uncapped(src)
        cubin = out / f"{fn}.{cap or 'shipped'}.cubin"
        if not cubin.exists():  # resumable
            try:
                cubin.write_bytes(compile_one(lib, src, f"{fn}.cu", nvrtc_options(cap)))
            except RuntimeError as e:  # one variant's failure leaves the others to time
                print(e, flush=True)
                return fc, {}
        return fc, resources(cubin)

    # Merged into an earlier compile's resources: DIR may gather several runs' variants.
    meta = json.loads((out / "resources.json").read_text()) if (out / "resources.json").exists() else {}
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for (fn, cap), res in pool.map(job, jobs):
            meta[f"{fn}.{cap or 'shipped'}"] = res
            print(fn, cap or "shipped", res, flush=True)
    (out / "resources.json").write_text(json.dumps(meta, indent=1, sort_keys=True))


# Accuracy against scipy.special (float64 on the float64-cast inputs) of every variant: on
# the timing inputs and on inputs where the log's argument is near 1.
SCIPY_CHECK = {"rel_entr", "logit", "xlogy", "xlog1py", "pdtr", "gammaincinv", "gammainccinv", "chdtri", "gammainc"}


def near_one(fn, dtype, rng, n):

    t = rng.uniform(-1, 1, n) * 10.0 ** rng.uniform(-15, -1, n)
    if fn == "rel_entr":
        y = rng.uniform(0.1, 100, n).astype(dtype)
        return [(y * (1 + t)).astype(dtype), y]
    if fn == "logit":
        return [(0.5 + t / 2).astype(dtype)]
    return None


def geometry(n, nin):
    """A flat launch's `Geometry<nin>` (kernel.cuh) over n contiguous elements."""
    import numpy as np

    w = np.zeros(2 + 8 + 8 * nin, dtype=np.int64)
    w[0], w[1], w[2] = n, 1, n
    for k in range(nin):
        w[10 + 8 * k] = 1
    return np.void(w.tobytes())


def check_scipy(fn, sym, caps, out, args, outs, rng):
    import cupy
    import numpy as np
    import scipy.special as sc

    def report(label, ins, got):
        ins64 = [cupy.asnumpy(a).astype(np.float64) for a in ins]
        with np.errstate(all="ignore"):
            want = getattr(sc, fn)(*ins64)
        got = cupy.asnumpy(got).astype(np.float64)
        eps = np.finfo(np.float32 if sym.endswith("_f") else np.float64).eps
        nan_diff = int((np.isnan(got) != np.isnan(want)).sum())
        fin = np.isfinite(got) & np.isfinite(want) & (want != 0)
        err = np.abs(got[fin] - want[fin]) / np.abs(want[fin]) / eps
        worst = int(np.argmax(err)) if err.size else 0
        at = [float(a[fin][worst]) for a in ins64] if err.size else []
        print(
            f"  scipy {label:26s} max {err.max() if err.size else 0:10.3g} eps, p99.99 {np.quantile(err, 0.9999) if err.size else 0:8.3g}, NaN diff {nan_diff}, at {at}"
        )

    near = near_one(fn, args[0].dtype, rng, 1 << 20)
    for cap in caps:
        key = f"{fn}.{cap or 'shipped'}"
        if cap not in outs:
            continue
        n = 1 << 18
        report(f"{cap or 'shipped'} random", [a[:n] for a in args], outs[cap][:n])
        if near is not None:
            k = cupy.RawModule(path=str(out / f"{key}.cubin")).get_function(sym)
            ins = [cupy.asarray(a) for a in near]
            n = len(near[0])
            o = cupy.full(n, np.nan, dtype=outs[cap].dtype)
            k(((n + BLOCK - 1) // BLOCK,), (BLOCK,), (geometry(n, len(ins)), *ins, o))
            report(f"{cap or 'shipped'} near 1", ins, o)


def time_all(out):
    import cupy
    import cupyx.scipy.special as cps
    import numpy as np

    sms = cupy.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    meta = json.loads((out / "resources.json").read_text()) if (out / "resources.json").exists() else {}
    rng = np.random.default_rng(0)

    def events(launch, reps=15):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        launch()
        cupy.cuda.get_current_stream().synchronize()
        t = []
        for _ in range(reps):
            start.record()
            launch()
            stop.record()
            stop.synchronize()
            t.append(cupy.cuda.get_elapsed_time(start, stop) * 1e3)
        return statistics.median(t)

    rows = []
    print(f"{'kernel':34s} {'variant':9s} {'regs':>4s} {'stack':>5s} {'grid':>6s} {'us':>9s} {'/cupyx':>7s}")
    for fn, ranges in {**HEAVY, **CHEAP}.items():
        if ONLY and fn not in ONLY:
            continue
        _, syms = kernels(fn)
        caps = [c for c in CAPS if fn in applies(c)] if fn in HEAVY else [None] + (["alt"] if fn in ALT else [])
        caps += [e for e in CAPS if e in EDITS and fn in EDITS[e] and e not in caps]
        for sym in syms:
            codes = sym.rsplit("__", 1)[1]
            ins, res = codes.split("_")
            args = []
            for j, (c, (lo, hi)) in enumerate(zip(ins, ranges)):
                if j in INTEGRAL.get(fn, ()):
                    args.append(cupy.asarray(rng.integers(lo, hi + 1, N).astype(DTYPE[c])))
                elif c in "il":
                    args.append(cupy.asarray(rng.integers(lo, hi, N).astype(DTYPE[c])))
                else:
                    args.append(cupy.asarray(rng.uniform(lo, hi, N).astype(DTYPE[c])))
            o = cupy.full(N, np.nan, dtype=DTYPE[res])
            g = geometry(N, len(ins))
            ref = cupy.empty_like(o)
            try:
                cf = getattr(cps, fn)
                cup = events(lambda: cf(*args, out=ref))
            except Exception as e:  # cupyx lacks this loop
                print(f"  cupyx {fn}{codes}: {type(e).__name__}: {e}"[:160])
                cup = float("nan")
            outs = {}
            for cap in caps:
                key = f"{fn}.{cap or 'shipped'}"
                if not (out / f"{key}.cubin").exists():
                    print(f"  {key}: not compiled")
                    continue
                k = cupy.RawModule(path=str(out / f"{key}.cubin")).get_function(sym)
                full = (N + BLOCK - 1) // BLOCK
                grids = {"capped": min(full, sms * BLOCKS_PER_SM), "full": full}
                for gname, grid in grids.items():
                    o.fill(np.nan)  # poisoned before each run
                    us = events(lambda: k((grid,), (BLOCK,), (g, *args, o)))
                    if not meta.get(key):  # compiled where no cuobjdump was: read here
                        meta[key] = resources(out / f"{key}.cubin")
                    r = meta[key].get(sym, {})
                    variant = f"{cap or 'shipped'}/{gname}"
                    print(
                        f"{sym:34s} {variant:14s} {r.get('registers', '?'):>4} {r.get('stack', '?'):>5} {grid:>6d} {us:9.1f} {us / cup:7.2f}",
                        flush=True,
                    )
                    rows.append(dict(kernel=sym, cap=cap, grid=gname, us=us, cupyx_us=cup, **r))
                outs[cap] = o.copy()
            if fn in SCIPY_CHECK:
                check_scipy(fn, sym, caps, out, args, outs, rng)
            if None not in outs:
                continue
            base = outs[None]
            for cap, other in outs.items():
                same_nan = bool((cupy.isnan(other) == cupy.isnan(base)).all())
                fin = cupy.isfinite(base) & cupy.isfinite(other) & (base != 0)
                rel = float(cupy.max(cupy.abs(other[fin] / base[fin] - 1))) if bool(fin.any()) else 0.0
                line = f"  {cap or 'shipped'}: max rel. difference from shipped {rel:.2e}, same NaNs {same_nan}"
                if not np.isnan(cup) and other.dtype == ref.dtype:
                    line += f"; NaN pattern differs from cupyx at {int((cupy.isnan(other) != cupy.isnan(ref)).sum())} of {N}"
                print(line)
    (Path(os.environ.get("OUT", out)) / "register-caps.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    step, d = sys.argv[1], Path(sys.argv[2])
    if step in ("compile", "here"):
        compile_all(d)
    if step in ("time", "here"):
        time_all(d)
