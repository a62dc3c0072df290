//! `bridgegen doctor`: what the build would use on this machine, and each problem with its
//! fix. Everything is looked up the way `build` looks it up.

use crate::build::{headers, nvrtc, python};
use crate::error::Error;
use std::path::Path;

const PROBE_PY: &str = r#"
import importlib.metadata as md, importlib.util, os, sys, ctypes
def v(name):
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return ""
print("python=" + sys.executable + " " + sys.version.split()[0])
print("jax=" + v("jax"))
print("jaxlib=" + v("jaxlib"))
cupy = [d.metadata["Name"] + " " + d.version for d in md.distributions()
        if (d.metadata["Name"] or "").lower().startswith(("cupy-cuda", "cupy_cuda")) or (d.metadata["Name"] or "").lower() == "cupy"]
print("cupy=" + (cupy[0] if cupy else ""))
print("nvrtc_pkg=" + (v("nvidia-cuda-nvrtc") or v("nvidia-cuda-nvrtc-cu12")))
try:
    lib = ctypes.CDLL("libcuda.so.1")
    n = ctypes.c_int()
    lib.cuDriverGetVersion(ctypes.byref(n))
    print(f"driver={n.value // 1000}.{n.value % 1000 // 10}")
except OSError:
    print("driver=")
"#;

struct Report {
    problems: usize,
}

impl Report {
    fn line(&self, what: &str, value: &str) {
        println!("  {what:<22} {value}");
    }
    fn problem(&mut self, what: &str, fix: &str) {
        self.problems += 1;
        println!("  problem: {what}\n           fix: {fix}");
    }
}

pub fn doctor(spec: Option<&Path>) -> Result<bool, Error> {
    let mut r = Report { problems: 0 };
    println!("bridgegen {} doctor", env!("CARGO_PKG_VERSION"));
    let out = python::run(PROBE_PY)?;
    let get = |k: &str| out.lines().find_map(|l| l.strip_prefix(&format!("{k}="))).unwrap_or("").to_string();
    r.line("python", &get("python"));
    let (jax, jaxlib) = (get("jax"), get("jaxlib"));
    r.line("jax / jaxlib", &format!("{} / {}", or_missing(&jax), or_missing(&jaxlib)));
    if jaxlib.is_empty() {
        r.problem(
            "jaxlib is not installed: build has no headers to compile against",
            "pip install jax, or build with --jaxlib VERSION",
        );
    }
    match python::jaxlib() {
        Ok((_, include)) => match headers::header_api_version(&include) {
            Some((a, b)) => {
                let (rmaj, rmin) = crate::reported_ffi_api();
                r.line(
                    "FFI headers",
                    &format!("{} (FFI API {a}.{b}; handlers report {rmaj}.{rmin})", include.display()),
                )
            }
            None => r.problem(&format!("{} has no xla/ffi/api/c_api.h", include.display()), "reinstall jaxlib"),
        },
        Err(_) if !jaxlib.is_empty() => r.problem("jaxlib's include directory was not found", "reinstall jaxlib"),
        Err(_) => {}
    }
    let (lo, hi) = headers::jaxlib_range();
    r.line("supported jaxlib", &format!("{lo} to {hi} (tested); Requires-Dist of built wheels"));
    let tools = python::cuda_tools()?;
    let cupy = get("cupy");
    match &tools.cupy_include {
        Some(p) => r.line("xsf headers", &format!("{} ({})", p.join("cupy/xsf").display(), cupy)),
        None => r.problem(
            "no CuPy wheel: the xsf headers come from it",
            "pip install cupy-cuda13x==14.2.0 (never imported on CPU machines)",
        ),
    }
    match &tools.nvrtc {
        Some(p) => match nvrtc::probe(p) {
            Ok((maj, min)) => r.line("NVRTC", &format!("{} ({}), {maj}.{min}: compiles", p.display(), get("nvrtc_pkg"))),
            Err(why) => r.problem(
                &format!("NVRTC at {} does not work: {why}", p.display()),
                "reinstall nvidia-cuda-nvrtc (pinned in requirements/dev.txt) or point BRIDGEGEN_NVRTC at a working libnvrtc",
            ),
        },
        None => r.problem(
            "NVRTC not found: build would skip the CUDA kernels (CPU-only library)",
            "pip install nvidia-cuda-nvrtc nvidia-cuda-runtime (pinned in requirements/dev.txt)",
        ),
    }
    if tools.nvrtc.is_some() && tools.cudart_include.is_none() {
        r.problem("CUDA runtime headers not found (CuPy passes them to NVRTC)", "pip install nvidia-cuda-runtime");
    }
    let driver = get("driver");
    r.line("CUDA driver", if driver.is_empty() { "none (fine for building; GPU calls need one)" } else { &driver });
    r.line("NVRTC cache", &nvrtc::cache_dir().display().to_string());
    if let Some(spec) = spec {
        let pkg = crate::load(spec)?;
        let cuda = pkg.ufuncs.iter().filter(|u| u.platforms.contains(&crate::ir::Platform::Cuda)).count();
        let kernels = if tools.nvrtc.is_some() && tools.cupy_include.is_some() {
            format!("{cuda} CUDA kernels for {}", nvrtc::DEFAULT_ARCHS)
        } else {
            "no CUDA kernels (CPU-only)".into()
        };
        r.line(
            "build would make",
            &format!(
                "{} {} ({} ufuncs, {} functions; {kernels}) against jaxlib {}",
                pkg.name,
                pkg.version,
                pkg.ufuncs.len(),
                pkg.functions.len(),
                or_missing(&jaxlib)
            ),
        );
    }
    if r.problems == 0 {
        println!("no problems found");
    } else {
        println!("{} problem(s) found", r.problems);
    }
    Ok(r.problems == 0)
}

fn or_missing(s: &str) -> &str {
    if s.is_empty() {
        "not installed"
    } else {
        s
    }
}
