//! The one naming scheme. Every generated identifier is derived here, nowhere else.
//!
//! For package `jax_xsf`, function `gammaln`, loop `d->d`:
//! (a) XLA target name     `bridgegen.jax_xsf.gammaln`  (XLA's registry is process-wide,
//!                          so targets are namespaced by package)
//! (b) handler symbol      `bg_jax_xsf_gammaln_cpu`     (one per function and platform)
//! (c) loop symbol         `bg_jax_xsf_gammaln__d_d`    (one per function and type loop: the
//!                          host loop in the library and the CUDA kernel in its module)
//! (d) contract symbol     `bg_jax_xsf_contract`
//!     CUDA archs symbol   `bg_jax_xsf_cuda_archs`      (the kernel images built in)
//!     build info symbol   `bg_jax_xsf_build_info`      (JSON: versions the build used)
//!     kernel source       `rust/cuda/gammaln.cu`, image `gammaln.sm_90.cubin` / `gammaln.compute_80.ptx`
//! (e) Rust crate          `jax_xsf-ffi`, library `libjax_xsf_ffi.so`
//! (f) Python package      `jax_xsf`, function `jax_xsf.gammaln`
//! The prefixes `bg_`, `_bg` and `bridgegen` are reserved: user names may not start with them.

use super::{Loop, Platform};

pub const RESERVED_PREFIXES: &[&str] = &["bg_", "_bg", "bridgegen"];

pub fn is_reserved(name: &str) -> bool {
    RESERVED_PREFIXES.iter().any(|p| name.starts_with(p))
}

pub fn xla_target(package: &str, function: &str) -> String {
    format!("bridgegen.{package}.{function}")
}

pub fn handler_symbol(package: &str, function: &str, platform: Platform) -> String {
    format!("bg_{package}_{function}_{}", platform.as_str())
}

pub fn loop_symbol(package: &str, function: &str, lp: &Loop) -> String {
    format!("bg_{package}_{function}__{}", lp.symbol_suffix())
}

pub fn contract_symbol(package: &str) -> String {
    format!("bg_{package}_contract")
}

pub fn build_info_symbol(package: &str) -> String {
    format!("bg_{package}_build_info")
}

pub fn cuda_archs_symbol(package: &str) -> String {
    format!("bg_{package}_cuda_archs")
}

/// The CUDA source of a function, relative to the generated `rust/` directory.
pub fn kernel_source(function: &str) -> String {
    format!("cuda/{function}.cu")
}

/// The file of one NVRTC output: `arch` is `sm_90` (cubin) or `compute_80` (PTX).
pub fn kernel_image(function: &str, arch: &str) -> String {
    let ext = if arch.starts_with("sm_") { "cubin" } else { "ptx" };
    format!("{function}.{arch}.{ext}")
}

pub fn crate_name(package: &str) -> String {
    format!("{package}-ffi")
}

pub fn library_file(package: &str) -> String {
    format!("lib{package}_ffi.so")
}

/// Rust static holding a ufunc's loop table (host) or loops and module (CUDA).
pub fn ufunc_static(function: &str, platform: Platform) -> String {
    format!("{}_{}", platform.as_str().to_ascii_uppercase(), function.to_ascii_uppercase())
}

/// Rust static (in the build script's `kernels.rs`) holding a function's kernel images.
pub fn images_static(function: &str) -> String {
    format!("IMAGES_{}", function.to_ascii_uppercase())
}
