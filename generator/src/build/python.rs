//! Asking the active Python about its environment (jaxlib headers and version).

use crate::error::Error;
use std::path::PathBuf;
use std::process::Command;

/// The interpreter builds use: `BRIDGEGEN_PYTHON`, else `python3` on PATH (the active venv's).
pub fn interpreter() -> String {
    std::env::var("BRIDGEGEN_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Run a Python snippet and return its stdout, trimmed.
pub fn run(code: &str) -> Result<String, Error> {
    let py = interpreter();
    let out = Command::new(&py)
        .args(["-c", code])
        .output()
        .map_err(|e| Error::Build(format!("cannot run Python `{py}`: {e} (set BRIDGEGEN_PYTHON)")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().last().unwrap_or("").to_string();
        return Err(Error::Build(format!("Python `{py}` failed: {last}")));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// jaxlib's version and `jax.ffi.include_dir()`, found without importing jax.
pub fn jaxlib() -> Result<(String, PathBuf), Error> {
    let code = r#"
import importlib.metadata as md, importlib.util, os
spec = importlib.util.find_spec("jaxlib")
if spec is None or spec.origin is None:
    raise SystemExit("jaxlib is not installed in this environment")
print(md.version("jaxlib"))
print(os.path.join(os.path.dirname(spec.origin), "include"))
"#;
    let out = run(code).map_err(|e| Error::Build(format!("{e}; install jax/jaxlib or pass --jaxlib-include")))?;
    let mut lines = out.lines();
    let version = lines.next().unwrap_or("").to_string();
    let dir = PathBuf::from(lines.next().unwrap_or(""));
    Ok((version, dir))
}

/// Where the CUDA build tools are: NVRTC (pip `nvidia-cuda-nvrtc`), the CUDA runtime
/// headers CuPy also passes to NVRTC (pip `nvidia-cuda-runtime`, optional), and CuPy's
/// include directory (xsf, CCCL, `cupy/complex.cuh`). Found without importing anything.
#[derive(Debug, Clone, Default)]
pub struct CudaTools {
    pub nvrtc: Option<PathBuf>,
    pub cudart_include: Option<PathBuf>,
    pub cupy_include: Option<PathBuf>,
}

pub fn cuda_tools() -> Result<CudaTools, Error> {
    cuda_tools_for(None)
}

/// The pip packages of one CUDA major version's NVRTC and runtime headers: CUDA 13
/// wheels install under nvidia/cu13, CUDA 12 ones under nvidia/cuda_nvrtc and
/// nvidia/cuda_runtime.
fn nvidia_packages(cuda: Option<u32>) -> (&'static str, &'static str) {
    match cuda {
        Some(12) => ("(\"nvidia.cuda_nvrtc\",)", "(\"nvidia.cuda_runtime\",)"),
        Some(_) => ("(\"nvidia.cu13\",)", "(\"nvidia.cu13\",)"),
        None => ("(\"nvidia.cu13\", \"nvidia.cuda_nvrtc\")", "(\"nvidia.cu13\", \"nvidia.cuda_runtime\")"),
    }
}

/// As `cuda_tools`, NVRTC and headers of CUDA `cuda` only when given (`build --cuda`).
pub fn cuda_tools_for(cuda: Option<u32>) -> Result<CudaTools, Error> {
    let (nvrtc_pkgs, runtime_pkgs) = nvidia_packages(cuda);
    let code = r#"
import glob, importlib.metadata as md, importlib.util, os
def dirs(pkg):
    try:
        spec = importlib.util.find_spec(pkg)
    except Exception:
        return []
    return list(spec.submodule_search_locations or []) if spec else []
for pkg in NVRTC_PKGS:
    libs = [l for d in dirs(pkg) for l in sorted(glob.glob(os.path.join(d, "lib", "libnvrtc.so.*")))]
    libs = [l for l in libs if "builtins" not in l and ".alt." not in l]
    if libs:
        print("nvrtc=" + libs[0])
        break
for pkg in RUNTIME_PKGS:
    inc = [os.path.join(d, "include") for d in dirs(pkg) if os.path.isfile(os.path.join(d, "include", "cuda_runtime.h"))]
    if inc:
        print("cudart=" + inc[0])
        break
for dist in md.distributions():
    name = (dist.metadata["Name"] or "").lower()
    if name == "cupy" or name.startswith(("cupy-cuda", "cupy_cuda")):
        p = str(dist.locate_file("cupy/_core/include"))
        if os.path.isfile(os.path.join(p, "cupy", "xsf", "gamma.h")):
            print("cupy=" + p)
            break
"#;
    let code = code.replace("NVRTC_PKGS", nvrtc_pkgs).replace("RUNTIME_PKGS", runtime_pkgs);
    let mut tools = CudaTools::default();
    for line in run(&code)?.lines() {
        match line.split_once('=') {
            Some(("nvrtc", p)) => tools.nvrtc = Some(p.into()),
            Some(("cudart", p)) => tools.cudart_include = Some(p.into()),
            Some(("cupy", p)) => tools.cupy_include = Some(p.into()),
            _ => {}
        }
    }
    if let Some(p) = std::env::var_os("BRIDGEGEN_NVRTC") {
        tools.nvrtc = Some(p.into());
    }
    if let Some(p) = std::env::var_os("BRIDGEGEN_XSF_INCLUDE") {
        // That variable names .../include/cupy (the host build's xsf root); NVRTC wants its parent.
        tools.cupy_include = PathBuf::from(p).parent().map(PathBuf::from);
    }
    Ok(tools)
}
