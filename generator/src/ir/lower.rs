//! Check phase: raw spec -> validated IR. One `check_*` function per concern; every
//! problem is recorded in `Diagnostics` and lowering carries on, so a spec's errors are
//! all reported in one run.

use super::dtype::{parse_loop, LoopError};
use super::expr::{cpp_free_names, is_cpp_keyword, is_identifier, PY_MODULES, PY_RESERVED};
use super::names::is_reserved;
use super::prelude_calls::{self, Owner};
use super::pyexpr::{self, Use};
use super::*;
use crate::diag::{catalog, catalog::Entry, Diagnostics};
use crate::spec::raw::*;
use std::collections::BTreeMap;
use std::ops::Range;
use toml::Spanned;

struct Ctx<'a> {
    diags: &'a mut Diagnostics,
    /// The spec's files, for the source positions the IR keeps (`SourceAt`).
    sources: &'a crate::diag::SourceMap,
    /// Where headers must exist, when known (the xsf include root of a build).
    headers_root: Option<&'a std::path::Path>,
}

impl Ctx<'_> {
    fn err(&mut self, span: Range<usize>, e: Entry) {
        self.diags.error(span, e.message, e.label, e.help);
    }
}

/// Span of the text inside a quoted TOML string, shifted by `offset` characters.
fn inner(span: &Range<usize>, offset: usize, len: usize) -> Range<usize> {
    let start = span.start + 1 + offset;
    start..start + len.max(1)
}

/// Lower and check a parsed spec.
pub fn lower(
    raw: RawSpec,
    sources: &crate::diag::SourceMap,
    spec_hash: String,
    diags: &mut Diagnostics,
    headers_root: Option<&std::path::Path>,
) -> Option<Package> {
    let mut cx = Ctx { diags, sources, headers_root };
    let Some(pkg) = raw.package else {
        cx.err(raw.doc_span.clone(), catalog::missing_package());
        return None;
    };
    if check_name(&mut cx, "package name", &pkg.name)
        && super::pymodules::SHADOWED.contains(&pkg.name.get_ref().as_str())
    {
        cx.err(pkg.name.span(), catalog::shadowing_package(pkg.name.get_ref()));
    }
    let version = pkg.version.get_ref();
    let parts: Vec<&str> = version.split('.').collect();
    if parts.len() != 3 || parts.iter().any(|p| p.is_empty() || !p.chars().all(|c| c.is_ascii_digit())) {
        cx.err(pkg.version.span(), catalog::bad_version(version));
    }
    if let Some(src) = &pkg.headers_from {
        if src.get_ref() != "cupy" {
            cx.err(
                src.span(),
                Entry {
                    message: format!("unknown header source `{}`", src.get_ref()),
                    label: "unknown source".into(),
                    help: Some("only \"cupy\" (the CuPy wheel's xsf headers) is supported".into()),
                },
            );
        }
    }

    let default_platforms = raw
        .defaults
        .platforms
        .as_ref()
        .map(|p| check_platforms(&mut cx, p))
        .unwrap_or_else(|| Platform::ALL.into_iter().collect());
    let default_headers = raw.defaults.headers.as_deref().unwrap_or(&[]);

    let mut seen: BTreeMap<String, Range<usize>> = BTreeMap::new();
    let mut all_names: Vec<&Spanned<String>> = raw.ufuncs.iter().map(|u| &u.name).collect();
    all_names.extend(raw.functions.iter().map(|f| &f.name));
    let mut folded: BTreeMap<String, String> = BTreeMap::new();
    for n in all_names {
        if seen.insert(n.get_ref().clone(), n.span()).is_some() {
            cx.err(n.span(), catalog::duplicate("function", n.get_ref()));
        } else if let Some(other) = folded.insert(n.get_ref().to_ascii_lowercase(), n.get_ref().clone()) {
            cx.err(n.span(), catalog::case_collision("function", n.get_ref(), &other));
        }
    }
    let function_names: Vec<String> = seen.keys().cloned().collect();
    let preludes = check_preludes(&mut cx, &raw.preludes);
    // Each function's own `prelude`, read once for its definitions and its calls.
    let own: Vec<Option<prelude_calls::Names>> =
        raw.ufuncs.iter().map(|u| u.prelude.as_ref().map(|p| prelude_calls::scan(p.get_ref(), false))).collect();
    let defs = defined_functions(&preludes, raw.ufuncs.iter().zip(&own));

    let mut ufuncs: Vec<Ufunc> = raw
        .ufuncs
        .iter()
        .zip(&own)
        .filter_map(|(u, names)| {
            let code = PreludeCode { known: &preludes, defs: &defs, own: names.as_ref() };
            lower_ufunc(&mut cx, u, &default_platforms, default_headers, &function_names, code)
        })
        .collect();
    let mut functions: Vec<Function> =
        raw.functions.iter().filter_map(|f| lower_function(&mut cx, f, &default_platforms)).collect();
    let ufunc_names: Vec<&str> = raw.ufuncs.iter().map(|u| u.name.get_ref().as_str()).collect();
    let host_only = check_host_only(&mut cx, &raw.host_only, &ufunc_names, &ufuncs);
    check_device_rules(&mut cx, &raw.ufuncs, &ufuncs);
    for u in &mut ufuncs {
        u.host_only_why = host_only.get(&u.name).cloned();
    }
    if !cx.diags.is_empty() {
        return None;
    }
    ufuncs.sort_by(|a, b| a.name.cmp(&b.name));
    functions.sort_by(|a, b| a.name.cmp(&b.name));
    Some(Package {
        name: pkg.name.into_inner(),
        version: pkg.version.into_inner(),
        summary: pkg.summary.map(Spanned::into_inner).unwrap_or_default(),
        spec_path: sources.files[0].origin.clone(),
        spec_files: sources.files.iter().map(|f| f.origin.clone()).collect(),
        spec_hash,
        ufuncs,
        functions,
    })
}

