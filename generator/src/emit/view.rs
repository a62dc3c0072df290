//! The view the templates see: every string precomputed from the IR, so templates
//! hold layout only.

use crate::ir::{names, DType, Expr, Function, Package, ParamType, Platform, Ufunc};
use serde::Serialize;

#[derive(Serialize)]
pub struct PackageView {
    pub package: String,
    pub version: String,
    pub summary: String,
    pub spec_path: String,
    pub crate_name: String,
    pub lib_name: String,
    pub library: String,
    pub contract_symbol: String,
    pub contract: String,
    pub runtime_path: String,
    /// The bridgegen-build crate (beside the runtime), for the build script.
    pub build_path: String,
    pub cpu_sources: Vec<String>,
    pub cuda_archs_symbol: String,
    pub build_info_symbol: String,
    /// Functions with CUDA kernels: (name, Rust static of their images, image file stem).
    pub cuda_ufuncs: Vec<CudaView>,
    pub ufuncs: Vec<UfuncView>,
    pub functions: Vec<FunctionView>,
    /// `_rules.py`: the spec's derivative and `[[function]]` rules as Python functions.
    pub rules: RulesView,
}

/// The spec's rules as functions of `_rules.py`, and the tables the runtime reads.
#[derive(Serialize)]
pub struct RulesView {
    /// `import jax.numpy as jnp` and the like, for the modules the rules use.
    pub imports: Vec<String>,
    /// The package's own functions the rules call (imported from the package).
    pub package_functions: Vec<String>,
    pub rules: Vec<RuleView>,
    /// `{"beta": {"a": _d_beta__a}}`
    pub derivatives_py: String,
    /// `{"fftconvolve": dict(shapes=(...), dtypes=(...), workspace=(...))}`
    pub functions_py: String,
}

#[derive(Serialize)]
pub struct RuleView {
    pub name: String,
    pub params: String,
    pub expr: String,
    pub origin: String,
}

/// A `[[function]]`: a generated wrapper over `jax_cupy_bridge.cupy_lazy_apply`.
#[derive(Serialize)]
pub struct FunctionView {
    pub name: String,
    /// `x, /, *, sigma=1.0, mode='reflect'`
    pub signature: String,
    /// `x: ArrayLike, /, *, sigma: float = 1.0, ...`
    pub typed_signature: String,
    /// `x, sigma=sigma, mode=mode`
    pub call: String,
    pub return_type: String,
    pub docstring: String,
    /// The `_spec.FUNCTIONS` entry, as a Python expression.
    pub entry_py: String,
}

#[derive(Serialize)]
pub struct CudaView {
    pub name: String,
    pub images_static: String,
}

#[derive(Serialize)]
pub struct UfuncView {
    pub name: String,
    pub package: String,
    pub target: String,
    pub headers: Vec<String>,
    pub cuda_headers: Vec<String>,
    /// Attributes of every kernel (`__maxnreg__(N) `), empty for most functions.
    pub kernel_attrs: String,
    /// Whether the kernels declare the `std::` names CuPy's xsf/config.h lacks under NVRTC
    /// (templates/cuda/ufunc.cu.j2), for the headers of NVRTC_STD_GAPS only: every other
    /// kernel's source, and so its cached image, stays as it was.
    pub std_shim: bool,
    /// Whether the kernels declare what xsf/fresnel.h lacks under NVRTC (as `std_shim`).
    pub fresnel_shim: bool,
    /// Whether NVRTC may contract multiply-adds (the spec's `cuda_fmad`), for the banner.
    pub fmad: bool,
    /// The `[[prelude]]`s the function names, in order, before its own `prelude`.
    pub shared_preludes: Vec<SharedPreludeView>,
    pub prelude: String,
    /// `#line` directives (and the indentation that puts the text at its spec column) for
    /// host C++: compiler errors in `prelude`/`expr` point at the spec.
    pub prelude_at: LineView,
    pub expr_at: LineView,
    pub nin: usize,
    pub nout: usize,
    pub loops: Vec<LoopView>,
    pub params: String,
    pub typed_params: String,
    pub return_type: String,
    pub docstring: String,
    pub inputs_py: String,
    pub outputs_py: String,
    pub loops_py: String,
    pub platforms_py: String,
    /// The loops with CUDA kernels when that is not all of them (`cuda_loops`), else "".
    pub cuda_loops_py: String,
    /// Why it has no CUDA kernels (`[[host_only]]`), as a Python string literal; else "".
    pub host_only_why_py: String,
    pub handlers_py: String,
    /// `("x",)`: the inputs with a derivative rule (the rules are in `_rules.py`).
    pub derivatives_py: String,
    pub nondiff_py: String,
    /// Core dimensions of all operands together (0: an elementwise function).
    pub core_dims: usize,
    /// `"(n)->(n+1)"`, for a generalized ufunc; else "".
    pub signature: String,
    /// Its core dimensions as `_spec.py` data: per input and output, `(name, add)` pairs
    /// (`(None, 3)` for a fixed size); else "".
    pub core_py: String,
    /// Whether the function has host loops.
    pub cpu: bool,
    /// Whether the function has CUDA kernels.
    pub cuda: bool,
}

