//! The runtime's sources, embedded in the binary by build.rs: an installed `bridgegen`
//! vendors the two runtime crates into every generated package and packages the runtime's
//! Python from here, never from its checkout.

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// Where a generated package keeps its vendored copies, relative to its root, and the
/// runtime directory each copies.
pub const VENDORED: &[(&str, &str)] =
    &[("vendor/bridgegen-runtime", "runtime/rust"), ("vendor/bridgegen-build", "runtime/build")];

/// One of the runtime's Python distributions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PythonPackage {
    /// Import name, and the directory name in wheels and sdists.
    pub module: &'static str,
    /// Distribution name (METADATA `Name`, pins).
    pub dist: &'static str,
    /// Its directory in the embedded tree.
    pub dir: &'static str,
    pub summary: &'static str,
    /// Ships the runtime crate's cdylib (the delegation's callback handlers), so its
    /// wheel is platform-tagged; the core is pure Python.
    pub native: bool,
}

/// Registration, dtype rules and the ufunc primitive: what every generated package imports.
pub const CORE: PythonPackage = PythonPackage {
    module: "bridgegen_runtime",
    dist: "bridgegen-runtime",
    dir: "runtime/python/bridgegen_runtime",
    summary: "Shared runtime of bridgegen packages: registration, dtype rules and the JAX ufunc primitive",
    native: false,
};

/// Delegation of CuPy/NumPy callables (`cupy_lazy_apply`, `lazy_apply`): what packages
/// with `[[function]]` entries, and array-api-extra's users, import.
pub const DELEGATION: PythonPackage = PythonPackage {
    module: "jax_cupy_bridge",
    dist: "jax-cupy-bridge",
    dir: "runtime/python/jax_cupy_bridge",
    summary: "CuPy and NumPy functions under jax.jit on zero-copy views of XLA's buffers",
    native: true,
};

impl PythonPackage {
    /// `__version__` of its `__init__.py` (read by build.rs): its one version source.
    pub fn version(&self) -> &'static str {
        PYTHON_VERSIONS.iter().find(|(d, _)| *d == self.dir).map(|(_, v)| *v).expect("build.rs reads every package")
    }

    /// Requires-Dist of its wheel and sdist.
    pub fn requires(&self) -> Vec<String> {
        let mut deps = vec![format!("jax>={}", crate::abi::abi().jaxlib_oldest), "numpy>=1.26".to_string()];
        if *self != CORE {
            deps.push(CORE.pin());
        }
        deps
    }

    /// `dist==version`: how generated packages require it.
    pub fn pin(&self) -> String {
        format!("{}=={}", self.dist, self.version())
    }

    /// Its files, as (path below the package directory, contents).
    pub fn files(&self) -> impl Iterator<Item = (&'static str, &'static str)> {
        under(self.dir)
    }
}

/// The runtime packages a generated package needs: the core, and the delegation when it
/// has `[[function]]` entries.
pub fn needed(has_functions: bool) -> Vec<PythonPackage> {
    if has_functions {
        vec![CORE, DELEGATION]
    } else {
        vec![CORE]
    }
}

/// Embedded files under `dir` (a path under the repository root), as (path below `dir`, contents).
pub fn under(dir: &str) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
    FILES.iter().filter_map(move |(p, c)| p.strip_prefix(dir).and_then(|r| r.strip_prefix('/')).map(|r| (r, *c)))
}