fn check_name(cx: &mut Ctx, what: &str, name: &Spanned<String>) -> bool {
    let n = name.get_ref();
    if !is_identifier(n) {
        cx.err(name.span(), catalog::bad_identifier(what, n));
        false
    } else if is_reserved(n) || PY_RESERVED.contains(&n.as_str()) {
        cx.err(name.span(), catalog::reserved_name(what, n));
        false
    } else {
        true
    }
}

fn check_platforms(cx: &mut Ctx, list: &Spanned<Vec<Spanned<String>>>) -> BTreeSet<Platform> {
    if list.get_ref().is_empty() {
        cx.err(list.span(), catalog::empty_list("platforms"));
    }
    let mut out = BTreeSet::new();
    for p in list.get_ref() {
        match Platform::parse(p.get_ref()) {
            Some(pl) => {
                out.insert(pl);
            }
            None => cx.err(p.span(), catalog::unknown_platform(p.get_ref())),
        }
    }
    out
}

fn check_headers(cx: &mut Ctx, headers: &[Spanned<String>]) -> Vec<String> {
    let mut out = Vec::new();
    for h in headers {
        let s = h.get_ref();
        let ok = !s.is_empty()
            && !s.starts_with('/')
            && !s.split('/').any(|c| c == ".." || c.is_empty())
            && (s.ends_with(".h") || s.ends_with(".hpp") || s.ends_with(".cuh"))
            && s.chars().all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c));
        if !ok {
            cx.err(h.span(), catalog::bad_header(s));
        } else if cx.headers_root.is_some_and(|r| !r.join(s).is_file()) {
            cx.err(h.span(), catalog::missing_header_file(s));
        } else if !out.contains(s) {
            out.push(s.clone()); // include order matters in C++: keep the spec's
        }
    }
    out
}

/// A checked `[[prelude]]` and the headers it needs, on the host and in CUDA kernels.
struct Prelude {
    shared: SharedPrelude,
    headers: Vec<String>,
    cuda_headers: Vec<String>,
    /// The functions its code defines and calls (prelude_calls).
    names: prelude_calls::Names,
}

fn check_preludes(cx: &mut Ctx, raw: &[RawPrelude]) -> BTreeMap<String, Prelude> {
    let mut out = BTreeMap::new();
    for p in raw {
        let name = p.name.get_ref();
        if !check_name(cx, "prelude name", &p.name) {
            continue;
        }
        if out.contains_key(name) {
            cx.err(p.name.span(), catalog::duplicate("prelude", name));
            continue;
        }
        let code = p.code.get_ref().trim().to_string();
        if code.is_empty() {
            cx.err(p.code.span(), catalog::empty_prelude(name));
        }
        let headers = p.headers.as_deref().map(|h| check_headers(cx, h)).unwrap_or_default();
        let cuda_headers = p.cuda_headers.as_deref().map_or_else(|| headers.clone(), |h| check_headers(cx, h));
        let at = SourceAt::of_string(cx.sources, &p.code.span());
        let names = prelude_calls::scan(p.code.get_ref(), false);
        out.insert(
            name.clone(),
            Prelude { shared: SharedPrelude { name: name.clone(), code, at }, headers, cuda_headers, names },
        );
    }
    out
}

/// Function name -> why it has no CUDA kernels, from the `[[host_only]]` groups: each names
/// known [[ufunc]]s without the cuda platform, each function in one group at most.
fn check_host_only(cx: &mut Ctx, raw: &[RawHostOnly], known: &[&str], ufuncs: &[Ufunc]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for g in raw {
        let why = g.why.get_ref().trim();
        if why.is_empty() {
            cx.err(g.why.span(), catalog::host_only_empty("why"));
        }
        if g.functions.get_ref().is_empty() {
            cx.err(g.functions.span(), catalog::host_only_empty("functions"));
        }
        for n in g.functions.get_ref() {
            let name = n.get_ref();
            if !known.contains(&name.as_str()) {
                cx.err(n.span(), catalog::host_only_unknown(name, known));
            } else if ufuncs.iter().any(|u| &u.name == name && u.platforms.contains(&Platform::Cuda)) {
                cx.err(n.span(), catalog::host_only_on_device(name));
            } else if out.insert(name.clone(), why.to_string()).is_some() {
                cx.err(n.span(), catalog::host_only_twice(name));
            }
        }
    }
    out
}

/// The `[[prelude]]`s a function names, checked, in its order.
fn resolve_preludes<'p>(
    cx: &mut Ctx,
    names: Option<&[Spanned<String>]>,
    known: &'p BTreeMap<String, Prelude>,
) -> Vec<&'p Prelude> {
    let mut out: Vec<&Prelude> = Vec::new();
    for n in names.unwrap_or(&[]) {
        match known.get(n.get_ref()) {
            Some(p) if out.iter().any(|q| q.shared.name == p.shared.name) => {
                cx.err(n.span(), catalog::repeated_prelude(n.get_ref()));
            }
            Some(p) => out.push(p),
            None => {
                let names: Vec<&str> = known.keys().map(String::as_str).collect();
                cx.err(n.span(), catalog::unknown_prelude(n.get_ref(), &names));
            }
        }
    }
    out
}

