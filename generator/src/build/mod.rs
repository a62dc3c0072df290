//! `bridgegen build`: generate, compile the handler crate against the active Python's
//! jaxlib headers, and package two wheels: the generated package (with its library) and
//! the shared runtime `jax_cupy_bridge`. `--install` installs both.

pub mod headers;
pub mod nvrtc;
pub mod python;
pub mod wheel;

use crate::error::Error;
use crate::ir::{names, Platform};
use std::path::{Path, PathBuf};
use std::process::Command;
use wheel::{Entry, Wheel};

pub struct BuildOptions {
    pub spec: PathBuf,
    pub jaxlib_include: Option<PathBuf>,
    /// Build against this jaxlib's headers (fetched with pip, cached) instead of the active one's.
    pub jaxlib: Option<String>,
    pub out: PathBuf,
    pub install: bool,
    /// `sm_XY` / `compute_XY` targets of the CUDA kernels; empty for a CPU-only build.
    pub cuda_archs: Vec<String>,
    /// No progress bar or step messages.
    pub quiet: bool,
    /// Print a JSON summary on stdout.
    pub json: bool,
}

/// What a build produced, for `--json`.
#[derive(Debug, Default, serde::Serialize)]
pub struct Summary {
    pub package: String,
    pub wheels: Vec<String>,
    pub library: String,
    pub jaxlib: String,
    pub header_ffi_api: String,
    pub reported_ffi_api: String,
    pub requires_jaxlib: String,
    pub cuda_archs: Vec<String>,
    pub kernels_compiled: usize,
    pub kernels_cached: usize,
    pub nvrtc: Option<String>,
    pub cuda_skipped: Option<String>,
    pub generator: String,
    pub seconds: f64,
}

/// The runtime's own library, shipped inside `jax_cupy_bridge`.
pub const RUNTIME_LIBRARY: &str = "libbridgegen_runtime.so";

static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn step(msg: &str) {
    if !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("bridgegen: {msg}");
    }
}

fn read(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|source| Error::Io { path: path.into(), source })
}

/// Every file under `dir` (skipping caches), as wheel entries under `prefix`.
fn package_files(dir: &Path, prefix: &str, out: &mut Vec<Entry>) -> Result<(), Error> {
    let mut items: Vec<_> = std::fs::read_dir(dir)
        .map_err(|source| Error::Io { path: dir.into(), source })?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    items.sort();
    for p in items {
        let name = p.file_name().unwrap_or_default().to_string_lossy().to_string();
        if name == "__pycache__" || name.ends_with(".pyc") || name.ends_with(".so") {
            continue;
        }
        let rel = format!("{prefix}/{name}");
        if p.is_dir() {
            package_files(&p, &rel, out)?;
        } else {
            out.push(Entry { path: rel, data: read(&p)?, executable: false });
        }
    }
    Ok(())
}

