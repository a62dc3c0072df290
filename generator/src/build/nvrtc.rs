//! CUDA kernels at build time: every `rust/cuda/<fn>.cu` of the generated crate is
//! compiled by NVRTC (loaded from the pip wheel with libloading; no CUDA toolkit, no GPU)
//! with CuPy's own options, once per requested architecture, in parallel, and cached by
//! a hash of everything that determines the output. The images land in one directory
//! that the crate's build script embeds.

use super::python::CudaTools;
use crate::error::Error;
use indicatif::{ProgressBar, ProgressStyle};
use libloading::Library;
use sha2::{Digest, Sha256};
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The default: cubins for Hopper (H100/H200) plus PTX for Ampere and newer, which the
/// driver compiles once for any other GPU of compute capability >= 8.0 and caches.
pub const DEFAULT_ARCHS: &str = "sm_90,compute_80";

/// Parse `--cuda-arch`: comma-separated `sm_XY` (cubin) and `compute_XY` (PTX), or `none`.
pub fn parse_archs(s: &str) -> Result<Vec<String>, String> {
    if s.trim() == "none" {
        return Ok(Vec::new());
    }
    let mut out: Vec<String> = Vec::new();
    for a in s.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        let ok = ["sm_", "compute_"]
            .iter()
            .any(|p| a.strip_prefix(p).is_some_and(|n| n.len() >= 2 && n.bytes().all(|b| b.is_ascii_digit())));
        if !ok {
            return Err(format!("`{a}` is not a CUDA architecture: use sm_XY (machine code) or compute_XY (PTX), e.g. {DEFAULT_ARCHS}, or none"));
        }
        if !out.iter().any(|x| x == a) {
            out.push(a.to_string());
        }
    }
    if out.is_empty() {
        return Err("--cuda-arch is empty: give architectures or `none`".into());
    }
    Ok(out)
}

/// `--cuda-arch` as clap parses it.
#[derive(Debug, Clone)]
pub struct Archs(pub Vec<String>);

pub fn archs_arg(s: &str) -> Result<Archs, String> {
    parse_archs(s).map(Archs)
}

type Program = *mut c_void;

/// The NVRTC entry points used here.
struct Nvrtc {
    version: (c_int, c_int),
    create: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> c_int,
    compile: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> c_int,
    log_size: unsafe extern "C" fn(Program, *mut usize) -> c_int,
    log: unsafe extern "C" fn(Program, *mut c_char) -> c_int,
    cubin_size: unsafe extern "C" fn(Program, *mut usize) -> c_int,
    cubin: unsafe extern "C" fn(Program, *mut c_char) -> c_int,
    ptx_size: unsafe extern "C" fn(Program, *mut usize) -> c_int,
    ptx: unsafe extern "C" fn(Program, *mut c_char) -> c_int,
    destroy: unsafe extern "C" fn(*mut Program) -> c_int,
    _libs: Vec<Library>,
}