/// `base` followed by the headers of `preludes` it lacks (include order: the function's
/// first), each prelude's `headers` or `cuda_headers` as `of` picks.
fn with_prelude_headers(mut base: Vec<String>, preludes: &[&Prelude], of: fn(&Prelude) -> &Vec<String>) -> Vec<String> {
    for h in preludes.iter().flat_map(|p| of(p)) {
        if !base.contains(h) {
            base.push(h.clone());
        }
    }
    base
}

fn check_arg_names(
    cx: &mut Ctx,
    what: &str,
    names: &[Spanned<String>],
    seen: &mut BTreeMap<String, ()>,
) -> Vec<String> {
    let mut out = Vec::new();
    for n in names {
        let s = n.get_ref();
        if !is_identifier(s) {
            cx.err(n.span(), catalog::bad_identifier(what, s));
        } else if is_reserved(s) || PY_RESERVED.contains(&s.as_str()) {
            cx.err(n.span(), catalog::reserved_name(what, s));
        } else if is_cpp_keyword(s) {
            cx.err(n.span(), catalog::cpp_reserved(what, s));
        } else if seen.insert(s.clone(), ()).is_some() {
            cx.err(n.span(), catalog::name_clash_or_dup(what, s));
        }
        out.push(s.clone());
    }
    out
}

/// The C++ a function may call into: the spec's preludes, where each function they and the
/// functions' own `prelude`s define is defined, and this function's own `prelude`, read.
struct PreludeCode<'a> {
    known: &'a BTreeMap<String, Prelude>,
    defs: &'a BTreeMap<String, Vec<Owner>>,
    own: Option<&'a prelude_calls::Names>,
}

/// Every function the preludes and the functions' own `prelude`s define, and where.
fn defined_functions<'a>(
    preludes: &'a BTreeMap<String, Prelude>,
    ufuncs: impl Iterator<Item = (&'a RawUfunc, &'a Option<prelude_calls::Names>)>,
) -> BTreeMap<String, Vec<Owner>> {
    let mut defs: BTreeMap<String, Vec<Owner>> = BTreeMap::new();
    let own = ufuncs.filter_map(|(u, names)| names.as_ref().map(|n| (Owner::Own(u.name.get_ref().clone()), &n.defs)));
    let shared = preludes.iter().map(|(n, p)| (Owner::Prelude(n.clone()), &p.names.defs));
    for (owner, found) in shared.chain(own) {
        for d in found.iter().cloned() {
            let owners = defs.entry(d).or_default();
            if !owners.contains(&owner) {
                owners.push(owner.clone());
            }
        }
    }
    defs
}

/// A function's code that may call into preludes: a listed prelude (`through`), its own
/// `prelude` or an expression, as the spec holds it at `span`, seeing the first `sees`
/// listed preludes.
struct CallingCode<'a> {
    code: &'a str,
    span: Range<usize>,
    calls: Vec<prelude_calls::Call>,
    through: Option<&'a str>,
    sees: usize,
}

/// Each call into a prelude's function must find that prelude listed by the function, before
/// the prelude that calls it (the function's own `prelude` and expressions come after all
/// of them): NVRTC compiles each function with its listed preludes only (prelude_calls).
fn check_prelude_calls(
    cx: &mut Ctx,
    u: &RawUfunc,
    (preludes, own): (&[&Prelude], Option<&prelude_calls::Names>),
    defs: &BTreeMap<String, Vec<Owner>>,
) {
    let function = u.name.get_ref();
    let listed: Vec<&str> = preludes.iter().map(|p| p.shared.name.as_str()).collect();
    let raw_entry = |name: &str| u.preludes.iter().flatten().find(|n| n.get_ref() == name).map(|n| n.span());
    let mut blocks: Vec<CallingCode> = Vec::new();
    for (k, p) in preludes.iter().enumerate() {
        let span = raw_entry(&p.shared.name).unwrap_or_else(|| u.name.span());
        blocks.push(CallingCode {
            code: &p.shared.code,
            span,
            calls: p.names.calls.clone(),
            through: Some(&p.shared.name),
            sees: k + 1,
        });
    }
    if let (Some(p), Some(names)) = (&u.prelude, own) {
        let calls = names.calls.clone();
        blocks.push(CallingCode { code: p.get_ref(), span: p.span(), calls, through: None, sees: listed.len() });
    }
    let exprs =
        std::iter::once(&u.expr).chain(u.cuda_expr.iter()).chain(u.cuda_expr_by_loop.iter().flat_map(|m| m.values()));
    for e in exprs {
        let calls = prelude_calls::scan(e.get_ref(), true).calls;
        blocks.push(CallingCode { code: e.get_ref(), span: e.span(), calls, through: None, sees: listed.len() });
    }
    let mut reported = std::collections::BTreeSet::new();
    for CallingCode { code, span, calls, through, sees } in blocks {
        for call in calls {
            let Some((path, owners)) = prelude_calls::resolve(&call, defs) else { continue };
            let visible = owners.iter().any(|o| match o {
                Owner::Prelude(n) => listed[..sees].contains(&n.as_str()),
                Owner::Own(f) => f == function && through.is_none(),
            });
            if visible {
                continue;
            }
            // Where: a prelude's call at its entry in `preludes`; the function's own at the call.
            let at = if through.is_some() { span.clone() } else { locate(cx, code, &span, &call.at) };
            let later = owners.iter().find_map(|o| match o {
                Owner::Prelude(n) if listed.contains(&n.as_str()) => Some(n),
                _ => None,
            });
            let shared = owners.iter().find_map(|o| match o {
                Owner::Prelude(n) => Some(n),
                Owner::Own(_) => None,
            });
            let (owner, entry) = match (later, shared, through) {
                (Some(owner), _, Some(caller)) => (owner, catalog::prelude_listed_after(function, path, owner, caller)),
                (_, Some(owner), _) => (owner, catalog::prelude_not_listed(function, path, owner, through)),
                _ => {
                    let Some(Owner::Own(other)) = owners.first() else { continue };
                    (other, catalog::own_prelude_call(function, path, other))
                }
            };
            // One error for each missing prelude and caller: its first call.
            if reported.insert((owner.clone(), through)) {
                cx.err(at, entry);
            }
        }
    }
}

