//! Command-line interface (clap derive); doc comments are the help text.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Generate XLA FFI handlers and JAX packages for xsf special functions and CuPy callables.
#[derive(Debug, Parser)]
#[command(name = "bridgegen", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write the Rust FFI crate and Python package of a spec (default: generated/<package>/).
    Generate {
        /// The TOML spec.
        spec: PathBuf,
        /// Output directory.
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
    /// Exit non-zero, naming each stale file, when the generated tree differs from fresh output.
    Check {
        /// The TOML spec.
        spec: PathBuf,
        /// Generated directory to compare (default: generated/<package>/).
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
    /// Generate, compile against the active Python's jaxlib headers, and build a wheel.
    Build {
        /// The TOML spec.
        spec: PathBuf,
        /// Directory holding xla/ffi/api/c_api.h (default: jax.ffi.include_dir() of the active Python).
        #[arg(long, conflicts_with = "jaxlib")]
        jaxlib_include: Option<PathBuf>,
        /// Build against this jaxlib release's headers (fetched with pip into a cache; not installed).
        #[arg(long)]
        jaxlib: Option<String>,
        /// Where wheels go.
        #[arg(long, default_value = "dist")]
        out: PathBuf,
        /// Install the wheels into the active Python environment.
        #[arg(long)]
        install: bool,
        /// CUDA targets, comma-separated: sm_XY (machine code) and compute_XY (PTX the driver
        /// compiles for newer GPUs), or `none` for a CPU-only library.
        #[arg(long, default_value = crate::build::nvrtc::DEFAULT_ARCHS, value_parser = crate::build::nvrtc::archs_arg)]
        cuda_arch: crate::build::nvrtc::Archs,
        /// No progress bar or step messages (warnings and errors still print).
        #[arg(long, short)]
        quiet: bool,
        /// Print a JSON summary (wheels, versions, kernels compiled or cached, time) on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Report what `build` would use here (Python, jax/jaxlib, headers, CuPy, NVRTC, driver)
    /// and each problem with its fix; exits 1 when there is a problem.
    Doctor {
        /// Also say what `build` would produce for this spec.
        spec: Option<PathBuf>,
    },
    /// Print the validated IR of a spec (for debugging specs and templates).
    Ir {
        /// The TOML spec.
        spec: PathBuf,
    },
}
