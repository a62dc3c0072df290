//! Validated IR: everything resolved and defaulted, names decided (see `names`),
//! functions sorted by name. Emitters read only this (through `emit::view`).

pub mod dtype;
pub mod expr;
pub mod lower;
pub mod names;
pub mod prelude_calls;
pub mod pyexpr;
pub mod pymodules;
pub mod signature;

pub use dtype::{DType, Loop};
use std::collections::{BTreeMap, BTreeSet};

/// Where generated code runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Platform {
    Cpu,
    Cuda,
}

impl Platform {
    pub const ALL: [Platform; 2] = [Platform::Cpu, Platform::Cuda];

    /// The spelling used in specs, in JAX (`jax.devices()[0].platform`) and in symbols.
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Cpu => "cpu",
            Platform::Cuda => "cuda",
        }
    }

    /// The platform string handed to `jax.ffi.register_ffi_target`. Never lowercase
    /// "cuda": XLA's CUDA plugin only reads "CUDA"/"gpu" and silently drops the rest.
    pub fn xla_registration_name(self) -> &'static str {
        match self {
            Platform::Cpu => "cpu",
            Platform::Cuda => "CUDA",
        }
    }

    pub fn parse(s: &str) -> Option<Platform> {
        Platform::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// A whole spec file, validated.
#[derive(Debug, Clone)]
pub struct Package {
    /// Python import name, e.g. `jax_xsf`.
    pub name: String,
    pub version: String,
    pub summary: String,
    /// Spec path as given on the command line (for banners and diagnostics).
    pub spec_path: String,
    /// The root spec and the files it includes, in include order (`SourceAt::file`).
    pub spec_files: Vec<String>,
    /// sha256 of the spec text: part of the contract stamped into both halves.
    pub spec_hash: String,
    pub ufuncs: Vec<Ufunc>,
    pub functions: Vec<Function>,
}

impl Package {
    /// The spec file a source position is in.
    pub fn spec_file(&self, at: SourceAt) -> &str {
        self.spec_files.get(at.file as usize).unwrap_or(&self.spec_path)
    }
}

/// The C++ snippet evaluated per element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// Single output: the value of the expression is stored.
    Value(String),
    /// Several outputs: a statement that assigns the named outputs (by reference).
    Statement(String),
}

impl Expr {
    /// The C++ text, without surrounding whitespace.
    pub fn text(&self) -> &str {
        match self {
            Expr::Value(s) | Expr::Statement(s) => s.trim(),
        }
    }
}

/// Where a string value's text (its first non-blank character) starts in the spec:
/// host C++ carries it in `#line` directives, so the compiler reports errors in `expr` and
/// `prelude` at the spec's own line and column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SourceAt {
    /// Index into `Package::spec_files`.
    pub file: u32,
    /// 1-based; 0 when unknown.
    pub line: u32,
    /// 1-based, in characters.
    pub col: u32,
}

impl SourceAt {
    /// The text of the TOML string whose value (quotes included) spans `span` of `sources`.
    /// Escapes before the first non-blank character shift the column; nothing else does.
    pub fn of_string(sources: &crate::diag::SourceMap, span: &std::ops::Range<usize>) -> SourceAt {
        let file = sources.file_index(span.start);
        let Some(f) = sources.files.get(file) else { return SourceAt::default() };
        let source = sources.text_of(f);
        let Some(local) = span.start.checked_sub(f.base).map(|s| s..span.end.saturating_sub(f.base)) else {
            return SourceAt::default();
        };
        let Some(value) = source.get(local.clone()) else { return SourceAt::default() };
        let quote = [r#"""""#, "'''", "\"", "'"].into_iter().find(|q| value.starts_with(q)).unwrap_or("");
        let mut rest = &value[quote.len()..];
        if quote.len() == 3 {
            // TOML drops a newline right after an opening triple quote.
            rest = rest.strip_prefix("\r\n").or_else(|| rest.strip_prefix('\n')).unwrap_or(rest);
        }
        let start = local.start + (value.len() - rest.trim_start().len());
        let before = &source[..start];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        SourceAt {
            file: file as u32,
            line: before.matches('\n').count() as u32 + 1,
            col: before[line_start..].chars().count() as u32 + 1,
        }
    }
}

/// A `[[prelude]]`: C++ helpers several functions share. Every function that names it
/// emits it (host loops behind an include guard, as they share one translation unit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedPrelude {
    pub name: String,
    pub code: String,
    pub at: SourceAt,
}

