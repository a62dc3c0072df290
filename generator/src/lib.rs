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

pub mod abi;
pub mod build;
pub mod cli;
pub mod diag;
pub mod doctor;
pub mod emit;
pub mod error;
pub mod fs;
pub mod ir;
pub mod spec;
pub mod templates;

use error::Error;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Parse and check a spec from text. `origin` names it in diagnostics.
pub fn load_str(origin: &str, source: &str) -> Result<ir::Package, Error> {
    let mut diags = diag::Diagnostics::default();
    let hash = format!("{:x}", Sha256::digest(source.replace("\r\n", "\n").as_bytes()));
    let lowered = spec::parse(source, &mut diags).and_then(|raw| ir::lower::lower(raw, origin, hash, &mut diags));
    match lowered {
        Some(pkg) if diags.is_empty() => Ok(pkg),
        _ => Err(Error::Spec(diags.render(origin, source))),
    }
}

/// Parse and check a spec file.
pub fn load(path: &Path) -> Result<ir::Package, Error> {
    let source = fs::read(path)?;
    load_str(&display_path(path), &source)
}

/// How a spec path is shown in banners and diagnostics: relative to the project root
/// when inside it, so generated output does not depend on where the checkout lives.
pub fn display_path(path: &Path) -> String {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let root = std::fs::canonicalize(project_root()).unwrap_or_else(|_| project_root());
    match abs.strip_prefix(root) {
        Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

/// The bridgegen checkout (holding `runtime/`), or `BRIDGEGEN_ROOT` when set.
pub fn project_root() -> PathBuf {
    if let Some(root) = std::env::var_os("BRIDGEGEN_ROOT") {
        return PathBuf::from(root);
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

/// Default output directory of a package: `<root>/generated/<package>`.
pub fn default_out_dir(pkg: &ir::Package) -> PathBuf {
    project_root().join("generated").join(&pkg.name)
}

/// Render a package for `out_dir` (which fixes the relative path to the runtime crate).
pub fn render(pkg: &ir::Package, out_dir: &Path) -> Result<emit::Output, Error> {
    let out_abs = std::path::absolute(out_dir).map_err(|source| Error::Io { path: out_dir.into(), source })?;
    let runtime = fs::relative_path(&out_abs.join("rust"), &project_root().join("runtime").join("rust"));
    emit::emit_package(pkg, &runtime).map_err(Error::Internal)
}

/// What `generate` produced.
pub struct Generated {
    pub package: ir::Package,
    pub dir: PathBuf,
    pub report: fs::WriteReport,
}

/// `bridgegen generate`: write the package, touching only changed files.
pub fn generate(spec: &Path, out_dir: Option<&Path>) -> Result<Generated, Error> {
    let package = load(spec)?;
    let dir = out_dir.map_or_else(|| default_out_dir(&package), Path::to_path_buf);
    let out = render(&package, &dir)?;
    let report = fs::write_output(&dir, &out)?;
    Ok(Generated { package, dir, report })
}

/// `bridgegen check`: error naming each stale file when `dir` differs from fresh output.
pub fn check(spec: &Path, out_dir: Option<&Path>) -> Result<PathBuf, Error> {
    let pkg = load(spec)?;
    let dir = out_dir.map_or_else(|| default_out_dir(&pkg), Path::to_path_buf);
    let out = render(&pkg, &dir)?;
    let stale = fs::stale_files(&dir, &out)?;
    if stale.is_empty() {
        Ok(dir)
    } else {
        Err(Error::Stale(stale))
    }
}
