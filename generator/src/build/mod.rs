//! `bridgegen build`: generate, compile the handler crate against the active Python's
//! jaxlib headers, and package wheels: the generated package (with its library) and
//! the runtime packages it needs (`bridgegen_runtime`, and `jax_cupy_bridge` for
//! `[[function]]` entries). `--install` installs them all.

pub mod headers;
pub mod nvrtc;
pub mod python;
pub mod sdist;
pub mod wheel;

use crate::error::Error;
use crate::ir::{names, Platform};
use crate::runtime_src;
use std::path::{Path, PathBuf};
use std::process::Command;
use wheel::{Entry, Wheel};

pub struct BuildOptions {
    pub spec: PathBuf,
    /// Where the package is generated (default: generated/<package> under the working directory).
    pub generated: Option<PathBuf>,
    pub jaxlib_include: Option<PathBuf>,
    /// Build against this jaxlib's headers (fetched with pip, cached) instead of the active one's.
    pub jaxlib: Option<String>,
    pub out: PathBuf,
    pub install: bool,
    /// Also write the runtime packages' wheels; an sdist's build leaves them out.
    pub runtime_wheel: bool,
    /// `sm_XY` / `compute_XY` targets of the CUDA kernels; empty for a CPU-only build.
    pub cuda_archs: Vec<String>,
    /// The targets were given (`--cuda-arch`): no usable NVRTC is then an error.
    pub cuda_arch_explicit: bool,
    /// `--cuda 12|13`: that CUDA's NVRTC, and the wheel variant `<package>-cuda<N>`.
    pub cuda: Option<u32>,
    /// `--jaxlib-newest`: a packager's wider newest end of the admitted jaxlib range.
    pub jaxlib_newest: Option<String>,
    /// `--glibc 2.28`: link against that glibc (cargo-zigbuild), for manylinux_2_28 wheels.
    pub glibc: Option<String>,
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

/// The runtime crate's own library, shipped inside `jax_cupy_bridge` (runtime/abi.toml).
fn runtime_library() -> &'static str {
    &crate::abi::abi().delegation.library
}

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
    // Found once, here: headers are checked against it, and the runtime's build script
    // takes the xsf headers from us (BRIDGEGEN_XSF_INCLUDE below) instead of looking again.
    let tools = python::cuda_tools_for(opts.cuda)?;
    let headers_root = tools.cupy_include.as_ref().map(|c| c.join("cupy"));
    let cuda_required = opts.cuda.is_some() || opts.cuda_arch_explicit;
    if let Some(v) = opts.cuda {
        if opts.cuda_archs.is_empty() {
            return Err(Error::Build(format!("--cuda {v} builds CUDA kernels: --cuda-arch none contradicts it")));
        }
        if tools.nvrtc.is_none() {
            let pkgs = if v == 12 {
                "nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12"
            } else {
                "nvidia-cuda-nvrtc nvidia-cuda-runtime (13.x)"
            };
            return Err(Error::Build(format!(
                "--cuda {v}: no CUDA {v} NVRTC in the Python `{}`: pip install {pkgs} (pinned in requirements/dev.txt)",
                python::interpreter()
            )));
        }
    }
    let crate::Generated { package: pkg, dir: gen_dir, report } =
        crate::generate_in(&opts.spec, opts.generated.as_deref(), headers_root.as_deref())?;
    step(&format!("generated {} ({} files written)", gen_dir.display(), report.written.len()));
    let mut summary =
        Summary { package: pkg.name.clone(), generator: env!("CARGO_PKG_VERSION").into(), ..Summary::default() };

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
    let target_dir = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| gen_dir.join("target"), PathBuf::from);
    let target_dir =
        std::path::absolute(&target_dir).map_err(|source| Error::Io { path: target_dir.clone(), source })?;
    let vendored_runtime = gen_dir.join(crate::runtime_src::VENDORED[0].0);

    // CUDA kernels first: the crate's build script embeds them.
    let cuda_fns: Vec<nvrtc::KernelSource> = pkg
        .ufuncs
        .iter()
        .filter(|u| u.platforms.contains(&Platform::Cuda))
        .map(|u| nvrtc::KernelSource { function: u.name.clone(), fmad: u.cuda_fmad })
        .collect();
    let mut kernels_dir = None;
    if !cuda_fns.is_empty() && opts.cuda_archs.is_empty() {
        step("CUDA kernels skipped (--cuda-arch none): the library is CPU-only");
    } else if !cuda_fns.is_empty() {
        let out = target_dir.join("bridgegen-kernels").join(&pkg.name);
        let runtime_include = vendored_runtime.join("include");
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
            Ok(r) if opts.cuda.is_some_and(|v| !r.nvrtc_version.starts_with(&format!("{v}."))) => {
                return Err(Error::Build(format!(
                    "--cuda {}: the NVRTC found is {}; point BRIDGEGEN_NVRTC at CUDA {}'s libnvrtc",
                    opts.cuda.unwrap_or_default(),
                    r.nvrtc_version,
                    opts.cuda.unwrap_or_default()
                )));
            }
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
            Err(why) if cuda_required => {
                return Err(Error::Build(format!(
                    "CUDA kernels were asked for (--cuda-arch/--cuda) but cannot be built: {why}; install NVRTC \
                     (pip install nvidia-cuda-nvrtc nvidia-cuda-runtime) or pass --cuda-arch none"
                )));
            }
            Err(why) => {
                eprintln!("bridgegen: warning: CUDA kernels skipped: {why}. The library is CPU-only.");
                summary.cuda_skipped = Some(why);
            }
        }
    }

    step(&format!("compiling against {} (jaxlib {jaxlib_version})", include.display()));
    let crate_name = names::crate_name(&pkg.name);
    let workspace =
        CargoWorkspace { manifest: &gen_dir.join("Cargo.toml"), target_dir: &target_dir, include: &include };
    let (mut cargo, release_dir) = workspace.command(opts.glibc.as_deref(), &tools, opts.quiet)?;
    cargo.args(["-p", &crate_name, "-p", "bridgegen-runtime"]);
    // The build's facts, stamped into the library and (as _build.py) the Python package.
    let (hmaj, hmin) = headers::header_api_version(&include).unwrap_or((0, 0));
    let (rmaj, rmin) = crate::reported_ffi_api();
    summary.jaxlib = jaxlib_version.clone();
    summary.header_ffi_api = format!("{hmaj}.{hmin}");
    summary.reported_ffi_api = format!("{rmaj}.{rmin}");
    let range = headers::JaxlibRange::new(opts.jaxlib_newest.as_deref());
    if let Some(v) = &opts.jaxlib_newest {
        eprintln!(
            "bridgegen: warning: admitting jaxlib up to {v}, beyond the newest release tested ({}): do so only after \
             running your tests on it (docs/releasing.md)",
            headers::jaxlib_range().1
        );
    }
    summary.requires_jaxlib = range.specifier();
    let info = serde_json::json!({
        "generator": summary.generator,
        "jaxlib": summary.jaxlib,
        "header_ffi_api": summary.header_ffi_api,
        "reported_ffi_api": summary.reported_ffi_api,
        "cuda_archs": summary.cuda_archs.join(" "),
        "nvrtc": summary.nvrtc.clone().unwrap_or_default(),
        "jaxlib_range": (&range.oldest, &range.newest),
        "jaxlib_excluded": &range.excluded,
    })
    .to_string();
    cargo.env("BRIDGEGEN_BUILD_INFO", &info);
    match &kernels_dir {
        Some(d) => cargo.env("BRIDGEGEN_KERNELS", d),
        None => cargo.env_remove("BRIDGEGEN_KERNELS"),
    };
    let (status, in_spec) = run_reporting_spec_errors(cargo, &pkg.spec_files)?;
    if !status.success() {
        if !in_spec.is_empty() {
            return Err(Error::Build(format!(
                "the C++ of {} does not compile (compiler output above):\n{}\nhelp: fix the spec's `expr`/`prelude` \
                 at these lines (its headers, function names and argument types)",
                pkg.spec_path,
                in_spec.iter().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n")
            )));
        }
        return Err(Error::Build(format!("cargo build of {crate_name} failed (see the compiler output above)")));
    }
    let lib_file = names::library_file(&pkg.name);
    let lib = read(&release_dir.join(&lib_file))?;

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
    // CUDA variants are distributions of their own (CuPy's and jax's plugins' scheme):
    // `jax-xsf-cuda12` / `jax-xsf-cuda13`, each holding the module `jax_xsf`.
    let dist = match opts.cuda {
        Some(v) => format!("{}_cuda{v}", pkg.name),
        None => pkg.name.clone(),
    };
    let range = summary.requires_jaxlib.clone();
    let runtime = runtime_src::needed(!pkg.functions.is_empty());
    let mut metadata = format!(
        "Metadata-Version: 2.1\nName: {}\nVersion: {}\nSummary: {}\nRequires-Python: >=3.10\nRequires-Dist: jax{range}\nRequires-Dist: jaxlib{range}\n",
        dist.replace('_', "-"),
        pkg.version,
        crate::emit::escape::metadata_line(&pkg.summary)
    );
    for r in &runtime {
        metadata += &format!("Requires-Dist: {}\n", r.pin());
    }
    metadata += &opts.cuda.map(|v| format!("Requires-Dist: jax-cuda{v}-plugin{range}\n")).unwrap_or_default();
    let pkg_wheel =
        Wheel { name: dist.clone(), version: pkg.version.clone(), tag: wheel::manylinux_tag(&lib), metadata, entries }
            .write(&opts.out)?;

    let mut wheels = vec![pkg_wheel];
    if opts.runtime_wheel {
        for r in runtime {
            let python = r.files().map(|(rel, contents)| (rel.to_string(), contents.as_bytes().to_vec())).collect();
            let library = r.native.then(|| release_dir.join(runtime_library()));
            wheels.push(runtime_wheel(r, python, library.as_deref(), &opts.out)?);
        }
    }
    for w in &wheels {
        step(&format!("wrote {}", w.display()));
    }
    summary.wheels = wheels.iter().map(|w| w.display().to_string()).collect();
    summary.library = lib_file.clone();

    if opts.install {
        let py = python::interpreter();
        let status = Command::new(&py)
            .args(["-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps"])
            .args(wheels.iter().rev())
            .status()
            .map_err(|e| Error::Build(format!("cannot run {py} -m pip: {e}")))?;
        if !status.success() {
            return Err(Error::Build("pip install of the built wheels failed".into()));
        }
        step(&format!(
            "installed {} into {py}",
            wheels.iter().map(|w| w.display().to_string()).collect::<Vec<_>>().join(" and ")
        ));
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Run cargo, passing its stderr through, and collect the compiler's errors located in the
/// spec's files (`<spec>:LINE:COL: error: ...`: the host C++ carries `#line` directives into it).
fn run_reporting_spec_errors(
    mut cargo: Command,
    spec_files: &[String],
) -> Result<(std::process::ExitStatus, Vec<String>), Error> {
    use std::io::{BufRead, Write};
    let mut child = cargo
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| Error::Build(format!("cannot run cargo: {e}")))?;
    let mut in_spec = Vec::new();
    let prefixes: Vec<String> = spec_files.iter().map(|f| format!("{f}:")).collect();
    if let Some(stderr) = child.stderr.take() {
        let mut err = std::io::stderr().lock();
        for line in std::io::BufReader::new(stderr).split(b'\n').map_while(Result::ok) {
            let _ = err.write_all(&line).and_then(|_| err.write_all(b"\n"));
            let text = String::from_utf8_lossy(&line);
            // cargo indents a failed build script's output, or prefixes `warning: pkg@v: `.
            if let Some(at) = prefixes.iter().filter_map(|p| text.find(p.as_str())).min() {
                let located = text[at..].trim_end();
                if located.contains(": error: ") && !in_spec.iter().any(|l| l == located) {
                    in_spec.push(located.to_string());
                }
            }
        }
    }
    let status = child.wait().map_err(|e| Error::Build(format!("cannot run cargo: {e}")))?;
    Ok((status, in_spec))
}

