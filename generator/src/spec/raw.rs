//! Raw spec model: serde structs mirroring the TOML, one per table, with spans on
//! everything a diagnostic may point at. No validation here beyond TOML value types;
//! `ir::lower` turns these into the validated IR.

use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// `[package]`
#[derive(Debug, Deserialize)]
pub struct RawPackage {
    pub name: Spanned<String>,
    pub version: Spanned<String>,
    #[serde(default)]
    pub summary: Option<Spanned<String>>,
    /// Where the C++ headers come from: only `"cupy"` (the CuPy wheel's include dir) today.
    #[serde(default)]
    pub headers_from: Option<Spanned<String>>,
}

/// `[defaults]`: values every `[[ufunc]]` and `[[function]]` inherits.
#[derive(Debug, Default, Deserialize)]
pub struct RawDefaults {
    #[serde(default)]
    pub platforms: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    pub headers: Option<Vec<Spanned<String>>>,
}

/// `[[ufunc]]`: an elementwise function over C++ (xsf) code.
#[derive(Debug, Deserialize)]
pub struct RawUfunc {
    pub name: Spanned<String>,
    #[serde(default)]
    pub doc: Option<Spanned<String>>,
    #[serde(default)]
    pub headers: Option<Vec<Spanned<String>>>,
    /// What the CUDA kernels include instead of `headers` (when the host loops need a
    /// header NVRTC cannot compile, and `cuda_expr` calls something else).
    #[serde(default)]
    pub cuda_headers: Option<Spanned<Vec<Spanned<String>>>>,
    pub inputs: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    pub outputs: Option<Spanned<Vec<Spanned<String>>>>,
    /// C++ emitted once after the headers (helpers the expression calls).
    #[serde(default)]
    pub prelude: Option<Spanned<String>>,
    /// Names of `[[prelude]]` tables (helpers several functions share), emitted in this
    /// order after the headers and before `prelude`.
    #[serde(default)]
    pub preludes: Option<Vec<Spanned<String>>>,
    pub expr: Spanned<String>,
    /// The expression the CUDA kernels evaluate instead of `expr` (e.g. CUDA's own `lgamma`,
    /// as CuPy does), when it is faster on the device.
    #[serde(default)]
    pub cuda_expr: Option<Spanned<String>>,
    /// Per type loop (its signature, e.g. "f->f"), what that loop's CUDA kernel evaluates
    /// instead of `cuda_expr`/`expr` (CUDA's float and double functions differ in name).
    #[serde(default)]
    pub cuda_expr_by_loop: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
    pub loops: Spanned<Vec<Spanned<String>>>,
    /// The loops that have CUDA kernels (default: all), for functions whose other loops
    /// (complex ones, typically) only compile for the host.
    #[serde(default)]
    pub cuda_loops: Option<Spanned<Vec<Spanned<String>>>>,
    /// Core dimensions of a generalized ufunc, NumPy's notation (`"(n)->(n+1)"`).
    #[serde(default)]
    pub signature: Option<Spanned<String>>,
    /// Device stack (bytes per thread) for functions that recurse on the GPU.
    #[serde(default)]
    pub cuda_stack: Option<Spanned<i64>>,
    /// Registers per thread the CUDA kernels may use at most (`__maxnreg__`).
    #[serde(default)]
    pub cuda_max_registers: Option<Spanned<i64>>,
    /// `false`: NVRTC's `--fmad=false` for the CUDA kernels (no multiply-add contraction).
    #[serde(default)]
    pub cuda_fmad: Option<Spanned<bool>>,
    #[serde(default)]
    pub platforms: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    pub scipy: Option<Spanned<String>>,
    #[serde(default)]
    pub cupy: Option<Spanned<String>>,
    #[serde(default)]
    pub derivatives: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
    #[serde(default)]
    pub nondiff: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    pub test: Option<RawTest>,
}