/// The span in the spec of `at`, a range of `code` (the value of the TOML string at `span`):
/// the same text's occurrence in the source, counted as in the value (escapes aside).
fn locate(cx: &Ctx, code: &str, span: &Range<usize>, at: &Range<usize>) -> Range<usize> {
    let Some(snippet) = code.get(at.clone()) else { return span.clone() };
    let nth = code[..at.start].matches(snippet).count();
    let source = cx.sources.text().get(span.clone()).unwrap_or("");
    match source.match_indices(snippet).nth(nth) {
        Some((i, _)) => span.start + i..span.start + i + snippet.len(),
        None => span.clone(),
    }
}

fn lower_ufunc(
    cx: &mut Ctx,
    u: &RawUfunc,
    default_platforms: &BTreeSet<Platform>,
    default_headers: &[Spanned<String>],
    functions: &[String],
    code: PreludeCode,
) -> Option<Ufunc> {
    let before = cx.diags.len();
    check_name(cx, "function name", &u.name);
    let name = u.name.get_ref().clone();

    let headers_raw = u.headers.as_deref().unwrap_or(default_headers);
    let preludes = resolve_preludes(cx, u.preludes.as_deref(), code.known);
    check_prelude_calls(cx, u, (&preludes, code.own), code.defs);
    if headers_raw.is_empty() && preludes.iter().all(|p| p.headers.is_empty()) {
        cx.err(u.name.span(), catalog::missing_header(&name));
    }
    let headers = check_headers(cx, headers_raw);
    let cuda_headers = u.cuda_headers.as_ref().map_or_else(|| headers.clone(), |h| check_headers(cx, h.get_ref()));
    let headers = with_prelude_headers(headers, &preludes, |p| &p.headers);
    let cuda_headers = with_prelude_headers(cuda_headers, &preludes, |p| &p.cuda_headers);

    if u.inputs.get_ref().is_empty() {
        cx.err(u.inputs.span(), catalog::empty_list("inputs"));
    }
    let mut seen = BTreeMap::new();
    let inputs = check_arg_names(cx, "input", u.inputs.get_ref(), &mut seen);
    let outputs = match &u.outputs {
        Some(o) => {
            if o.get_ref().is_empty() {
                cx.err(o.span(), catalog::empty_list("outputs"));
            }
            check_arg_names(cx, "output", o.get_ref(), &mut seen)
        }
        None => vec!["out".to_string()],
    };

    let signature = u.signature.as_ref().and_then(|s| check_signature(cx, s, inputs.len(), outputs.len()));
    // Expressions: every free variable must be an input (or, with several outputs or core
    // dimensions, an output: the expression is then a statement that writes them).
    // (By the key, not its parse: a signature with a mistake still makes `expr` a statement.)
    let statement = outputs.len() > 1 || u.signature.is_some();
    let expr = check_expr(cx, &u.expr, &inputs, &outputs, statement);
    let cuda_expr = u.cuda_expr.as_ref().map(|e| check_expr(cx, e, &inputs, &outputs, statement));

    let loops = check_loops(cx, &u.loops, inputs.len(), outputs.len());
    if u.signature.is_some() {
        // Core views are over the stored element type (`bridgegen::core_view<const float, 1>`).
        for (l, raw) in loops.iter().zip(u.loops.get_ref()) {
            if l.inputs != l.compute_inputs || l.outputs != l.compute_outputs {
                cx.err(raw.span(), catalog::gufunc_key("a cast loop (`as ...`)"));
            }
        }
        if let Some((k, _)) = u.derivatives.iter().flatten().next() {
            cx.err(k.span(), catalog::gufunc_key("derivatives"));
        }
    }
    let platforms = u.platforms.as_ref().map_or_else(|| default_platforms.clone(), |p| check_platforms(cx, p));
    if let Some(e) = &u.cuda_expr {
        if !platforms.contains(&Platform::Cuda) {
            cx.err(e.span(), catalog::cuda_expr_without_cuda("cuda_expr"));
        }
    }
    let declared: Vec<String> = loops.iter().map(Loop::signature).collect();
    // A loop named in cuda_loops / cuda_expr_by_loop, as `Loop::signature` spells it.
    let loop_key = |k: &Spanned<String>| -> String { k.get_ref().chars().filter(|c| !c.is_whitespace()).collect() };
    let on_cuda = platforms.contains(&Platform::Cuda);
    if let Some(h) = &u.cuda_headers {
        if !on_cuda {
            cx.err(h.span(), catalog::cuda_expr_without_cuda("cuda_headers"));
        }
    }
    let cuda_loops: BTreeSet<String> = match &u.cuda_loops {
        Some(c) if !on_cuda => {
            cx.err(c.span(), catalog::cuda_expr_without_cuda("cuda_loops"));
            BTreeSet::new()
        }
        _ if !on_cuda => BTreeSet::new(),
        None => declared.iter().cloned().collect(),
        Some(c) => {
            if c.get_ref().is_empty() {
                cx.err(c.span(), catalog::empty_cuda_loops());
            }
            for k in c.get_ref().iter().filter(|k| !declared.contains(&loop_key(k))) {
                cx.err(k.span(), catalog::unknown_loop("cuda_loops", k.get_ref(), &declared));
            }
            c.get_ref().iter().map(loop_key).collect()
        }
    };
    let mut cuda_expr_by_loop = BTreeMap::new();
    for (k, v) in u.cuda_expr_by_loop.iter().flatten() {
        let e = check_expr(cx, v, &inputs, &outputs, statement);
        let sig = loop_key(k);
        if !on_cuda {
            cx.err(k.span(), catalog::cuda_expr_without_cuda("cuda_expr_by_loop"));
        } else if !declared.contains(&sig) {
            cx.err(k.span(), catalog::unknown_loop("cuda_expr_by_loop", k.get_ref(), &declared));
        } else if !cuda_loops.contains(&sig) {
            cx.err(k.span(), catalog::cuda_expr_host_loop(k.get_ref()));
        }
        cuda_expr_by_loop.insert(sig, e);
    }
    // Inputs a CUDA kernel takes (the size of the kernel's `Geometry`).
    let max_cuda_inputs = crate::abi::abi().max_cuda_inputs;
    if platforms.contains(&Platform::Cuda) && inputs.len() > max_cuda_inputs {
        cx.err(u.inputs.span(), catalog::too_many_cuda_inputs(inputs.len(), max_cuda_inputs));
    }

    let mut derivatives = BTreeMap::new();
    for (k, v) in u.derivatives.iter().flatten() {
        if !inputs.contains(k.get_ref()) {
            cx.err(k.span(), catalog::unknown_input("derivative rule", k.get_ref(), &inputs));
        }
        if let Some(text) = check_derivative(cx, v, &inputs, &outputs, functions) {
            derivatives.insert(k.get_ref().clone(), text);
        }
    }
    let mut nondiff = Vec::new();
    for n in u.nondiff.iter().flatten() {
        if !inputs.contains(n.get_ref()) {
            cx.err(n.span(), catalog::unknown_input("nondiff", n.get_ref(), &inputs));
        } else if derivatives.contains_key(n.get_ref()) {
            cx.err(n.span(), catalog::diff_conflict(n.get_ref()));
        }
        nondiff.push(n.get_ref().clone());
    }
    for (key, value) in [("scipy", &u.scipy), ("cupy", &u.cupy)] {
        if let Some(v) = value {
            if !v.get_ref().split('.').all(is_identifier) {
                cx.err(v.span(), catalog::bad_dotted(key, v.get_ref()));
            }
        }
    }
    let test = u.test.as_ref().map(|t| check_test(cx, t, &inputs)).unwrap_or_default();
    let cuda_max_registers = match &u.cuda_max_registers {
        None => 0,
        Some(r) => match u32::try_from(*r.get_ref()) {
            Ok(v) if (MIN_REGISTERS..=MAX_REGISTERS).contains(&v) && on_cuda => v,
            Ok(_) | Err(_) if !on_cuda => {
                cx.err(r.span(), catalog::cuda_expr_without_cuda("cuda_max_registers"));
                0
            }
            _ => {
                cx.err(r.span(), catalog::bad_cuda_max_registers(MIN_REGISTERS, MAX_REGISTERS));
                0
            }
        },
    };
    let cuda_fmad = match &u.cuda_fmad {
        Some(f) if !on_cuda => {
            cx.err(f.span(), catalog::cuda_expr_without_cuda("cuda_fmad"));
            true
        }
        Some(f) => *f.get_ref(),
        None => true,
    };
    let cuda_stack = match &u.cuda_stack {
        None => 0,
        Some(s) => match u32::try_from(*s.get_ref()) {
            Ok(v) if v <= MAX_CUDA_STACK => v,
            _ => {
                cx.err(s.span(), catalog::bad_cuda_stack(MAX_CUDA_STACK));
                0
            }
        },
    };

    if cx.diags.len() != before {
        return None;
    }
    Some(Ufunc {
        doc: u.doc.as_ref().map(|d| d.get_ref().trim().to_string()).unwrap_or_default(),
        name,
        headers,
        cuda_headers,
        inputs,
        outputs,
        shared_preludes: preludes.iter().map(|p| p.shared.clone()).collect(),
        prelude: u.prelude.as_ref().map(|p| p.get_ref().trim().to_string()).unwrap_or_default(),
        prelude_at: u.prelude.as_ref().map(|p| SourceAt::of_string(cx.sources, &p.span())).unwrap_or_default(),
        expr_at: SourceAt::of_string(cx.sources, &u.expr.span()),
        expr,
        cuda_expr,
        cuda_expr_by_loop,
        loops,
        cuda_loops,
        platforms,
        cuda_stack,
        cuda_max_registers,
        cuda_fmad,
        signature,
        scipy: u.scipy.as_ref().map(|s| s.get_ref().clone()),
        cupy: u.cupy.as_ref().map(|s| s.get_ref().clone()),
        derivatives,
        nondiff,
        test,
        host_only_why: None, // from the [[host_only]] groups, after every ufunc is lowered
    })
}