/// A runtime package's wheel: its Python (path below the package -> contents) and, for
/// the delegation, the runtime crate's library (its callback handlers; platform-tagged).
fn runtime_wheel(
    pkg: runtime_src::PythonPackage,
    python: Vec<(String, Vec<u8>)>,
    library: Option<&Path>,
    out: &Path,
) -> Result<PathBuf, Error> {
    let mut entries: Vec<Entry> = python
        .into_iter()
        .map(|(rel, data)| Entry { path: format!("{}/{rel}", pkg.module), data, executable: false })
        .collect();
    let tag = match library {
        Some(library) => {
            let lib = read(library)?;
            let tag = wheel::manylinux_tag(&lib);
            entries.push(Entry { path: format!("{}/{}", pkg.module, runtime_library()), data: lib, executable: true });
            tag
        }
        None => wheel::PURE_TAG.to_string(),
    };
    let mut metadata = format!(
        "Metadata-Version: 2.1\nName: {}\nVersion: {}\nSummary: {}\nRequires-Python: >=3.10\n",
        pkg.dist,
        pkg.version(),
        pkg.summary
    );
    for d in pkg.requires() {
        metadata += &format!("Requires-Dist: {d}\n");
    }
    Wheel { name: pkg.module.into(), version: pkg.version().into(), tag, metadata, entries }.write(out)
}