/// An elementwise function.
#[derive(Debug, Clone)]
pub struct Ufunc {
    pub name: String,
    pub doc: String,
    /// Header paths relative to the xsf include root, in include order, deduplicated.
    pub headers: Vec<String>,
    /// What the CUDA kernels include (`cuda_headers`, else `headers`).
    pub cuda_headers: Vec<String>,
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    /// Shared `[[prelude]]`s, in the function's `preludes` order, before its own `prelude`.
    pub shared_preludes: Vec<SharedPrelude>,
    /// C++ helpers emitted after the headers (empty if none).
    pub prelude: String,
    pub prelude_at: SourceAt,
    pub expr: Expr,
    pub expr_at: SourceAt,
    /// What the CUDA kernels evaluate instead of `expr`, if the spec says (`cuda_expr`).
    pub cuda_expr: Option<Expr>,
    /// Loop signature -> what that loop's CUDA kernel evaluates (`cuda_expr_by_loop`),
    /// before `cuda_expr`.
    pub cuda_expr_by_loop: BTreeMap<String, Expr>,
    pub loops: Vec<Loop>,
    /// Signatures of the loops with CUDA kernels (`cuda_loops`; all loops by default, none
    /// without the cuda platform).
    pub cuda_loops: BTreeSet<String>,
    pub platforms: BTreeSet<Platform>,
    /// Bytes of device stack per thread the kernels need (0: what the compiler reserves).
    pub cuda_stack: u32,
    /// Most registers per thread the kernels may use (0: the compiler's choice).
    pub cuda_max_registers: u32,
    /// Whether NVRTC may contract multiplies and adds into FMAs in the kernels (`cuda_fmad`;
    /// CuPy's default, true). False compiles them with `--fmad=false`.
    pub cuda_fmad: bool,
    /// Core dimensions of a generalized ufunc (`signature`); None for an elementwise one.
    pub signature: Option<signature::Signature>,
    pub scipy: Option<String>,
    pub cupy: Option<String>,
    /// Input name -> derivative expression (Python, over spec functions and `jnp`).
    pub derivatives: BTreeMap<String, String>,
    /// Inputs declared not differentiable.
    pub nondiff: Vec<String>,
    pub test: TestHints,
    /// Why it has no CUDA kernels (its `[[host_only]]` group), for the lowering error on
    /// CUDA and the docstring.
    pub host_only_why: Option<String>,
}

impl Ufunc {
    /// Whether loop `l` has a CUDA kernel.
    pub fn on_device(&self, l: &Loop) -> bool {
        self.cuda_loops.contains(&l.signature())
    }

    /// Whether some loops of a device function are host-only (`cuda_loops`).
    pub fn device_subset(&self) -> bool {
        self.platforms.contains(&Platform::Cuda) && self.cuda_loops.len() < self.loops.len()
    }
}

/// Sampling hints for generated accuracy tests.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TestHints {
    pub ranges: BTreeMap<String, (f64, f64)>,
    pub integers: Vec<String>,
    pub rtol64: Option<f64>,
    pub rtol32: Option<f64>,
    pub rtol64_gpu: Option<f64>,
    pub rtol32_gpu: Option<f64>,
    pub skip_edges: bool,
}

/// Type of a static parameter of a callable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    Int,
    Float,
    Bool,
    Str,
}

impl ParamType {
    pub fn parse(s: &str) -> Option<ParamType> {
        Some(match s {
            "int" => ParamType::Int,
            "float" => ParamType::Float,
            "bool" => ParamType::Bool,
            "str" => ParamType::Str,
            _ => return None,
        })
    }
}

/// A general CuPy callable (`[[function]]`).
#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    pub cupy: String,
    /// The host callable (dotted path).
    pub cpu: String,
    /// vmap method of the wrapper (`sequential`, `expand_dims`, `broadcast_all`).
    pub batching: String,
    pub doc: String,
    pub inputs: Vec<ArrayArg>,
    pub outputs: Vec<OutputArg>,
    pub workspace: Vec<(String, String)>,
    pub params: Vec<Param>,
    pub platforms: BTreeSet<Platform>,
}

#[derive(Debug, Clone)]
pub struct ArrayArg {
    pub name: String,
    pub dtypes: Vec<DType>,
    pub rank: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct OutputArg {
    pub name: String,
    /// Python expression for the shape (over input `.shape`, `.ndim`, `.size` and params),
    /// in canonical form (`pyexpr::render`).
    pub shape: String,
    /// A dtype code (`d`), or a Python expression for the dtype in canonical form.
    pub dtype: String,
}

#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub ty: ParamType,
    /// Python literal of the default, if any.
    pub default: Option<String>,
    /// Python literals of the allowed values, if restricted.
    pub choices: Vec<String>,
}

#[cfg(test)]
mod source_at_tests {
    use super::SourceAt;

    fn at(source: &str, needle: &str) -> SourceAt {
        let start = source.find(needle).expect("needle");
        let mut map = crate::diag::SourceMap::default();
        map.add("spec.toml", source);
        SourceAt::of_string(&map, &(start..source.len()))
    }

    #[test]
    fn points_at_the_first_character_of_the_text() {
        assert_eq!(at("a = 1\nexpr = \"f(x)\"", "\"f("), SourceAt { file: 0, line: 2, col: 9 });
        assert_eq!(at("expr = '  f(x)'", "'"), SourceAt { file: 0, line: 1, col: 11 });
        // A newline right after a triple quote is not part of the text.
        assert_eq!(at("x = 1\nexpr = \"\"\"\n    f(x)\"\"\"", "\"\"\""), SourceAt { file: 0, line: 3, col: 5 });
        assert_eq!(at("expr = '''g(x)'''", "'''"), SourceAt { file: 0, line: 1, col: 11 });
    }

    #[test]
    fn a_span_outside_the_source_is_unknown_not_a_panic() {
        let mut map = crate::diag::SourceMap::default();
        map.add("spec.toml", "ab");
        assert_eq!(SourceAt::of_string(&map, &(5..9)), SourceAt::default());
        // The second file's lines count from its own start.
        map.add("part.toml", "\nexpr = 'f'");
        assert_eq!(SourceAt::of_string(&map, &(11..14)), SourceAt { file: 1, line: 2, col: 9 });
    }
}