#[derive(Serialize)]
pub struct SharedPreludeView {
    /// The include guard of its host copy: every function naming it emits it, and the host
    /// loops are one translation unit.
    pub guard: String,
    pub code: String,
    pub at: LineView,
}

#[derive(Serialize)]
pub struct LineView {
    pub directive: String,
    pub pad: String,
}

impl LineView {
    fn new(pkg: &Package, at: crate::ir::SourceAt) -> LineView {
        LineView {
            directive: format!("#line {} {}", at.line.max(1), crate::emit::escape::cpp_str(pkg.spec_file(at))),
            pad: " ".repeat(at.col.saturating_sub(1) as usize),
        }
    }
}

#[derive(Serialize)]
pub struct LoopView {
    pub symbol: String,
    /// Element sizes of the operands, comma-separated (template arguments).
    pub sizes: String,
    pub loads: Vec<VarView>,
    pub outs: Vec<VarView>,
    pub statement: bool,
    pub expr: String,
    /// What the CUDA kernel evaluates: `expr` unless the spec gives a `cuda_expr`.
    pub cuda_expr: String,
    /// Whether this loop has a CUDA kernel (`cuda_loops`).
    pub cuda: bool,
}

#[derive(Serialize)]
pub struct VarView {
    pub name: String,
    /// C++ type the expression sees.
    pub ctype: String,
    /// C++ type in memory.
    pub store: String,
    /// Core dimensions of the operand (0: a scalar per element).
    pub rank: usize,
    /// Where its extents start among the call's core extents.
    pub at: usize,
}

/// The contract stamped into both halves: generator version, spec hash, FFI API version.
pub fn contract(pkg: &Package) -> String {
    format!(
        "bridgegen {}; spec sha256:{}; xla-ffi-api {}.{}",
        env!("CARGO_PKG_VERSION"),
        &pkg.spec_hash[..16],
        crate::reported_ffi_api().0,
        crate::reported_ffi_api().1
    )
}

fn py_tuple(items: &[String]) -> String {
    match items {
        [one] => format!("({},)", q(one)),
        _ => format!("({})", items.iter().map(|s| q(s)).collect::<Vec<_>>().join(", ")),
    }
}

/// A Python string literal (emit/escape.rs).
fn q(s: &str) -> String {
    crate::emit::escape::py_str(s)
}

pub fn package_view(pkg: &Package) -> PackageView {
    PackageView {
        package: pkg.name.clone(),
        version: pkg.version.clone(),
        summary: if pkg.summary.is_empty() {
            format!("{} (generated by bridgegen)", pkg.name)
        } else {
            pkg.summary.clone()
        },
        spec_path: pkg.spec_path.clone(),
        crate_name: names::crate_name(&pkg.name),
        lib_name: format!("{}_ffi", pkg.name),
        library: names::library_file(&pkg.name),
        contract_symbol: names::contract_symbol(&pkg.name),
        contract: contract(pkg),
        runtime_path: format!("../{}", crate::runtime_src::VENDORED[0].0),
        build_path: format!("../{}", crate::runtime_src::VENDORED[1].0),
        cpu_sources: vec!["cpu/loops.cpp".into()],
        cuda_archs_symbol: names::cuda_archs_symbol(&pkg.name),
        build_info_symbol: names::build_info_symbol(&pkg.name),
        cuda_ufuncs: pkg
            .ufuncs
            .iter()
            .filter(|u| u.platforms.contains(&Platform::Cuda))
            .map(|u| CudaView { name: u.name.clone(), images_static: names::images_static(&u.name) })
            .collect(),
        ufuncs: pkg.ufuncs.iter().map(|u| ufunc_view(pkg, u)).collect(),
        functions: pkg.functions.iter().map(function_view).collect(),
        rules: rules_view(pkg),
    }
}

