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
