"""Which launch the runtime gives each kernel (issue 17 item 5): the attributes its rule reads
(runtime/rust/src/cuda/module.rs: more than 64 registers, or 128 bytes or more of local
memory per thread -> one element per thread; otherwise the capped grid), read with CuPy
from cubins that `register_caps.py compile DIR` wrote. On the GPU machine:

    python bench/investigations/launch_probe.py DIR
"""

from __future__ import annotations

import glob
import re
import sys
from pathlib import Path

import cupy

# The thresholds, read from the runtime itself so that this probe cannot drift from it.
_MODULE_RS = (Path(__file__).resolve().parents[2] / "runtime/rust/src/cuda/module.rs").read_text()
HEAVY_REGISTERS, HEAVY_LOCAL_BYTES = (
    int(re.search(rf"const {name}: c_int = (\d+);", _MODULE_RS).group(1)) for name in ("HEAVY_REGISTERS", "HEAVY_LOCAL_BYTES")
)


def main(directory):
    for path in sorted(glob.glob(f"{directory}/*.cubin")):
        module = cupy.RawModule(path=path)
        with open(path, "rb") as f:
            symbols = sorted({s.decode() for s in re.findall(rb"bg_jax_xsf_[A-Za-z0-9_]+", f.read())})
        for sym in symbols[:2]:
            try:
                k = module.get_function(sym)
            except cupy.cuda.driver.CUDADriverError:
                continue
            heavy = k.num_regs > HEAVY_REGISTERS or k.local_size_bytes >= HEAVY_LOCAL_BYTES
            launch = "one element per thread" if heavy else "capped grid"
            print(
                f"{path.rsplit('/', 1)[1]:28s} {sym:34s} regs {k.num_regs:3d} local {k.local_size_bytes:4d} -> {launch}"
            )


if __name__ == "__main__":
    main(sys.argv[1])
