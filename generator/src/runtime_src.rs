//! The runtime's sources, embedded in the binary by build.rs: an installed `bridgegen`
//! vendors the two runtime crates into every generated package and packages the runtime's
//! Python from here, never from its checkout.

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// Where a generated package keeps its vendored copies, relative to its root, and the
/// runtime directory each copies.
pub const VENDORED: &[(&str, &str)] =
    &[("vendor/bridgegen-runtime", "runtime/rust"), ("vendor/bridgegen-build", "runtime/build")];

/// The runtime's Python package, in the embedded tree.
pub const PYTHON_PACKAGE: &str = "runtime/python/jax_cupy_bridge";

/// Embedded files under `dir` (a path under the repository root), as (path below `dir`, contents).
pub fn under(dir: &str) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
    FILES.iter().filter_map(move |(p, c)| p.strip_prefix(dir).and_then(|r| r.strip_prefix('/')).map(|r| (r, *c)))
}