/// The largest per-thread device stack a spec may ask for (CUDA's own limit is 512 KiB;
/// every resident thread reserves it, so more than this is surely a mistake).
const MAX_CUDA_STACK: u32 = 65536;
/// What `__maxnreg__` can ask: below 16 nothing compiles usefully; 255 is the hardware's limit.
const MIN_REGISTERS: u32 = 16;
const MAX_REGISTERS: u32 = 255;

/// A C++ expression (`expr`, `cuda_expr`) over the inputs; with several outputs, a statement
/// that must assign each of them.
fn check_expr(cx: &mut Ctx, text: &Spanned<String>, inputs: &[String], outputs: &[String], statement: bool) -> Expr {
    if text.get_ref().trim().is_empty() {
        cx.err(text.span(), catalog::empty_expr());
    }
    let mut known: Vec<String> = inputs.to_vec();
    if statement {
        known.extend(outputs.iter().cloned());
    }
    let free = cpp_free_names(text.get_ref());
    for n in &free {
        if !known.contains(&n.text) {
            cx.err(inner(&text.span(), n.offset, n.text.len()), catalog::unknown_variable(&n.text, &known));
        }
    }
    if statement {
        for o in outputs {
            if !free.iter().any(|n| &n.text == o) {
                cx.err(text.span(), catalog::unused_output(o));
            }
        }
        Expr::Statement(text.get_ref().clone())
    } else {
        Expr::Value(text.get_ref().clone())
    }
}