impl Nvrtc {
    fn open(path: &Path) -> Result<Nvrtc, String> {
        use libloading::os::unix::{Library as UnixLibrary, RTLD_GLOBAL, RTLD_NOW};
        let mut libs = Vec::new();
        // NVRTC dlopens its builtins library by soname; load it from the same wheel first
        // so that no LD_LIBRARY_PATH is needed.
        if let Some(dir) = path.parent() {
            let mut builtins: Vec<PathBuf> = std::fs::read_dir(dir)
                .map(|it| it.filter_map(|e| e.ok()).map(|e| e.path()).collect())
                .unwrap_or_default();
            builtins.retain(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("libnvrtc-builtins.so")));
            builtins.sort();
            if let Some(b) = builtins.first() {
                // SAFETY: loading NVRTC's own builtins library.
                let lib = unsafe { UnixLibrary::open(Some(b), RTLD_NOW | RTLD_GLOBAL) }
                    .map_err(|e| format!("{}: {e}", b.display()))?;
                libs.push(Library::from(lib));
            }
        }
        // SAFETY: as above.
        let lib: Library = unsafe { UnixLibrary::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }
            .map_err(|e| format!("{}: {e}", path.display()))?
            .into();
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the symbol has the C signature of the field it is stored in.
                *unsafe { lib.get($name) }.map_err(|e| format!("{}: {e}", path.display()))?
            };
        }
        let version_fn: unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int = sym!(b"nvrtcVersion\0");
        let mut version = (0, 0);
        // SAFETY: valid out-pointers.
        unsafe { version_fn(&mut version.0, &mut version.1) };
        let n = Nvrtc {
            version,
            create: sym!(b"nvrtcCreateProgram\0"),
            compile: sym!(b"nvrtcCompileProgram\0"),
            log_size: sym!(b"nvrtcGetProgramLogSize\0"),
            log: sym!(b"nvrtcGetProgramLog\0"),
            cubin_size: sym!(b"nvrtcGetCUBINSize\0"),
            cubin: sym!(b"nvrtcGetCUBIN\0"),
            ptx_size: sym!(b"nvrtcGetPTXSize\0"),
            ptx: sym!(b"nvrtcGetPTX\0"),
            destroy: sym!(b"nvrtcDestroyProgram\0"),
            _libs: Vec::new(),
        };
        libs.push(lib);
        Ok(Nvrtc { _libs: libs, ..n })
    }

    /// Compile one source; a cubin for `sm_XY`, PTX for `compute_XY`. Err holds the log.
    fn compile(&self, source: &str, name: &str, options: &[String], ptx: bool) -> Result<Vec<u8>, String> {
        let src = CString::new(source).map_err(|e| e.to_string())?;
        let cname = CString::new(name).map_err(|e| e.to_string())?;
        let opts: Vec<CString> = options.iter().map(|o| CString::new(o.as_str()).unwrap_or_default()).collect();
        let opt_ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        let mut prog: Program = std::ptr::null_mut();
        // SAFETY (this block): NVRTC calls on a program created here and destroyed at the
        // end; buffers are sized by the matching *Size call.
        unsafe {
            let rc = (self.create)(&mut prog, src.as_ptr(), cname.as_ptr(), 0, std::ptr::null(), std::ptr::null());
            if rc != 0 {
                return Err(format!("nvrtcCreateProgram failed ({rc})"));
            }
            let rc = (self.compile)(prog, opt_ptrs.len() as c_int, opt_ptrs.as_ptr());
            let result = if rc != 0 {
                let mut n = 0usize;
                (self.log_size)(prog, &mut n);
                let mut buf = vec![0u8; n.max(1)];
                (self.log)(prog, buf.as_mut_ptr() as *mut c_char);
                Err(String::from_utf8_lossy(&buf).trim_end_matches('\0').trim().to_string())
            } else {
                let (size_fn, get_fn) = if ptx { (self.ptx_size, self.ptx) } else { (self.cubin_size, self.cubin) };
                let mut n = 0usize;
                size_fn(prog, &mut n);
                let mut buf = vec![0u8; n];
                get_fn(prog, buf.as_mut_ptr() as *mut c_char);
                if ptx {
                    // Stored without its NUL; the runtime terminates it when loading.
                    while buf.last() == Some(&0) {
                        buf.pop();
                    }
                }
                Ok(buf)
            };
            (self.destroy)(&mut prog);
            result
        }
    }
}

/// What the kernel step did.
#[derive(Debug, Default)]
pub struct KernelReport {
    pub archs: Vec<String>,
    pub compiled: usize,
    pub cached: usize,
    pub seconds: f64,
    pub nvrtc_version: String,
    /// Directory of the images (`BRIDGEGEN_KERNELS` for the crate's build script).
    pub dir: PathBuf,
}

/// `$BRIDGEGEN_CACHE_DIR/nvrtc`, else `$XDG_CACHE_HOME/bridgegen/nvrtc` (~/.cache).
/// Load the NVRTC at `path` and compile an empty kernel with it (what `doctor` checks):
/// its version, or why it is unusable.
pub fn probe(path: &Path) -> Result<(i32, i32), String> {
    let nvrtc = Nvrtc::open(path)?;
    nvrtc.compile(
        "extern \"C\" __global__ void bg_probe() {}\n",
        "probe.cu",
        &["--gpu-architecture=compute_80".into()],
        true,
    )?;
    Ok(nvrtc.version)
}

pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("BRIDGEGEN_CACHE_DIR") {
        return PathBuf::from(d).join("nvrtc");
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("bridgegen").join("nvrtc")
}

