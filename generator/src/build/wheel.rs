//! Writing wheels (PEP 427) deterministically: sorted entries, fixed timestamps, a RECORD
//! of sha256 hashes. The compiled library is loaded with ctypes, so wheels are tagged
//! `py3-none-<platform>` (pure Python: `py3-none-any`): one wheel per platform serves
//! every Python version.

use crate::error::Error;
use base64::Engine as _;
use sha2::{Digest, Sha256};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use zip::write::SimpleFileOptions;

/// The tag of a pure-Python wheel (the runtime's core).
pub const PURE_TAG: &str = "py3-none-any";

/// A file to put in a wheel.
pub struct Entry {
    pub path: String,
    pub data: Vec<u8>,
    pub executable: bool,
}

pub struct Wheel {
    /// Distribution name with `_` (e.g. `jax_xsf`).
    pub name: String,
    pub version: String,
    pub tag: String,
    pub metadata: String,
    pub entries: Vec<Entry>,
}

fn record_hash(data: &[u8]) -> String {
    let digest = Sha256::digest(data);
    format!("sha256={}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest))
}

impl Wheel {
    pub fn file_name(&self) -> String {
        format!("{}-{}-{}.whl", self.name, self.version, self.tag)
    }

    /// Write the wheel into `dir`, returning its path.
    pub fn write(mut self, dir: &Path) -> Result<PathBuf, Error> {
        let dist_info = format!("{}-{}.dist-info", self.name, self.version);
        let purelib = self.tag.ends_with("-any");
        let wheel_meta = format!(
            "Wheel-Version: 1.0\nGenerator: bridgegen {}\nRoot-Is-Purelib: {}\nTag: {}\n",
            env!("CARGO_PKG_VERSION"),
            purelib,
            self.tag
        );
        self.entries.push(Entry {
            path: format!("{dist_info}/METADATA"),
            data: self.metadata.clone().into_bytes(),
            executable: false,
        });
        self.entries.push(Entry {
            path: format!("{dist_info}/WHEEL"),
            data: wheel_meta.into_bytes(),
            executable: false,
        });
        self.entries.sort_by(|a, b| a.path.cmp(&b.path));
        let mut record = String::new();
        for e in &self.entries {
            record.push_str(&format!("{},{},{}\n", e.path, record_hash(&e.data), e.data.len()));
        }
        record.push_str(&format!("{dist_info}/RECORD,,\n"));

        std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.into(), source })?;
        let path = dir.join(self.file_name());
        // Written beside, then renamed: a killed build leaves no truncated wheel.
        let partial = dir.join(format!(".{}.partial", self.file_name()));
        let file = std::fs::File::create(&partial).map_err(|source| Error::Io { path: partial.clone(), source })?;
        let mut zip = zip::ZipWriter::new(file);
        let io = |e: zip::result::ZipError| Error::Build(format!("writing {}: {e}", path.display()));
        let base = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .last_modified_time(zip::DateTime::default());
        let record_entry = Entry { path: format!("{dist_info}/RECORD"), data: record.into_bytes(), executable: false };
        for e in self.entries.iter().chain(std::iter::once(&record_entry)) {
            let mode = if e.executable { 0o755 } else { 0o644 };
            zip.start_file(e.path.as_str(), base.unix_permissions(mode)).map_err(io)?;
            zip.write_all(&e.data).map_err(|source| Error::Io { path: path.clone(), source })?;
        }
        zip.finish().map_err(io)?;
        std::fs::rename(&partial, &path).map_err(|source| Error::Io { path: path.clone(), source })?;
        Ok(path)
    }
}

/// The manylinux tag a shared library qualifies for: the newest `GLIBC_2.N` symbol
/// version it references decides N.
pub fn manylinux_tag(library: &[u8]) -> String {
    let needle = b"GLIBC_2.";
    let mut newest = 17u32;
    let mut i = 0;
    while let Some(pos) = library[i..].windows(needle.len()).position(|w| w == needle) {
        let start = i + pos + needle.len();
        let digits: String = library[start..].iter().take_while(|b| b.is_ascii_digit()).map(|b| *b as char).collect();
        if let Ok(n) = digits.parse::<u32>() {
            newest = newest.max(n);
        }
        i = start;
    }
    format!("py3-none-manylinux_2_{newest}_x86_64")
}