/// A generalized ufunc's `signature`: parsed, one group per input and output, output
/// dimensions bound by the inputs, within the kernels' limit.
fn check_signature(
    cx: &mut Ctx,
    text: &Spanned<String>,
    nin: usize,
    nout: usize,
) -> Option<super::signature::Signature> {
    let sig = match super::signature::parse(text.get_ref()) {
        Ok(s) => s,
        Err(e) => {
            cx.err(inner(&text.span(), e.offset, e.len), catalog::bad_signature(&e.message));
            return None;
        }
    };
    let before = cx.diags.len();
    for (side, groups, declared) in [("input", sig.inputs.len(), nin), ("output", sig.outputs.len(), nout)] {
        if groups != declared {
            cx.err(text.span(), catalog::signature_arity(side, groups, declared));
        }
    }
    let bound: Vec<String> = sig.inputs.iter().flatten().filter_map(|d| d.name.clone()).fold(Vec::new(), |mut v, n| {
        if !v.contains(&n) {
            v.push(n);
        }
        v
    });
    for d in sig.outputs.iter().flatten() {
        if let Some(n) = d.name.as_ref().filter(|n| !bound.contains(n)) {
            let arrow = text.get_ref().find("->").unwrap_or(0);
            let at = text.get_ref()[arrow..].find(n.as_str()).map_or(0, |i| arrow + i);
            cx.err(inner(&text.span(), at, n.len()), catalog::unbound_core_dim(n, &bound));
        }
    }
    let total: usize = sig.operands().map(Vec::len).sum();
    let max = crate::abi::abi().max_core_dims;
    if total == 0 {
        cx.err(text.span(), catalog::no_core_dims());
    } else if total > max {
        cx.err(text.span(), catalog::too_many_core_dims(total, max));
    }
    (cx.diags.len() == before).then_some(sig)
}

fn check_loops(cx: &mut Ctx, loops: &Spanned<Vec<Spanned<String>>>, nin: usize, nout: usize) -> Vec<Loop> {
    if loops.get_ref().is_empty() {
        cx.err(loops.span(), catalog::empty_list("loops"));
    }
    let mut out: Vec<Loop> = Vec::new();
    for l in loops.get_ref() {
        let text = l.get_ref();
        match parse_loop(text) {
            Ok(lp) => {
                if lp.inputs.len() != nin || lp.outputs.len() != nout {
                    cx.err(l.span(), catalog::loop_arity(text, nin, nout, lp.inputs.len(), lp.outputs.len()));
                } else if out.iter().any(|o| o.inputs == lp.inputs) {
                    cx.err(l.span(), catalog::duplicate("type loop for inputs", &lp.signature()));
                } else {
                    out.push(lp);
                }
            }
            Err(LoopError::UnknownCode { code, offset }) => {
                cx.err(inner(&l.span(), offset, 1), catalog::unknown_dtype(code));
            }
            Err(LoopError::Syntax(why) | LoopError::Mismatch(why)) => {
                cx.err(l.span(), catalog::bad_loop(text, &why));
            }
        }
    }
    out
}

/// Parse a rule: its canonical text, or a diagnostic at the offending token.
fn parse_rule(cx: &mut Ctx, rule: &Spanned<String>) -> Option<pyexpr::PyExpr> {
    match pyexpr::parse(rule.get_ref()) {
        Ok(e) => Some(e),
        Err(err) => {
            cx.err(inner(&rule.span(), err.offset, err.len), catalog::bad_rule(&err.message));
            None
        }
    }
}