/// A hash of every file under `dir` (relative path and contents), in sorted order.
fn hash_tree(dir: &Path, h: &mut Sha256) -> Result<(), Error> {
    let mut stack = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).map_err(|source| Error::Io { path: d.clone(), source })? {
            let p = e.map_err(|source| Error::Io { path: d.clone(), source })?.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    for f in files {
        h.update(f.strip_prefix(dir).unwrap_or(&f).to_string_lossy().as_bytes());
        h.update(std::fs::read(&f).map_err(|source| Error::Io { path: f.clone(), source })?);
    }
    Ok(())
}

/// The options CuPy 14 passes to NVRTC for its elementwise kernels (cupy-xsf reference
/// §2.3), plus the include directories of xsf's `"xsf/…"` spelling, of bridgegen's
/// kernel header and of its stand-in `<cmath>`. `--device-as-default-execution-space` is
/// essential: many xsf functions carry no `__device__` annotation.
fn options(tools: &CudaTools, cupy: &Path, runtime_include: &Path, arch: &str) -> Vec<String> {
    let mut o = vec![
        format!("-I{}", cupy.join("cupy/_cccl/cub").display()),
        format!("-I{}", cupy.join("cupy/_cccl/thrust").display()),
        format!("-I{}", cupy.join("cupy/_cccl/libcudacxx").display()),
        "--std=c++17".into(),
        format!("-I{}", cupy.display()),
    ];
    if let Some(cudart) = &tools.cudart_include {
        o.push(format!("-I{}", cudart.display()));
    }
    o.extend([
        "-ftz=true".into(),
        format!("-arch={arch}"),
        "--device-as-default-execution-space".into(),
        format!("-I{}", cupy.join("cupy").display()),
        format!("-I{}", runtime_include.display()),
        // Stand-ins for the C++ headers NVRTC lacks (runtime/rust/include/nvrtc/).
        format!("-I{}", runtime_include.join("nvrtc").display()),
    ]);
    o
}

/// One function's kernels: its source is `cuda/<function>.cu`.
pub struct KernelSource {
    pub function: String,
    /// Whether NVRTC may contract multiply-adds (CuPy's default; a spec's `cuda_fmad`).
    pub fmad: bool,
}

impl KernelSource {
    /// NVRTC options after CuPy's. Empty for a function with CuPy's defaults, so its cache
    /// key is the one it always had.
    fn extra_options(&self) -> Vec<String> {
        if self.fmad {
            Vec::new()
        } else {
            vec!["--fmad=false".into()]
        }
    }
}

/// What to compile, where from and where to.
pub struct Request<'a> {
    /// The generated crate; sources are `cuda/<fn>.cu` under it.
    pub crate_dir: &'a Path,
    pub functions: &'a [KernelSource],
    pub archs: &'a [String],
    pub tools: &'a CudaTools,
    /// bridgegen's device headers (`runtime/rust/include`).
    pub runtime_include: &'a Path,
    /// Emptied, then filled with `<fn>.<arch>.<cubin|ptx>`.
    pub out_dir: &'a Path,
    pub cache: &'a Path,
    pub quiet: bool,
}