/// `[[prelude]]`: C++ helpers that several `[[ufunc]]`s share (a family's common code,
/// said once), with the headers it needs.
#[derive(Debug, Deserialize)]
pub struct RawPrelude {
    pub name: Spanned<String>,
    #[serde(default)]
    pub headers: Option<Vec<Spanned<String>>>,
    /// What CUDA kernels include instead of `headers` (the prelude's device-safe part).
    #[serde(default)]
    pub cuda_headers: Option<Vec<Spanned<String>>>,
    pub code: Spanned<String>,
}

/// `[[host_only]]`: why some functions have no CUDA kernels (said once for a family), for
/// their lowering error on CUDA and their docstrings.
#[derive(Debug, Deserialize)]
pub struct RawHostOnly {
    pub why: Spanned<String>,
    pub functions: Spanned<Vec<Spanned<String>>>,
}

/// `[ufunc.test]`: hints for the generated accuracy tests.
#[derive(Debug, Default, Deserialize)]
pub struct RawTest {
    #[serde(default)]
    pub ranges: Option<BTreeMap<Spanned<String>, Spanned<Vec<f64>>>>,
    #[serde(default)]
    pub integers: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    pub rtol64: Option<Spanned<f64>>,
    #[serde(default)]
    pub rtol32: Option<Spanned<f64>>,
    #[serde(default)]
    pub rtol64_gpu: Option<Spanned<f64>>,
    #[serde(default)]
    pub rtol32_gpu: Option<Spanned<f64>>,
    #[serde(default)]
    pub skip_edges: Option<Spanned<bool>>,
}

/// `[[function]]`: a general CuPy callable (generated by a later stage of the project).
#[derive(Debug, Deserialize)]
pub struct RawFunction {
    pub name: Spanned<String>,
    pub cupy: Spanned<String>,
    /// The NumPy/SciPy callable used on CPU (default: `cupyx.scipy.` -> `scipy.`, `cupy.` -> `numpy.`).
    #[serde(default)]
    pub cpu: Option<Spanned<String>>,
    #[serde(default)]
    pub doc: Option<Spanned<String>>,
    pub inputs: Vec<RawArray>,
    pub outputs: Vec<RawOutput>,
    #[serde(default)]
    pub workspace: Vec<RawWorkspace>,
    #[serde(default)]
    pub params: Vec<RawParam>,
    /// How the wrapper batches under vmap: `sequential` (default), `expand_dims`, `broadcast_all`.
    #[serde(default)]
    pub batching: Option<Spanned<String>>,
    #[serde(default)]
    pub platforms: Option<Spanned<Vec<Spanned<String>>>>,
}

/// An array input of a `[[function]]`.
#[derive(Debug, Deserialize)]
pub struct RawArray {
    pub name: Spanned<String>,
    /// Accepted dtype codes (`f`, `d`, `F`, `D`, `i`, `l`).
    pub dtypes: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    pub rank: Option<Spanned<i64>>,
}

/// An output of a `[[function]]`: shape and dtype rules over inputs and params.
#[derive(Debug, Deserialize)]
pub struct RawOutput {
    pub name: Spanned<String>,
    pub shape: Spanned<String>,
    pub dtype: Spanned<String>,
}

/// A workspace buffer of a `[[function]]`, sized by an expression.
#[derive(Debug, Deserialize)]
pub struct RawWorkspace {
    pub name: Spanned<String>,
    pub bytes: Spanned<String>,
}

/// A static parameter of a `[[function]]`.
#[derive(Debug, Deserialize)]
pub struct RawParam {
    pub name: Spanned<String>,
    #[serde(rename = "type")]
    pub ty: Spanned<String>,
    #[serde(default)]
    pub default: Option<Spanned<toml::Value>>,
    #[serde(default)]
    pub choices: Option<Spanned<Vec<toml::Value>>>,
}

/// The whole file after the parse phase.
#[derive(Debug, Default)]
pub struct RawSpec {
    pub package: Option<RawPackage>,
    pub defaults: RawDefaults,
    pub ufuncs: Vec<RawUfunc>,
    pub functions: Vec<RawFunction>,
    pub preludes: Vec<RawPrelude>,
    pub host_only: Vec<RawHostOnly>,
    /// Span of the whole document, for "missing table" diagnostics.
    pub doc_span: std::ops::Range<usize>,
}