pub fn build(opts: &BuildOptions) -> Result<Summary, Error> {
    let started = std::time::Instant::now();
    QUIET.store(opts.quiet, std::sync::atomic::Ordering::Relaxed);
    let root = crate::project_root();
    let crate::Generated { package: pkg, dir: gen_dir, report } = crate::generate(&opts.spec, None)?;
    step(&format!("generated {} ({} files written)", gen_dir.display(), report.written.len()));
    let mut summary = Summary { package: pkg.name.clone(), generator: env!("CARGO_PKG_VERSION").into(), ..Summary::default() };

    let (jaxlib_version, include) = match (&opts.jaxlib, &opts.jaxlib_include) {
        (Some(v), _) => (v.clone(), headers::jaxlib_headers(v, opts.quiet)?),
        (None, Some(dir)) => ("unknown (--jaxlib-include)".to_string(), dir.clone()),
        (None, None) => python::jaxlib()?,
    };
    if !include.join("xla/ffi/api/c_api.h").is_file() {
        return Err(Error::Build(format!(
            "{} has no xla/ffi/api/c_api.h; pass the directory jax.ffi.include_dir() returns",
            include.display()
        )));
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);

    // CUDA kernels first: the crate's build script embeds them.
    let cuda_fns: Vec<String> =
        pkg.ufuncs.iter().filter(|u| u.platforms.contains(&Platform::Cuda)).map(|u| u.name.clone()).collect();
    let mut kernels_dir = None;
    // Found once, here: the runtime's build script takes the xsf headers from us
    // (BRIDGEGEN_XSF_INCLUDE below) instead of looking again.
    let tools = python::cuda_tools()?;
    if !cuda_fns.is_empty() && opts.cuda_archs.is_empty() {
        step("CUDA kernels skipped (--cuda-arch none): the library is CPU-only");
    } else if !cuda_fns.is_empty() {
        let out = target_dir.join("bridgegen-kernels").join(&pkg.name);
        let runtime_include = root.join("runtime/rust/include");
        let request = nvrtc::Request {
            crate_dir: &gen_dir.join("rust"),
            functions: &cuda_fns,
            archs: &opts.cuda_archs,
            tools: &tools,
            runtime_include: &runtime_include,
            out_dir: &out,
            cache: &nvrtc::cache_dir(),
            quiet: opts.quiet,
        };
        match nvrtc::compile_kernels(&request)? {
            Ok(r) => {
                summary.cuda_archs = r.archs.clone();
                summary.kernels_compiled = r.compiled;
                summary.kernels_cached = r.cached;
                summary.nvrtc = Some(r.nvrtc_version.clone());
                step(&format!(
                    "CUDA kernels for {} functions, {}: {} compiled, {} cached, NVRTC {}, {:.0} s",
                    cuda_fns.len(),
                    r.archs.join(" "),
                    r.compiled,
                    r.cached,
                    r.nvrtc_version,
                    r.seconds
                ));
                kernels_dir = Some(r.dir);
            }
            Err(why) => {
                eprintln!("bridgegen: warning: CUDA kernels skipped: {why}. The library is CPU-only.");
                summary.cuda_skipped = Some(why);
            }
        }
    }

    step(&format!("compiling against {} (jaxlib {jaxlib_version})", include.display()));
    let crate_name = names::crate_name(&pkg.name);
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .args(["build", "--release", "-p", &crate_name, "-p", "bridgegen-runtime", "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        .env("BRIDGEGEN_JAXLIB_INCLUDE", &include)
        .env("BRIDGEGEN_PYTHON", python::interpreter());
    if let Some(cupy) = &tools.cupy_include {
        cargo.env("BRIDGEGEN_XSF_INCLUDE", cupy.join("cupy"));
    }
    if opts.quiet {
        cargo.arg("--quiet");
    }
    // The build's facts, stamped into the library and (as _build.py) the Python package.
    let (hmaj, hmin) = headers::header_api_version(&include).unwrap_or((0, 0));
    let (rmaj, rmin) = crate::reported_ffi_api();
    summary.jaxlib = jaxlib_version.clone();
    summary.header_ffi_api = format!("{hmaj}.{hmin}");
    summary.reported_ffi_api = format!("{rmaj}.{rmin}");
    summary.requires_jaxlib = headers::requires_jaxlib();
    let info = serde_json::json!({
        "generator": summary.generator,
        "jaxlib": summary.jaxlib,
        "header_ffi_api": summary.header_ffi_api,
        "reported_ffi_api": summary.reported_ffi_api,
        "cuda_archs": summary.cuda_archs.join(" "),
        "jaxlib_range": headers::jaxlib_range(),
    })
    .to_string();
    cargo.env("BRIDGEGEN_BUILD_INFO", &info);
    match &kernels_dir {
        Some(d) => cargo.env("BRIDGEGEN_KERNELS", d),
        None => cargo.env_remove("BRIDGEGEN_KERNELS"),
    };
    let status = cargo.status().map_err(|e| Error::Build(format!("cannot run cargo: {e}")))?;
    if !status.success() {
        return Err(Error::Build(format!("cargo build of {crate_name} failed (see the compiler output above)")));
    }
    let lib_file = names::library_file(&pkg.name);
    let lib = read(&target_dir.join("release").join(&lib_file))?;

    // The generated package, with its library inside the package directory.
    let mut entries = Vec::new();
    package_files(&gen_dir.join("python").join(&pkg.name), &pkg.name, &mut entries)?;
    entries.push(Entry { path: format!("{}/{lib_file}", pkg.name), data: lib.clone(), executable: true });
    entries.push(Entry {
        path: format!("{}/_build.py", pkg.name),
        data: format!(
            "\"\"\"Written by `bridgegen build`: what this build used (the library carries the same).\"\"\"\n\nBUILD_INFO = {info:?}\n"
        )
        .into_bytes(),
        executable: false,
    });
    let runtime_version = env!("CARGO_PKG_VERSION");
    let range = headers::requires_jaxlib();
    let metadata = format!(
        "Metadata-Version: 2.1\nName: {}\nVersion: {}\nSummary: {}\nRequires-Python: >=3.10\nRequires-Dist: jax{range}\nRequires-Dist: jaxlib{range}\nRequires-Dist: jax-cupy-bridge=={runtime_version}\n",
        pkg.name.replace('_', "-"),
        pkg.version,
        pkg.summary
    );
    let pkg_wheel = Wheel {
        name: pkg.name.clone(),
        version: pkg.version.clone(),
        tag: wheel::manylinux_tag(&lib),
        metadata,
        entries,
    }
    .write(&opts.out)?;

    // The shared runtime: Python plus its own library (the callback handlers of
    // cupy_lazy_apply), so platform-tagged like the package.
    let mut entries = Vec::new();
    package_files(&root.join("runtime/python/jax_cupy_bridge"), "jax_cupy_bridge", &mut entries)?;
    let rt_lib = read(&target_dir.join("release").join(RUNTIME_LIBRARY))?;
    let rt_tag = wheel::manylinux_tag(&rt_lib);
    entries.push(Entry { path: format!("jax_cupy_bridge/{RUNTIME_LIBRARY}"), data: rt_lib, executable: true });
    let metadata = format!(
        "Metadata-Version: 2.1\nName: jax-cupy-bridge\nVersion: {runtime_version}\nSummary: Shared runtime of bridgegen packages\nRequires-Python: >=3.10\nRequires-Dist: jax>=0.7.2\nRequires-Dist: numpy>=1.26\n"
    );
    let rt_wheel = Wheel {
        name: "jax_cupy_bridge".into(),
        version: runtime_version.into(),
        tag: rt_tag,
        metadata,
        entries,
    }
    .write(&opts.out)?;
    step(&format!("wrote {}", pkg_wheel.display()));
    step(&format!("wrote {}", rt_wheel.display()));
    summary.wheels = vec![pkg_wheel.display().to_string(), rt_wheel.display().to_string()];
    summary.library = lib_file.clone();

    if opts.install {
        let py = python::interpreter();
        let status = Command::new(&py)
            .args(["-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps"])
            .arg(&rt_wheel)
            .arg(&pkg_wheel)
            .status()
            .map_err(|e| Error::Build(format!("cannot run {py} -m pip: {e}")))?;
        if !status.success() {
            return Err(Error::Build("pip install of the built wheels failed".into()));
        }
        step(&format!("installed {} and jax_cupy_bridge into {py}", pkg.name));
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}