/// Compile every function of the request for every architecture, through the cache.
/// Returns Ok(Err(reason)) when NVRTC or CuPy's headers are missing, so the caller can
/// build the CPU part alone; Err when a kernel fails to compile.
pub fn compile_kernels(req: &Request) -> Result<Result<KernelReport, String>, Error> {
    let Request { crate_dir, functions, archs, tools, runtime_include, out_dir, cache, quiet } = *req;
    let Some(nvrtc_path) = &tools.nvrtc else {
        return Ok(Err("NVRTC was not found in the active Python environment (pip install nvidia-cuda-nvrtc nvidia-cuda-runtime, as requirements/dev.txt pins them; or set BRIDGEGEN_NVRTC to libnvrtc.so)".into()));
    };
    let Some(cupy) = &tools.cupy_include else {
        return Ok(Err("CuPy's headers (xsf, CCCL) were not found: install cupy-cuda13x or cupy-cuda12x".into()));
    };
    let nvrtc = match Nvrtc::open(nvrtc_path) {
        Ok(n) => n,
        Err(e) => return Ok(Err(format!("cannot load NVRTC: {e}"))),
    };
    let started = Instant::now();
    let nvrtc_version = format!("{}.{}", nvrtc.version.0, nvrtc.version.1);

    // Everything but the source and arch that decides an image.
    let mut base = Sha256::new();
    base.update(b"bridgegen-nvrtc-1\0");
    base.update(nvrtc_version.as_bytes());
    hash_tree(cupy, &mut base)?;
    hash_tree(runtime_include, &mut base)?;

    std::fs::create_dir_all(cache).map_err(|source| Error::Io { path: cache.into(), source })?;
    if out_dir.exists() {
        std::fs::remove_dir_all(out_dir).map_err(|source| Error::Io { path: out_dir.into(), source })?;
    }
    std::fs::create_dir_all(out_dir).map_err(|source| Error::Io { path: out_dir.into(), source })?;

    let arch_options: Vec<Vec<String>> = archs.iter().map(|a| options(tools, cupy, runtime_include, a)).collect();
    struct Job {
        function: String,
        arch: String,
        options: Vec<String>,
        source: String,
        key: String,
    }
    let mut jobs = Vec::new();
    for ks in functions {
        let (f, extra) = (&ks.function, ks.extra_options());
        let path = crate_dir.join(crate::ir::names::kernel_source(f));
        let source = std::fs::read_to_string(&path).map_err(|source| Error::Io { path: path.clone(), source })?;
        for (arch, opts) in archs.iter().zip(&arch_options) {
            let opts: Vec<String> = opts.iter().chain(&extra).cloned().collect();
            let mut h = base.clone();
            for o in &opts {
                h.update(o.as_bytes());
                h.update(b"\0");
            }
            h.update(source.as_bytes());
            let key = h.finalize().iter().map(|b| format!("{b:02x}")).collect::<String>();
            jobs.push(Job { function: f.clone(), arch: arch.clone(), options: opts, source: source.clone(), key });
        }
    }

    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(jobs.len() as u64) };
    bar.set_style(
        ProgressStyle::with_template(
            "bridgegen: NVRTC {bar:30} {pos}/{len} kernels, {elapsed} elapsed, ~{eta} left  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let next = AtomicUsize::new(0);
    let (compiled, cached) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(jobs.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(job) = jobs.get(i) else { break };
                let ptx = job.arch.starts_with("compute_");
                let cached_file = cache.join(format!("{}.{}", job.key, if ptx { "ptx" } else { "cubin" }));
                let image = if let Ok(bytes) = std::fs::read(&cached_file) {
                    cached.fetch_add(1, Ordering::SeqCst);
                    Ok(bytes)
                } else {
                    bar.set_message(format!("{} {}", job.function, job.arch));
                    let r = nvrtc.compile(&job.source, &format!("{}.cu", job.function), &job.options, ptx);
                    if let Ok(bytes) = &r {
                        // Write then rename, so a crash never leaves a truncated cache entry.
                        let tmp = cached_file.with_extension(format!("tmp{}", std::process::id()));
                        if std::fs::write(&tmp, bytes).is_ok() {
                            let _ = std::fs::rename(&tmp, &cached_file);
                        }
                        compiled.fetch_add(1, Ordering::SeqCst);
                    }
                    r
                };
                match image {
                    Ok(bytes) => {
                        let dest = out_dir.join(crate::ir::names::kernel_image(&job.function, &job.arch));
                        if let Err(e) = std::fs::write(&dest, bytes) {
                            failures.lock().unwrap().push(format!("{}: {e}", dest.display()));
                        }
                    }
                    Err(log) => failures.lock().unwrap().push(format!("{} ({}):\n{log}", job.function, job.arch)),
                }
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    let failures = failures.into_inner().unwrap();
    if !failures.is_empty() {
        return Err(Error::Build(format!(
            "NVRTC {nvrtc_version} failed on {} kernel(s):\n{}",
            failures.len(),
            failures.join("\n\n")
        )));
    }
    Ok(Ok(KernelReport {
        archs: archs.to_vec(),
        compiled: compiled.into_inner(),
        cached: cached.into_inner(),
        seconds: started.elapsed().as_secs_f64(),
        nvrtc_version,
        dir: out_dir.to_path_buf(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_lists() {
        assert_eq!(parse_archs("sm_90,compute_80").unwrap(), ["sm_90", "compute_80"]);
        assert_eq!(parse_archs("sm_90, sm_90").unwrap(), ["sm_90"]);
        assert!(parse_archs("none").unwrap().is_empty());
        assert!(parse_archs("sm90").unwrap_err().contains("sm_XY"));
        assert!(parse_archs("").is_err());
    }
}
