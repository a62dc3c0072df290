//! File output: write only what changed, delete only files bridgegen owns (those that
//! carry its banner), and compare a tree against fresh output for `check`.

use crate::emit::{Output, BANNER_MARK};
use crate::error::Error;
use std::path::{Path, PathBuf};

pub fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.into(), source })
}

fn io<T>(path: &Path, r: std::io::Result<T>) -> Result<T, Error> {
    r.map_err(|source| Error::Io { path: path.into(), source })
}

/// What `write_output` did.
#[derive(Debug, Default)]
pub struct WriteReport {
    pub written: Vec<PathBuf>,
    pub unchanged: usize,
    pub removed: Vec<PathBuf>,
}

/// Write `out` under `dir`, touching only changed files, and remove stale owned files.
pub fn write_output(dir: &Path, out: &Output) -> Result<WriteReport, Error> {
    let mut report = WriteReport::default();
    for (rel, contents) in out {
        let path = dir.join(rel);
        if std::fs::read(&path).ok().as_deref() == Some(contents.as_bytes()) {
            report.unchanged += 1;
            continue;
        }
        if let Some(parent) = path.parent() {
            io(parent, std::fs::create_dir_all(parent))?;
        }
        write_atomic(&path, contents.as_bytes())?;
        report.written.push(rel.clone());
    }
    for rel in owned_files(dir)? {
        if !out.contains_key(&rel) {
            io(&dir.join(&rel), std::fs::remove_file(dir.join(&rel)))?;
            report.removed.push(rel);
        }
    }
    Ok(report)
}

/// Write `path` whole or not at all: into a temporary file beside it, then renamed over
/// it, so a killed run never leaves a truncated file. A symlink at `path` is replaced,
/// never written through.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), Error> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    io(&tmp, std::fs::write(&tmp, contents))?;
    std::fs::rename(&tmp, path).map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        Error::Io { path: path.into(), source }
    })
}

/// Files under `dir` that differ from `out`, are missing, or are owned but no longer generated.
pub fn stale_files(dir: &Path, out: &Output) -> Result<Vec<String>, Error> {
    let mut stale = Vec::new();
    for (rel, contents) in out {
        match std::fs::read(dir.join(rel)) {
            Ok(bytes) if bytes == contents.as_bytes() => {}
            Ok(_) => stale.push(format!("{} (differs)", dir.join(rel).display())),
            Err(_) => stale.push(format!("{} (missing)", dir.join(rel).display())),
        }
    }
    for rel in owned_files(dir)? {
        if !out.contains_key(&rel) {
            stale.push(format!("{} (no longer generated)", dir.join(rel).display()));
        }
    }
    Ok(stale)
}

/// Relative paths of files under `dir` whose first line carries the banner.
fn owned_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut found = Vec::new();
    if dir.is_dir() {
        walk(dir, dir, &mut found)?;
    }
    found.sort();
    Ok(found)
}

fn walk(root: &Path, dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), Error> {
    for entry in io(dir, std::fs::read_dir(dir))? {
        let entry = io(dir, entry)?;
        let path = entry.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        // Symlinks are never followed nor owned: pruning must not reach outside `root`.
        let ty = io(&path, entry.file_type())?;
        if ty.is_symlink() {
            continue;
        }
        if ty.is_dir() {
            if name != "target" && name != "__pycache__" && !name.starts_with('.') {
                walk(root, &path, found)?;
            }
        } else if first_line_has_banner(&path) {
            found.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
    Ok(())
}

fn first_line_has_banner(path: &Path) -> bool {
    use std::io::BufRead;
    let Ok(f) = std::fs::File::open(path) else { return false };
    let mut line = String::new();
    std::io::BufReader::new(f).read_line(&mut line).is_ok() && line.contains(BANNER_MARK)
}

/// `to` relative to `from` (both absolute), using `/`.
pub fn relative_path(from: &Path, to: &Path) -> String {
    let f: Vec<_> = from.components().collect();
    let t: Vec<_> = to.components().collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".into(); f.len() - common];
    parts.extend(t[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}