/// `bridgegen build-runtime`: the runtime's wheel from a runtime source tree (what
/// `bridgegen sdist` writes for jax_cupy_bridge: a workspace with the runtime crate under
/// vendor/ and its Python under python/).
pub fn build_runtime(source: &Path, jaxlib_include: Option<&Path>, out: &Path, quiet: bool) -> Result<PathBuf, Error> {
    QUIET.store(quiet, std::sync::atomic::Ordering::Relaxed);
    let include = match jaxlib_include {
        Some(dir) => dir.to_path_buf(),
        None => python::jaxlib()?.1,
    };
    let tools = python::cuda_tools()?;
    let target_dir = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| source.join("target"), PathBuf::from);
    let target_dir =
        std::path::absolute(&target_dir).map_err(|source| Error::Io { path: target_dir.clone(), source })?;
    let workspace = CargoWorkspace { manifest: &source.join("Cargo.toml"), target_dir: &target_dir, include: &include };
    let (mut cargo, release_dir) = workspace.command(None, &tools, quiet)?;
    cargo.args(["-p", "bridgegen-runtime"]);
    let status = cargo.status().map_err(|e| Error::Build(format!("cannot run cargo: {e}")))?;
    if !status.success() {
        return Err(Error::Build("cargo build of bridgegen-runtime failed (see the compiler output above)".into()));
    }
    let pkg = runtime_src::DELEGATION;
    let dir = source.join("python").join(pkg.module);
    let mut python = Vec::new();
    for e in std::fs::read_dir(&dir).map_err(|source| Error::Io { path: dir.clone(), source })? {
        let p = e.map_err(|source| Error::Io { path: dir.clone(), source })?.path();
        if p.extension().is_some_and(|x| x == "py") {
            python.push((p.file_name().unwrap_or_default().to_string_lossy().into_owned(), read(&p)?));
        }
    }
    python.sort();
    let wheel = runtime_wheel(pkg, python, Some(&release_dir.join(runtime_library())), out)?;
    step(&format!("wrote {}", wheel.display()));
    Ok(wheel)
}