/// A device function's derivative rules run on the device too: a rule that calls a function
/// without CUDA kernels would turn its gradient on a GPU into a NotImplementedError at
/// lowering, so it is a spec error here (eval_chebyt's rule calls eval_chebyu).
fn check_device_rules(cx: &mut Ctx, raw: &[RawUfunc], lowered: &[Ufunc]) {
    let on_cuda = |name: &str| lowered.iter().find(|u| u.name == name).map(|u| u.platforms.contains(&Platform::Cuda));
    for u in raw.iter().filter(|u| on_cuda(u.name.get_ref()) == Some(true)) {
        for rule in u.derivatives.iter().flatten().map(|(_, r)| r) {
            let Ok(expr) = pyexpr::parse(rule.get_ref()) else { continue }; // reported already
            for (name, at, how) in pyexpr::names(&expr) {
                if how == Use::Call && on_cuda(&name) == Some(false) {
                    cx.err(inner(&rule.span(), at, name.len()), catalog::rule_calls_host_only(u.name.get_ref(), &name));
                }
            }
        }
    }
}

/// The value shapes a rule can take: (parts, written as a tuple) for each branch of its
/// top-level conditionals.
fn rule_parts(expr: &pyexpr::PyExpr) -> Vec<(usize, bool)> {
    match expr {
        pyexpr::PyExpr::Tuple(items) => vec![(items.len(), true)],
        pyexpr::PyExpr::IfElse(body, _, orelse) => {
            let mut v = rule_parts(body);
            v.extend(rule_parts(orelse));
            v
        }
        _ => vec![(1, false)],
    }
}

/// A derivative rule's canonical text (None after a diagnostic).
fn check_derivative(
    cx: &mut Ctx,
    rule: &Spanned<String>,
    inputs: &[String],
    outputs: &[String],
    functions: &[String],
) -> Option<String> {
    let expr = parse_rule(cx, rule)?;
    let mut known: Vec<String> = inputs.to_vec();
    known.extend(outputs.iter().cloned());
    // One partial derivative per output: a tuple exactly when there are several, in each
    // branch of a conditional (`(...) if jnp.iscomplexobj(z) else (...)`).
    let mut ok = true;
    for (parts, tuple) in rule_parts(&expr) {
        if parts != outputs.len() || (outputs.len() == 1 && tuple) {
            cx.err(rule.span(), catalog::rule_arity(parts, outputs));
            ok = false;
            break;
        }
    }
    for (name, at, how) in pyexpr::names(&expr) {
        let bad = match how {
            Use::Variable if !known.contains(&name) => Some(catalog::unknown_variable(&name, &known)),
            Use::Call if !functions.contains(&name) => Some(catalog::unknown_function(&name)),
            Use::Attribute if !PY_MODULES.contains(&name.as_str()) => Some(catalog::unknown_module(&name)),
            _ => None,
        };
        if let Some(entry) = bad {
            cx.err(inner(&rule.span(), at, name.len()), entry);
            ok = false;
        }
    }
    ok.then(|| pyexpr::render(&expr))
}

fn check_test(cx: &mut Ctx, t: &RawTest, inputs: &[String]) -> TestHints {
    let mut hints = TestHints::default();
    for (k, v) in t.ranges.iter().flatten() {
        if !inputs.contains(k.get_ref()) {
            cx.err(k.span(), catalog::unknown_input("test range", k.get_ref(), inputs));
        }
        match v.get_ref().as_slice() {
            [lo, hi] if lo < hi => {
                hints.ranges.insert(k.get_ref().clone(), (*lo, *hi));
            }
            _ => cx.err(v.span(), catalog::bad_range(k.get_ref())),
        }
    }
    for n in t.integers.iter().flatten() {
        if !inputs.contains(n.get_ref()) {
            cx.err(n.span(), catalog::unknown_input("test integers", n.get_ref(), inputs));
        }
        hints.integers.push(n.get_ref().clone());
    }
    for (slot, tol) in [
        (&mut hints.rtol64, &t.rtol64),
        (&mut hints.rtol32, &t.rtol32),
        (&mut hints.rtol64_gpu, &t.rtol64_gpu),
        (&mut hints.rtol32_gpu, &t.rtol32_gpu),
    ] {
        if let Some(tol) = tol {
            let v = *tol.get_ref();
            if !(v > 0.0 && v < 1.0) {
                cx.err(tol.span(), catalog::bad_tolerance());
            }
            *slot = Some(v);
        }
    }
    hints.skip_edges = t.skip_edges.as_ref().is_some_and(|b| *b.get_ref());
    hints
}

