//! The generator's error type: I/O with the path, rendered spec diagnostics, and
//! failures of the build steps. `main` prints it as `bridgegen: <error>`.

use std::fmt;
use std::path::PathBuf;

#[derive(Debug)]
pub enum Error {
    /// Reading or writing a file failed.
    Io { path: PathBuf, source: std::io::Error },
    /// The spec has errors; the string is the rendered diagnostics.
    Spec(String),
    /// `check` found generated files that differ from fresh output.
    Stale(Vec<String>),
    /// A build step (python, cargo, pip) failed or a prerequisite is missing.
    Build(String),
    /// A bug in bridgegen itself (a template that fails to render, say).
    Internal(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Spec(rendered) => f.write_str(rendered.trim_end()),
            Error::Stale(files) => {
                writeln!(f, "generated files are stale ({}):", files.len())?;
                for file in files {
                    writeln!(f, "  {file}")?;
                }
                write!(f, "run `bridgegen generate` on the spec and commit the result")
            }
            Error::Build(msg) => f.write_str(msg),
            Error::Internal(msg) => write!(f, "internal error (please report): {msg}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl Error {
    /// Exit status: 1 for user-facing problems, 2 for internal errors.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Internal(_) => 2,
            _ => 1,
        }
    }
}