/// A generated (or sdist's) Cargo workspace to build against one jaxlib's headers.
struct CargoWorkspace<'a> {
    manifest: &'a Path,
    target_dir: &'a Path,
    include: &'a Path,
}

impl CargoWorkspace<'_> {
    /// The cargo command (packages still to add) and where its libraries land: the jaxlib
    /// and xsf headers, and the Python the build scripts ask, passed to the build scripts.
    fn command(
        &self,
        glibc: Option<&str>,
        tools: &python::CudaTools,
        quiet: bool,
    ) -> Result<(Command, PathBuf), Error> {
        let (mut cargo, release_dir) = cargo_build(glibc, self.target_dir)?;
        cargo
            .arg("--manifest-path")
            .arg(self.manifest)
            .arg("--target-dir")
            .arg(self.target_dir)
            .env("BRIDGEGEN_JAXLIB_INCLUDE", self.include)
            .env("BRIDGEGEN_PYTHON", python::interpreter());
        if let Some(cupy) = &tools.cupy_include {
            cargo.env("BRIDGEGEN_XSF_INCLUDE", cupy.join("cupy"));
        }
        if quiet {
            cargo.arg("--quiet");
        }
        Ok((cargo, release_dir))
    }
}

/// `cargo build --release`, or with `glibc` (`2.28`) `cargo zigbuild` for
/// x86_64-unknown-linux-gnu at that glibc (zig's clang and a static libc++ for the C++
/// loops), and the directory the libraries land in.
fn cargo_build(glibc: Option<&str>, target_dir: &Path) -> Result<(Command, PathBuf), Error> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    match glibc {
        None => {
            let mut c = Command::new(cargo);
            c.args(["build", "--release"]);
            Ok((c, target_dir.join("release")))
        }
        Some(v) => {
            if !v.split('.').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())) || !v.starts_with("2.") {
                return Err(Error::Build(format!("--glibc {v:?} is not a glibc version like 2.28")));
            }
            let zig = Command::new("cargo-zigbuild").arg("--version").output();
            if !zig.is_ok_and(|o| o.status.success()) {
                return Err(Error::Build(format!(
                    "--glibc {v} builds with cargo-zigbuild, which is not on PATH: pip install cargo-zigbuild ziglang \
                     (pinned in requirements/dev.txt)"
                )));
            }
            let triple = "x86_64-unknown-linux-gnu";
            let mut c = Command::new(cargo);
            c.args(["zigbuild", "--release", "--target", &format!("{triple}.{v}")]);
            Ok((c, target_dir.join(triple).join("release")))
        }
    }
}