fn lower_function(cx: &mut Ctx, f: &RawFunction, default_platforms: &BTreeSet<Platform>) -> Option<Function> {
    let before = cx.diags.len();
    check_name(cx, "function name", &f.name);
    let path = f.cupy.get_ref();
    if !(path.starts_with("cupy") && path.split('.').all(is_identifier)) {
        cx.err(f.cupy.span(), catalog::bad_cupy_path(path));
    }
    let cpu = match &f.cpu {
        Some(c) => {
            if !c.get_ref().split('.').all(is_identifier) {
                cx.err(c.span(), catalog::bad_cpu_path(c.get_ref()));
            }
            c.get_ref().clone()
        }
        None => match path.strip_prefix("cupyx.scipy.") {
            Some(rest) => format!("scipy.{rest}"),
            None => path.strip_prefix("cupy.").map_or_else(|| path.clone(), |rest| format!("numpy.{rest}")),
        },
    };
    let batching = match &f.batching {
        None => "sequential".to_string(),
        Some(b) => {
            // How `[[function]]` wrappers may batch under vmap (cupy_lazy_apply's vmap_method).
            let batching = &crate::abi::abi().batching;
            if !batching.iter().any(|m| m == b.get_ref()) {
                let known: Vec<&str> = batching.iter().map(String::as_str).collect();
                cx.err(b.span(), catalog::bad_batching(b.get_ref(), &known));
            }
            b.get_ref().clone()
        }
    };
    let mut seen = BTreeMap::new();
    let mut inputs = Vec::new();
    for a in &f.inputs {
        check_arg_names(cx, "input", std::slice::from_ref(&a.name), &mut seen);
        let mut dtypes = Vec::new();
        if a.dtypes.get_ref().is_empty() {
            cx.err(a.dtypes.span(), catalog::empty_list("dtypes"));
        }
        for d in a.dtypes.get_ref() {
            let mut chars = d.get_ref().chars();
            match (chars.next().and_then(DType::from_code), chars.next()) {
                (Some(dt), None) => dtypes.push(dt),
                _ => cx.err(d.span(), catalog::unknown_dtype(d.get_ref().chars().next().unwrap_or('?'))),
            }
        }
        let rank = a.rank.as_ref().and_then(|r| {
            let v = *r.get_ref();
            if (0..=32).contains(&v) {
                Some(v as u32)
            } else {
                cx.err(r.span(), catalog::bad_rank(v));
                None
            }
        });
        inputs.push(ArrayArg { name: a.name.get_ref().clone(), dtypes, rank });
    }
    let mut params = Vec::new();
    for p in &f.params {
        check_arg_names(cx, "parameter", std::slice::from_ref(&p.name), &mut seen);
        let Some(ty) = ParamType::parse(p.ty.get_ref()) else {
            cx.err(p.ty.span(), catalog::unknown_param_type(p.ty.get_ref()));
            continue;
        };
        let default = p.default.as_ref().and_then(|d| match py_literal(ty, d.get_ref()) {
            Some(lit) => Some(lit),
            None => {
                cx.err(d.span(), catalog::default_type(p.name.get_ref(), p.ty.get_ref()));
                None
            }
        });
        let mut choices = Vec::new();
        for c in p.choices.iter().flat_map(|c| c.get_ref().iter()) {
            match py_literal(ty, c) {
                Some(lit) => choices.push(lit),
                None => cx.err(
                    p.choices.as_ref().map_or(p.name.span(), Spanned::span),
                    catalog::default_type(p.name.get_ref(), p.ty.get_ref()),
                ),
            }
        }
        params.push(Param { name: p.name.get_ref().clone(), ty, default, choices });
    }
    let known: Vec<String> = seen.keys().cloned().collect();
    // Rules read the inputs (`x.shape`), the parameters, np./jnp. and a few builtins.
    const BUILTINS: &[&str] = &["max", "min", "len", "tuple", "int", "abs", "sum", "range"];
    let check_rule = |cx: &mut Ctx, rule: &Spanned<String>| -> String {
        let Some(expr) = parse_rule(cx, rule) else { return String::new() };
        for (name, at, how) in pyexpr::names(&expr) {
            let fine = known.contains(&name)
                || (how == Use::Attribute && matches!(name.as_str(), "np" | "jnp"))
                || (how == Use::Call && BUILTINS.contains(&name.as_str()));
            if !fine {
                cx.err(inner(&rule.span(), at, name.len()), catalog::unknown_shape_name(&name, &known));
            }
        }
        pyexpr::render(&expr)
    };
    if f.outputs.is_empty() {
        cx.err(f.name.span(), catalog::empty_list("outputs"));
    }
    let mut outputs = Vec::new();
    let mut out_seen = BTreeMap::new();
    for o in &f.outputs {
        check_arg_names(cx, "output", std::slice::from_ref(&o.name), &mut out_seen);
        let shape = check_rule(cx, &o.shape);
        // A dtype rule is an expression or a plain dtype code (`d`).
        let code = o.dtype.get_ref().chars().next().and_then(DType::from_code);
        let dtype = if o.dtype.get_ref().len() == 1 && code.is_some() {
            o.dtype.get_ref().clone()
        } else {
            check_rule(cx, &o.dtype)
        };
        outputs.push(OutputArg { name: o.name.get_ref().clone(), shape, dtype });
    }
    let mut workspace = Vec::new();
    for w in &f.workspace {
        check_arg_names(cx, "workspace", std::slice::from_ref(&w.name), &mut out_seen);
        let bytes = check_rule(cx, &w.bytes);
        workspace.push((w.name.get_ref().clone(), bytes));
    }
    let platforms = f.platforms.as_ref().map_or_else(|| default_platforms.clone(), |p| check_platforms(cx, p));
    if cx.diags.len() != before {
        return None;
    }
    Some(Function {
        name: f.name.get_ref().clone(),
        cupy: path.clone(),
        cpu,
        batching,
        doc: f.doc.as_ref().map(|d| d.get_ref().trim().to_string()).unwrap_or_default(),
        inputs,
        outputs,
        workspace,
        params,
        platforms,
    })
}

/// The Python literal for a TOML value of the given parameter type.
fn py_literal(ty: ParamType, v: &toml::Value) -> Option<String> {
    Some(match (ty, v) {
        (ParamType::Int, toml::Value::Integer(i)) => i.to_string(),
        (ParamType::Float, toml::Value::Float(f)) => crate::emit::escape::py_float(*f),
        (ParamType::Float, toml::Value::Integer(i)) => crate::emit::escape::py_float(*i as f64),
        (ParamType::Bool, toml::Value::Boolean(b)) => if *b { "True" } else { "False" }.into(),
        (ParamType::Str, toml::Value::String(s)) => crate::emit::escape::py_str(s),
        _ => return None,
    })
}