fn rules_view(pkg: &Package) -> RulesView {
    use crate::ir::pyexpr::{self, Use};
    let mut rules = Vec::new();
    let mut modules = std::collections::BTreeSet::new();
    let mut called = std::collections::BTreeSet::new();
    let own: Vec<&str> =
        pkg.ufuncs.iter().map(|u| u.name.as_str()).chain(pkg.functions.iter().map(|f| f.name.as_str())).collect();
    let mut note = |expr: &str| {
        // Canonical text from the checker: it parses.
        for (name, _, how) in pyexpr::names(&pyexpr::parse(expr).expect("canonical rule text parses")) {
            match how {
                Use::Attribute if matches!(name.as_str(), "jnp" | "lax" | "jsp" | "np") => {
                    modules.insert(name);
                }
                Use::Call if own.contains(&name.as_str()) => {
                    called.insert(name);
                }
                _ => {}
            }
        }
    };
    let mut derivatives = Vec::new();
    for u in pkg.ufuncs.iter().filter(|u| !u.derivatives.is_empty()) {
        let mut per = Vec::new();
        for (arg, expr) in &u.derivatives {
            note(expr);
            let name = format!("_d_{}__{arg}", u.name);
            per.push(format!("{}: {name}", q(arg)));
            rules.push(RuleView {
                name,
                // Inputs then outputs (`out` for a single output), as the runtime calls it.
                params: u.inputs.iter().chain(&u.outputs).cloned().collect::<Vec<_>>().join(", "),
                expr: expr.clone(),
                origin: format!("d {} / d {arg}", u.name),
            });
        }
        derivatives.push(format!("    {}: {{{}}},", q(&u.name), per.join(", ")));
    }
    let mut functions = Vec::new();
    for f in &pkg.functions {
        let mut params: Vec<String> = f.inputs.iter().map(|a| a.name.clone()).collect();
        if !f.params.is_empty() {
            params.push("*".into());
            params.extend(f.params.iter().map(|p| p.name.clone()));
        }
        let params = params.join(", ");
        let mut rule = |kind: &str, what: &str, expr: &str| -> String {
            note(expr);
            let name = format!("_{kind}_{}__{what}", f.name);
            rules.push(RuleView {
                name: name.clone(),
                params: params.clone(),
                expr: expr.to_string(),
                origin: format!("{} of {}.{what}", kind, f.name),
            });
            name
        };
        let tuple = |v: Vec<String>| if v.len() == 1 { format!("({},)", v[0]) } else { format!("({})", v.join(", ")) };
        let shapes: Vec<String> = f.outputs.iter().map(|o| rule("shape", &o.name, &o.shape)).collect();
        let dtypes: Vec<String> = f
            .outputs
            .iter()
            .map(|o| if o.dtype.chars().count() == 1 { q(&o.dtype) } else { rule("dtype", &o.name, &o.dtype) })
            .collect();
        let workspace: Vec<String> = f.workspace.iter().map(|(n, b)| rule("workspace", n, b)).collect();
        functions.push(format!(
            "    {}: dict(shapes={}, dtypes={}, workspace={}),",
            q(&f.name),
            tuple(shapes),
            tuple(dtypes),
            if workspace.is_empty() { "()".into() } else { tuple(workspace) }
        ));
    }
    let table =
        |rows: Vec<String>| if rows.is_empty() { "{}".to_string() } else { format!("{{\n{}\n}}", rows.join("\n")) };
    let imports = modules
        .iter()
        .map(|m| match m.as_str() {
            "jnp" => "import jax.numpy as jnp",
            "jsp" => "import jax.scipy.special as jsp",
            "lax" => "from jax import lax",
            _ => "import numpy as np",
        })
        .map(String::from)
        .collect();
    RulesView {
        imports,
        package_functions: called.into_iter().collect(),
        rules,
        derivatives_py: table(derivatives),
        functions_py: table(functions),
    }
}

/// Headers of CuPy 14.2's xsf that call `std::fabs`, `std::expm1`, `std::tanh` or `std::real`/`imag`, which its
/// config.h does not provide under NVRTC (a device build of them fails without the shim).
const NVRTC_STD_GAPS: &[&str] =
    &["xsf/exp.h", "xsf/convex_analysis.h", "xsf/boxcox.h", "xsf/ndtri_exp.h", "xsf/cephes/ellpj.h"];

