//! The one naming scheme. Every generated identifier is derived here, nowhere else.
//!
//! For package `jax_xsf`, function `gammaln`, loop `d->d`:
//! (a) XLA target name     `bridgegen.jax_xsf.gammaln`  (XLA's registry is process-wide,
//!                          so targets are namespaced by package)
//! (b) handler symbol      `bg_jax_xsf_gammaln_cpu`     (one per function and platform)
//! (c) loop symbol         `bg_jax_xsf_gammaln__d_d`    (one per function and type loop)
//! (d) contract symbol     `bg_jax_xsf_contract`
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

pub fn crate_name(package: &str) -> String {
    format!("{package}-ffi")
}

pub fn library_file(package: &str) -> String {
    format!("lib{package}_ffi.so")
}

/// Rust static holding a ufunc's loop table.
pub fn ufunc_static(function: &str) -> String {
    format!("UFUNC_{}", function.to_ascii_uppercase())
}
