//! jaxlib's FFI headers for `bridgegen build --jaxlib VERSION`: the `jaxlib/include/` of
//! that version's wheel, fetched once with pip (no install) and cached, so packagers can
//! build against any jaxlib from one environment.

use super::python;
use crate::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The jaxlib range built wheels admit (runtime/abi.toml): the oldest whose FFI accepts the
/// version handlers report, and the newest the Python suite passed on.
pub fn jaxlib_range() -> (&'static str, &'static str) {
    let abi = crate::abi::abi();
    (&abi.jaxlib_oldest, &abi.jaxlib_newest_tested)
}

/// The jaxlib releases a build admits: runtime/abi.toml's range and exclusions, the newest
/// end replaced by `newest` when a packager widens it (`build --jaxlib-newest`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct JaxlibRange {
    pub oldest: String,
    pub newest: String,
    pub excluded: Vec<String>,
}

impl JaxlibRange {
    pub fn new(newest: Option<&str>) -> JaxlibRange {
        let abi = crate::abi::abi();
        let mut range = JaxlibRange {
            oldest: abi.jaxlib_oldest.clone(),
            newest: newest.map_or_else(|| abi.jaxlib_newest_tested.clone(), str::to_string),
            excluded: abi.jaxlib_not_tested.clone(),
        };
        // A release under test (scripts/release_check.sh, trixie_suite.sh) is admitted by
        // the build that tests it, and by no other.
        if let Ok(v) = std::env::var("BRIDGEGEN_JAXLIB_UNDER_TEST") {
            range.excluded.retain(|e| *e != v);
            let key = |s: &str| s.split('.').map(|p| p.parse::<u64>().unwrap_or(0)).collect::<Vec<_>>();
            if key(&v) > key(&range.newest) {
                range.newest = v;
            }
        }
        range
    }

    /// As a requirement specifier: `>=0.7.2,<=0.12.1,!=0.11.0,...`.
    pub fn specifier(&self) -> String {
        let mut s = format!(">={},<={}", self.oldest, self.newest);
        for v in &self.excluded {
            s.push_str(&format!(",!={v}"));
        }
        s
    }
}

/// The default range as a requirement specifier.
pub fn requires_jaxlib() -> String {
    JaxlibRange::new(None).specifier()
}

fn cache_root() -> PathBuf {
    super::nvrtc::cache_dir().parent().map(Path::to_path_buf).unwrap_or_else(std::env::temp_dir).join("jaxlib")
}

/// The include directory of jaxlib `version`, fetched on first use.
pub fn jaxlib_headers(version: &str, quiet: bool) -> Result<PathBuf, Error> {
    if version.is_empty() || !version.split('.').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())) {
        return Err(Error::Build(format!("--jaxlib {version:?} is not a version like 0.10.2")));
    }
    let dir = cache_root().join(version);
    let include = dir.join("include");
    // Written last: a fetch or extraction cut short leaves no marker, and is redone.
    let complete = dir.join("COMPLETE");
    if complete.is_file() && include.join("xla/ffi/api/c_api.h").is_file() {
        return Ok(include);
    }
    let _ = std::fs::remove_dir_all(&include);
    let download = dir.join("download");
    std::fs::create_dir_all(&download).map_err(|source| Error::Io { path: download.clone(), source })?;
    if !quiet {
        eprintln!("bridgegen: fetching the headers of jaxlib {version} (pip download, cached in {})", dir.display());
    }
    let py = python::interpreter();
    // Any wheel of the version carries the same headers; these tags cover 0.7 to 0.12.
    let out = Command::new(&py)
        .args(["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--python-version", "3.12"])
        .args(["--platform", "manylinux_2_27_x86_64", "--platform", "manylinux2014_x86_64", "-d"])
        .arg(&download)
        .arg(format!("jaxlib=={version}"))
        .output()
        .map_err(|e| Error::Build(format!("cannot run {py} -m pip: {e}")))?;
    if !out.status.success() {
        return Err(Error::Build(format!(
            "pip could not fetch jaxlib {version}: {}",
            String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("")
        )));
    }
    let wheel = std::fs::read_dir(&download)
        .map_err(|source| Error::Io { path: download.clone(), source })?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .ok_or_else(|| Error::Build(format!("pip fetched no jaxlib {version} wheel")))?;
    extract_include(&wheel, &dir)?;
    let _ = std::fs::remove_dir_all(&download);
    if !include.join("xla/ffi/api/c_api.h").is_file() {
        return Err(Error::Build(format!("jaxlib {version}'s wheel has no include/xla/ffi/api/c_api.h")));
    }
    std::fs::write(&complete, format!("jaxlib {version} headers\n"))
        .map_err(|source| Error::Io { path: complete, source })?;
    Ok(include)
}

fn extract_include(wheel: &Path, dir: &Path) -> Result<(), Error> {
    let io = |e: std::io::Error| Error::Io { path: wheel.into(), source: e };
    let file = std::fs::File::open(wheel).map_err(io)?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| Error::Build(format!("{}: {e}", wheel.display())))?;
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| Error::Build(format!("{}: {e}", wheel.display())))?;
        let Some(rel) = entry.enclosed_name().and_then(|p| p.strip_prefix("jaxlib").ok().map(Path::to_path_buf)) else {
            continue;
        };
        if !rel.starts_with("include") || entry.is_dir() {
            continue;
        }
        let dest = dir.join(&rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(|source| Error::Io { path: parent.into(), source })?;
        }
        let mut out = std::fs::File::create(&dest).map_err(|source| Error::Io { path: dest.clone(), source })?;
        std::io::copy(&mut entry, &mut out).map_err(|source| Error::Io { path: dest.clone(), source })?;
    }
    Ok(())
}

/// `XLA_FFI_API_MAJOR.MINOR` of a c_api.h.
pub fn header_api_version(include: &Path) -> Option<(u32, u32)> {
    let text = std::fs::read_to_string(include.join("xla/ffi/api/c_api.h")).ok()?;
    let get = |name: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(&format!("#define {name} ")).and_then(|v| v.trim().parse().ok()))
    };
    Some((get("XLA_FFI_API_MAJOR")?, get("XLA_FFI_API_MINOR")?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn extracts_only_the_include_tree_and_reads_its_api_version() {
        let dir = std::env::temp_dir().join(format!("bridgegen-headers-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let wheel = dir.join("jaxlib-0.0.0-cp312-cp312-manylinux_2_27_x86_64.whl");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&wheel).unwrap());
        let opts = zip::write::SimpleFileOptions::default();
        zip.start_file("jaxlib/include/xla/ffi/api/c_api.h", opts).unwrap();
        zip.write_all(b"#define XLA_FFI_API_MAJOR 0\n#define XLA_FFI_API_MINOR 4\n").unwrap();
        zip.start_file("jaxlib/xla_extension.so", opts).unwrap();
        zip.write_all(b"binary").unwrap();
        zip.finish().unwrap();
        extract_include(&wheel, &dir).unwrap();
        assert_eq!(header_api_version(&dir.join("include")), Some((0, 4)));
        assert!(!dir.join("xla_extension.so").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rejects_bad_versions() {
        assert!(jaxlib_headers("latest", true).unwrap_err().to_string().contains("not a version"));
        assert!(jaxlib_headers("0..1", true).is_err());
    }
}