/// The header of CuPy 14.2's xsf that calls `pow` and `sqrt` of ints (ambiguous under NVRTC)
/// and `std::sin`/`std::cos` of a complex (not in its config.h); the template declares them.
const NVRTC_FRESNEL_GAPS: &str = "xsf/fresnel.h";

/// The C++ variables of a loop's inputs or outputs.
fn vars(names: &[String], store: &[DType], compute: &[DType], layout: &[(usize, usize)]) -> Vec<VarView> {
    names
        .iter()
        .zip(store.iter().zip(compute))
        .zip(layout)
        .map(|((n, (s, c)), &(rank, at))| VarView {
            name: n.clone(),
            ctype: c.cpp().into(),
            store: s.cpp().into(),
            rank,
            at,
        })
        .collect()
}

/// Per operand (inputs then outputs): its core rank and where its extents start.
fn core_layout(u: &Ufunc) -> Vec<(usize, usize)> {
    let mut at = 0;
    let ranks: Vec<usize> = match &u.signature {
        Some(sig) => sig.operands().map(Vec::len).collect(),
        None => vec![0; u.inputs.len() + u.outputs.len()],
    };
    ranks
        .into_iter()
        .map(|r| {
            at += r;
            (r, at - r)
        })
        .collect()
}

fn core_py(sig: &crate::ir::signature::Signature) -> String {
    let dims = |ops: &[Vec<crate::ir::signature::CoreDim>]| {
        let groups: Vec<String> = ops
            .iter()
            .map(|dims| {
                let ds: Vec<String> = dims
                    .iter()
                    .map(|d| format!("({}, {})", d.name.as_deref().map_or("None".to_string(), q), d.add))
                    .collect();
                if ds.len() == 1 {
                    format!("({},)", ds[0])
                } else {
                    format!("({})", ds.join(", "))
                }
            })
            .collect();
        if groups.len() == 1 {
            format!("({},)", groups[0])
        } else {
            format!("({})", groups.join(", "))
        }
    };
    format!("dict(inputs={}, outputs={})", dims(&sig.inputs), dims(&sig.outputs))
}

fn ufunc_view(pkg: &Package, u: &Ufunc) -> UfuncView {
    let statement = matches!(u.expr, Expr::Statement(_));
    let layout = core_layout(u);
    let nin = u.inputs.len();
    let expr = u.expr.text().to_string();
    let cuda_expr = u.cuda_expr.as_ref().map_or(expr.as_str(), Expr::text);
    let loops = u
        .loops
        .iter()
        .map(|l| LoopView {
            symbol: names::loop_symbol(&pkg.name, &u.name, l),
            sizes: l.inputs.iter().chain(&l.outputs).map(|d| d.size().to_string()).collect::<Vec<_>>().join(", "),
            loads: vars(&u.inputs, &l.inputs, &l.compute_inputs, &layout),
            outs: vars(&u.outputs, &l.outputs, &l.compute_outputs, &layout[nin..]),
            statement,
            expr: expr.clone(),
            cuda_expr: u.cuda_expr_by_loop.get(&l.signature()).map_or(cuda_expr, Expr::text).to_string(),
            cuda: u.on_device(l),
        })
        .collect();
    let params = u.inputs.join(", ");
    let typed_params = u.inputs.iter().map(|i| format!("{i}: ArrayLike")).collect::<Vec<_>>().join(", ");
    let return_type = if u.outputs.len() == 1 {
        "jax.Array".to_string()
    } else {
        format!("tuple[{}]", vec!["jax.Array"; u.outputs.len()].join(", "))
    };
    let handlers: Vec<String> = u
        .platforms
        .iter()
        .map(|p| format!("{}: {}", q(p.as_str()), q(&names::handler_symbol(&pkg.name, &u.name, *p))))
        .collect();
    UfuncView {
        name: u.name.clone(),
        package: pkg.name.clone(),
        target: names::xla_target(&pkg.name, &u.name),
        headers: u.headers.clone(),
        cuda_headers: u.cuda_headers.clone(),
        kernel_attrs: if u.cuda_max_registers > 0 {
            format!("__maxnreg__({}) ", u.cuda_max_registers)
        } else {
            String::new()
        },
        std_shim: u.cuda_headers.iter().any(|h| NVRTC_STD_GAPS.contains(&h.as_str())),
        fresnel_shim: u.cuda_headers.iter().any(|h| h == NVRTC_FRESNEL_GAPS),
        fmad: u.cuda_fmad,
        shared_preludes: u
            .shared_preludes
            .iter()
            .map(|p| SharedPreludeView {
                guard: format!("BG_PRELUDE_{}", p.name),
                code: p.code.clone(),
                at: LineView::new(pkg, p.at),
            })
            .collect(),
        prelude: u.prelude.clone(),
        prelude_at: LineView::new(pkg, u.prelude_at),
        expr_at: LineView::new(pkg, u.expr_at),
        nin: u.inputs.len(),
        nout: u.outputs.len(),
        loops,
        docstring: docstring(u),
        params,
        typed_params,
        return_type,
        inputs_py: py_tuple(&u.inputs),
        outputs_py: py_tuple(&u.outputs),
        loops_py: py_tuple(&u.loops.iter().map(|l| l.signature()).collect::<Vec<_>>()),
        platforms_py: py_tuple(&u.platforms.iter().map(|p| p.as_str().to_string()).collect::<Vec<_>>()),
        cuda_loops_py: if u.device_subset() {
            py_tuple(&u.loops.iter().filter(|l| u.on_device(l)).map(|l| l.signature()).collect::<Vec<_>>())
        } else {
            String::new()
        },
        host_only_why_py: u.host_only_why.as_deref().map(q).unwrap_or_default(),
        handlers_py: format!("{{{}}}", handlers.join(", ")),
        derivatives_py: if u.derivatives.is_empty() {
            "()".into()
        } else {
            py_tuple(&u.derivatives.keys().cloned().collect::<Vec<_>>())
        },
        nondiff_py: if u.nondiff.is_empty() { "()".into() } else { py_tuple(&u.nondiff) },
        core_dims: layout.iter().map(|(r, _)| r).sum(),
        signature: u.signature.as_ref().map(|s| s.text()).unwrap_or_default(),
        core_py: u.signature.as_ref().map(core_py).unwrap_or_default(),
        cpu: u.platforms.contains(&Platform::Cpu),
        cuda: u.platforms.contains(&Platform::Cuda),
    }
}

