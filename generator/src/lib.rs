//! bridgegen: TOML spec -> validated IR -> generated Rust FFI crate + Python package.
//!
//! Phases: `spec::parse` (TOML -> raw serde model), `ir::lower::lower` (checks ->
//! IR), `emit::emit_package` (IR -> files), `fs` (write/check), `build` (compile
//! against local jaxlib headers and package a wheel). Each phase reports all its
//! errors at once through `diag::Diagnostics`.

/// The FFI API version bridgegen-runtime's handlers report (runtime/abi.toml): stamped
/// into the contract, the build facts and `doctor`'s report.
pub fn reported_ffi_api() -> (i32, i32) {
    abi::abi().reported_ffi_api
}

/// What `bridgegen --version` prints: the generator, the runtime it vendors and packages,
/// the FFI API its handlers report and the jaxlib range its packages admit.
pub fn version_line() -> String {
    let (maj, min) = reported_ffi_api();
    format!(
        "{v} (runtime: bridgegen_runtime {core}, jax_cupy_bridge {deleg}, crate bridgegen-runtime {v}; XLA FFI API {maj}.{min} reported; jaxlib {range})",
        v = env!("CARGO_PKG_VERSION"),
        core = runtime_src::CORE.version(),
        deleg = runtime_src::DELEGATION.version(),
        range = build::headers::requires_jaxlib()
    )
}

pub mod abi;
pub mod build;
pub mod cli;
pub mod diag;
pub mod doctor;
pub mod emit;
pub mod error;
pub mod fs;
pub mod ir;
pub mod runtime_src;
pub mod spec;
pub mod templates;

use error::Error;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Parse and check a spec from text. `origin` names it in diagnostics; files it includes
/// are read relative to `origin`'s directory.
pub fn load_str(origin: &str, source: &str) -> Result<ir::Package, Error> {
    load_str_in(origin, source, None)
}

/// As `load_str`, also checking that every header exists under `headers_root`.
pub fn load_str_in(origin: &str, source: &str, headers_root: Option<&Path>) -> Result<ir::Package, Error> {
    let dir = Path::new(origin).parent().unwrap_or(Path::new(""));
    load_source(origin, source, dir, headers_root)
}

/// Parse and check a spec from text, reading the files it includes under `dir`; each
/// is named in diagnostics and `#line` as `origin`'s directory joined with its path.
pub fn load_source(origin: &str, source: &str, dir: &Path, headers_root: Option<&Path>) -> Result<ir::Package, Error> {
    let mut sources = diag::SourceMap::default();
    sources.add(origin, source);
    let shown_dir = origin.rsplit_once('/').map(|(d, _)| format!("{d}/")).unwrap_or_default();
    let read = |rel: &str| {
        let path = dir.join(rel);
        std::fs::read_to_string(&path).map(|t| (format!("{shown_dir}{rel}"), t)).map_err(|e| e.to_string())
    };
    let mut diags = diag::Diagnostics::default();
    let raw = spec::parse(&mut sources, &read, &mut diags);
    // Every file's text (CRLF as LF); a spec without includes hashes as its own text did.
    let mut hash = Sha256::new();
    for (k, f) in sources.files.iter().enumerate() {
        if k > 0 {
            hash.update(format!("\0{}\0", &f.origin[shown_dir.len()..]).as_bytes());
        }
        hash.update(sources.text_of(f).replace("\r\n", "\n").as_bytes());
    }
    let hash = format!("{:x}", hash.finalize());
    let lowered = raw.and_then(|raw| ir::lower::lower(raw, &sources, hash, &mut diags, headers_root));
    match lowered {
        Some(pkg) if diags.is_empty() => Ok(pkg),
        _ => Err(Error::Spec(diags.render(&sources))),
    }
}

/// Parse and check a spec file; headers are checked to exist when BRIDGEGEN_XSF_INCLUDE
/// names their root (`build` checks them against the root it found).
pub fn load(path: &Path) -> Result<ir::Package, Error> {
    let root = std::env::var_os("BRIDGEGEN_XSF_INCLUDE").map(PathBuf::from);
    load_in(path, root.as_deref())
}

/// Parse and check a spec file, headers checked under `headers_root`.
pub fn load_in(path: &Path, headers_root: Option<&Path>) -> Result<ir::Package, Error> {
    let source = fs::read(path)?;
    load_source(&display_path(path), &source, path.parent().unwrap_or(Path::new("")), headers_root)
}

/// How a spec path is shown in banners and diagnostics: relative to the working directory
/// when inside it, so generated output does not depend on where the project lives.
pub fn display_path(path: &Path) -> String {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let cwd = std::env::current_dir().and_then(std::fs::canonicalize).unwrap_or_default();
    match abs.strip_prefix(cwd) {
        Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

/// Default output directory of a package: `generated/<package>` under the working directory.
pub fn default_out_dir(pkg: &ir::Package) -> PathBuf {
    PathBuf::from("generated").join(&pkg.name)
}

/// Render every file of a package: its own and the vendored runtime crates.
pub fn render(pkg: &ir::Package) -> Result<emit::Output, Error> {
    emit::emit_package(pkg).map_err(Error::Internal)
}

/// What `generate` produced.
pub struct Generated {
    pub package: ir::Package,
    pub dir: PathBuf,
    pub report: fs::WriteReport,
}

/// `bridgegen generate`: write the package, touching only changed files.
pub fn generate(spec: &Path, out_dir: Option<&Path>) -> Result<Generated, Error> {
    let root = std::env::var_os("BRIDGEGEN_XSF_INCLUDE").map(PathBuf::from);
    generate_in(spec, out_dir, root.as_deref())
}

/// As `generate`, headers checked to exist under `headers_root` (what `build` found).
pub fn generate_in(spec: &Path, out_dir: Option<&Path>, headers_root: Option<&Path>) -> Result<Generated, Error> {
    let package = load_in(spec, headers_root)?;
    let dir = out_dir.map_or_else(|| default_out_dir(&package), Path::to_path_buf);
    let out = render(&package)?;
    let report = fs::write_output(&dir, &out)?;
    Ok(Generated { package, dir, report })
}

/// `bridgegen check`: error naming each stale file when `dir` differs from fresh output.
pub fn check(spec: &Path, out_dir: Option<&Path>) -> Result<PathBuf, Error> {
    let pkg = load(spec)?;
    let dir = out_dir.map_or_else(|| default_out_dir(&pkg), Path::to_path_buf);
    let out = render(&pkg)?;
    let stale = fs::stale_files(&dir, &out)?;
    if stale.is_empty() {
        Ok(dir)
    } else {
        Err(Error::Stale(stale))
    }
}
