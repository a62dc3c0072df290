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
        /// Where the package is generated (default: generated/<package>).
        #[arg(long)]
        generated: Option<PathBuf>,
        /// Install the wheels into the active Python environment.
        #[arg(long)]
        install: bool,
        /// Leave out the runtime packages' wheels (bridgegen_runtime, jax_cupy_bridge): what an
        /// sdist's build does.
        #[arg(long)]
        no_runtime: bool,
        /// CUDA targets, comma-separated: sm_XY (machine code) and compute_XY (PTX the driver
        /// compiles for newer GPUs), or `none` for a CPU-only library.
        /// Default: sm_90,compute_80 when NVRTC is found, else a CPU-only library with a
        /// warning; given explicitly, a missing or broken NVRTC is an error.
        #[arg(long, value_parser = crate::build::nvrtc::archs_arg)]
        cuda_arch: Option<crate::build::nvrtc::Archs>,
        /// Build with CUDA 12's or CUDA 13's NVRTC (pip nvidia-cuda-nvrtc-cu12, or
        /// nvidia-cuda-nvrtc 13.x) and name the wheel `<package>-cuda12` / `-cuda13`.
        #[arg(long, value_parser = clap::value_parser!(u32).range(12..=13))]
        cuda: Option<u32>,
        /// Admit jaxlib up to this release (default: the newest the Python suite passed on,
        /// runtime/abi.toml). For packagers, after testing that release.
        #[arg(long)]
        jaxlib_newest: Option<String>,
        /// Link against this glibc (e.g. 2.28, jaxlib's floor) with cargo-zigbuild, for
        /// manylinux_2_28 wheels; default: this machine's glibc.
        #[arg(long)]
        glibc: Option<String>,
        /// No progress bar or step messages (warnings and errors still print).
        #[arg(long, short)]
        quiet: bool,
        /// Print a JSON summary (wheels, versions, kernels compiled or cached, time) on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Write source distributions: `<package>-<version>.tar.gz` (the generated package, its
    /// spec and the vendored runtime crates) and those of the runtime packages it needs:
    /// `bridgegen_runtime-<version>.tar.gz` (pure Python), and `jax_cupy_bridge-<version>.tar.gz`
    /// when the spec has `[[function]]` entries.
    /// Each builds with `pip install --no-build-isolation` where jax, jaxlib and bridgegen
    /// are installed (docs/releasing.md).
    Sdist {
        /// The TOML spec.
        spec: PathBuf,
        /// Where the sdists go.
        #[arg(long, default_value = "dist")]
        out: PathBuf,
    },
    /// Build jax_cupy_bridge's wheel from its source tree (an unpacked jax_cupy_bridge sdist).
    BuildRuntime {
        /// The source tree (holding Cargo.toml, vendor/bridgegen-runtime, python/jax_cupy_bridge).
        #[arg(long, default_value = ".")]
        source: PathBuf,
        /// Directory holding xla/ffi/api/c_api.h (default: jax.ffi.include_dir() of the active Python).
        #[arg(long)]
        jaxlib_include: Option<PathBuf>,
        /// Where the wheel goes.
        #[arg(long, default_value = "dist")]
        out: PathBuf,
        /// No step messages.
        #[arg(long, short)]
        quiet: bool,
        /// Print the wheel's path as JSON ({"wheels": [...]}) on stdout.
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