fn docstring(u: &Ufunc) -> String {
    let mut s = if u.doc.is_empty() { format!("{}.", u.name) } else { u.doc.clone() };
    s.push_str("\n\n");
    if let Some(sp) = &u.scipy {
        s.push_str(&format!(
            "    Equivalent to ``{sp}``: https://docs.scipy.org/doc/scipy/reference/generated/{sp}.html\n"
        ));
    }
    if let Some(cp) = &u.cupy {
        s.push_str(&format!("    CuPy equivalent: ``{cp}``.\n"));
    }
    let loops: Vec<String> = u.loops.iter().map(|l| l.signature()).collect();
    s.push_str(&format!("    Type loops: {}.\n", loops.join(", ")));
    let plats: Vec<&str> = u.platforms.iter().map(|p| p.as_str()).collect();
    s.push_str(&format!("    Platforms: {}.", plats.join(", ")));
    if let Some(why) = &u.host_only_why {
        s.push_str(&format!("\n    No CUDA kernels: {}.", why.trim_end_matches('.')));
    }
    if u.device_subset() {
        let dev: Vec<String> = u.loops.iter().filter(|l| u.on_device(l)).map(|l| l.signature()).collect();
        s.push_str(&format!("\n    On CUDA devices only loops {}; the others run on the host only.", dev.join(", ")));
    }
    if let Some(e) = &u.cuda_expr {
        s.push_str(&format!("\n    On CUDA devices computed as ``{}`` instead of ``{}``.", e.text(), u.expr.text()));
    }
    if !u.cuda_expr_by_loop.is_empty() {
        let each: Vec<String> =
            u.cuda_expr_by_loop.iter().map(|(l, e)| format!("{l} computes ``{}``", e.text())).collect();
        s.push_str(&format!("\n    On CUDA devices loop {}.", each.join(", loop ")));
    }
    if u.outputs.len() > 1 {
        s.push_str(&format!("\n    Returns a tuple ({}).", u.outputs.join(", ")));
    }
    if let Some(sig) = &u.signature {
        s.push_str(&format!(
            "\n    Generalized ufunc with signature ``{}``: core dimensions are the last axes of each\n    \
             argument, the leading axes broadcast (and ``jax.vmap`` adds more). Not differentiable.",
            sig.text()
        ));
        return indent_doc(&s);
    }
    s.push_str(
        "\n    ``overwrite_input``: whether the result takes the buffer of an input of its shape and\n    \
         dtype (XLA copies the input first where it is still needed). ``None`` (default): in a\n    \
         loop body where the input is carried and used only here (``x = f(x)``), saving a\n    \
         copy per iteration; ``True``: always; ``False``: never.",
    );
    indent_doc(&s)
}

/// Indent continuation lines of the user's doc like the rest of the docstring.
fn indent_doc(s: &str) -> String {
    s.lines()
        .enumerate()
        .map(|(i, l)| if i == 0 || l.is_empty() || l.starts_with("    ") { l.to_string() } else { format!("    {l}") })
        .collect::<Vec<_>>()
        .join("\n")
}

fn function_view(f: &Function) -> FunctionView {
    let py_ty = |t: ParamType| match t {
        ParamType::Int => "int",
        ParamType::Float => "float",
        ParamType::Bool => "bool",
        ParamType::Str => "str",
    };
    let inputs: Vec<String> = f.inputs.iter().map(|a| a.name.clone()).collect();
    let kw = |typed: bool| -> Vec<String> {
        f.params
            .iter()
            .map(|p| {
                let ty = if typed { format!(": {}", py_ty(p.ty)) } else { String::new() };
                match &p.default {
                    Some(d) if typed => format!("{}{ty} = {d}", p.name),
                    Some(d) => format!("{}={d}", p.name),
                    None => format!("{}{ty}", p.name),
                }
            })
            .collect()
    };
    let sig = |ins: Vec<String>, kws: Vec<String>| {
        let mut s = format!("{}, /", ins.join(", "));
        if !kws.is_empty() {
            s.push_str(&format!(", *, {}", kws.join(", ")));
        }
        s
    };
    let mut call = inputs.clone();
    call.extend(f.params.iter().map(|p| format!("{0}={0}", p.name)));
    let tuple = |items: Vec<String>| {
        if items.len() == 1 {
            format!("({},)", items[0])
        } else {
            format!("({})", items.join(", "))
        }
    };
    let entry = format!(
        "dict(\n        cupy={},\n        cpu={},\n        batching={},\n        inputs={},\n        outputs={},\n        workspace={},\n        params={},\n        platforms={},\n    )",
        q(&f.cupy),
        q(&f.cpu),
        q(&f.batching),
        tuple(
            f.inputs
                .iter()
                .map(|a| format!("({}, {}, {})", q(&a.name), q(&a.dtypes.iter().map(|d| d.code()).collect::<String>()), a.rank.map_or("None".into(), |r| r.to_string())))
                .collect()
        ),
        tuple(f.outputs.iter().map(|o| q(&o.name)).collect()),
        tuple(f.workspace.iter().map(|(n, _)| q(n)).collect()),
        tuple(
            f.params
                .iter()
                .map(|p| format!("({}, {}, {}, {})", q(&p.name), q(py_ty(p.ty)), if p.default.is_some() { "True" } else { "False" }, tuple(p.choices.clone())))
                .collect()
        ),
        py_tuple(&f.platforms.iter().map(|p| p.as_str().to_string()).collect::<Vec<_>>()),
    );
    let mut doc = if f.doc.is_empty() { format!("{}.", f.name) } else { f.doc.clone() };
    doc.push_str(&format!(
        "\n\n    Runs ``{}`` on CuPy views of XLA's device buffers (GPU), ``{}`` on NumPy views (CPU), inside ``jax.jit``.",
        f.cupy, f.cpu
    ));
    for p in &f.params {
        if !p.choices.is_empty() {
            doc.push_str(&format!("\n    ``{}``: one of {}.", p.name, p.choices.join(", ")));
        }
    }
    let plats: Vec<&str> = f.platforms.iter().map(|p| p.as_str()).collect();
    doc.push_str(&format!("\n    Platforms: {}.", plats.join(", ")));
    FunctionView {
        name: f.name.clone(),
        signature: sig(inputs.clone(), kw(false)),
        typed_signature: sig(inputs.iter().map(|s| format!("{s}: ArrayLike")).collect(), kw(true)),
        call: call.join(", "),
        return_type: if f.outputs.len() == 1 {
            "jax.Array".into()
        } else {
            format!("tuple[{}]", vec!["jax.Array"; f.outputs.len()].join(", "))
        },
        docstring: doc,
        entry_py: entry,
    }
}
