//! The error catalog: every message a spec can earn, with its label and hint, in one
//! place so wording stays consistent and the UI tests lock it.

/// A message, the label under the caret, and an optional hint.
pub struct Entry {
    pub message: String,
    pub label: String,
    pub help: Option<String>,
}

fn e(message: String, label: impl Into<String>, help: Option<String>) -> Entry {
    Entry { message, label: label.into(), help }
}

pub fn toml_syntax(msg: &str) -> Entry {
    e(
        format!("invalid TOML: {}", msg.trim()),
        "here",
        Some("fix the TOML syntax; see docs/spec.md for a complete example".into()),
    )
}

pub fn unknown_key(key: &str, table: &str, known: &[&str]) -> Entry {
    let hint = match closest(key, known) {
        Some(k) => format!("did you mean `{k}`? {table} accepts: {}", known.join(", ")),
        None => format!("{table} accepts: {}", known.join(", ")),
    };
    e(format!("unknown key `{key}` in {table}"), "unknown key", Some(hint))
}

pub fn bad_value(table: &str, msg: &str) -> Entry {
    e(
        format!("invalid value in {table}: {}", msg.trim()),
        "wrong type or missing key",
        Some("see docs/spec.md for the type of each key".into()),
    )
}

pub fn unknown_table(key: &str) -> Entry {
    e(
        format!("unknown top-level table `{key}`"),
        "unknown table",
        Some(
            "a spec has `include`, [package], [defaults], [[prelude]], [[host_only]], [[ufunc]] and [[function]]"
                .into(),
        ),
    )
}

pub fn root_only(key: &str) -> Entry {
    e(
        format!("`{key}` belongs in the root spec, not in an included file"),
        "only in the root spec",
        Some("an included file holds [[prelude]], [[host_only]], [[ufunc]] and [[function]] tables; move this to the spec that includes it".into()),
    )
}

pub fn bad_include(path: &str, why: &str) -> Entry {
    e(
        format!("cannot include `{path}`: {why}"),
        "bad include path",
        Some("name a `.toml` file relative to the root spec's directory, e.g. `xsf/gamma.toml`".into()),
    )
}

pub fn unreadable_include(path: &str, why: &str) -> Entry {
    e(
        format!("cannot read included file `{path}`: {why}"),
        "included here",
        Some("paths in `include` are relative to the directory of the spec that names them".into()),
    )
}

pub fn missing_package() -> Entry {
    e(
        "the spec has no [package] table".into(),
        "expected [package] in this file",
        Some("add:\n[package]\nname = \"jax_mylib\"\nversion = \"0.1.0\"".into()),
    )
}

pub fn bad_identifier(what: &str, name: &str) -> Entry {
    e(
        format!("{what} `{name}` is not a valid name"),
        "not a Python/C identifier",
        Some("use letters, digits and `_`, starting with a letter".into()),
    )
}

pub fn reserved_name(what: &str, name: &str) -> Entry {
    e(
        format!("{what} `{name}` is reserved"),
        "reserved",
        Some("names starting with `bg_`, `_bg` or `bridgegen`, Python keywords and `jax`, `jnp`, `np` are reserved; rename it".into()),
    )
}

pub fn bad_version(v: &str) -> Entry {
    e(
        format!("package version `{v}` is not of the form X.Y.Z"),
        "bad version",
        Some("use a release version such as \"0.1.0\"".into()),
    )
}

pub fn duplicate(what: &str, name: &str) -> Entry {
    e(
        format!("duplicate {what} `{name}`"),
        "defined again here",
        Some(format!("each {what} name must be unique; rename or remove one")),
    )
}

pub fn unknown_prelude(name: &str, known: &[&str]) -> Entry {
    let listed = if known.is_empty() { "none".to_string() } else { known.join(", ") };
    let mut hint = format!("`preludes` names [[prelude]] tables of the spec or its includes; defined: {listed}");
    if let Some(k) = closest(name, known) {
        hint = format!("did you mean `{k}`? {hint}");
    }
    e(format!("unknown prelude `{name}`"), "no [[prelude]] has this name", Some(hint))
}

pub fn repeated_prelude(name: &str) -> Entry {
    e(
        format!("prelude `{name}` is listed twice"),
        "listed again here",
        Some("a prelude is emitted once per function; remove the repeat".into()),
    )
}

/// `function` calls `path` (from its code, or through prelude `through`), which prelude
/// `owner` defines, and does not list `owner`.
pub fn prelude_not_listed(function: &str, path: &str, owner: &str, through: Option<&str>) -> Entry {
    let by = through.map_or(String::new(), |p| format!(" (in prelude `{p}`)"));
    e(
        format!("`{function}` calls `{path}`{by}, which prelude `{owner}` defines, but does not list `{owner}`"),
        "called here without its prelude",
        Some(format!(
            "add \"{owner}\" to the function's `preludes`, before the code that calls it: the CUDA kernels compile each function alone, with the preludes it lists"
        )),
    )
}

/// Prelude `caller` calls `path`, defined by prelude `owner`, which `function` lists after it.
pub fn prelude_listed_after(function: &str, path: &str, owner: &str, caller: &str) -> Entry {
    e(
        format!("`{function}` lists prelude `{owner}` after `{caller}`, which calls `{path}` it defines"),
        "listed before the prelude it calls",
        Some(format!("preludes are emitted in the order listed: put \"{owner}\" before \"{caller}\"")),
    )
}

/// `function` calls `path`, which only `owner`'s own `prelude` defines.
pub fn own_prelude_call(function: &str, path: &str, owner: &str) -> Entry {
    e(
        format!("`{function}` calls `{path}`, which only function `{owner}`'s own `prelude` defines"),
        "not visible to this function's kernels",
        Some("a function's own `prelude` is emitted for it alone: move the helper into a [[prelude]] both list".into()),
    )
}

pub fn empty_prelude(name: &str) -> Entry {
    e(
        format!("prelude `{name}` has no code"),
        "empty",
        Some("give `code` the C++ helpers the functions share, or remove the [[prelude]]".into()),
    )
}

pub fn host_only_unknown(name: &str, known: &[&str]) -> Entry {
    let mut hint = "[[host_only]] `functions` names [[ufunc]]s of the spec or its includes".to_string();
    if let Some(k) = closest(name, known) {
        hint = format!("did you mean `{k}`? {hint}");
    }
    e(format!("[[host_only]] names unknown function `{name}`"), "no [[ufunc]] has this name", Some(hint))
}

pub fn host_only_on_device(name: &str) -> Entry {
    e(
        format!("[[host_only]] names `{name}`, which has CUDA kernels"),
        "runs on cuda",
        Some(format!("[[host_only]] says why a function has none: remove `{name}` from it, or give `{name}` platforms = [\"cpu\"]")),
    )
}

pub fn host_only_twice(name: &str) -> Entry {
    e(
        format!("`{name}` is in more than one [[host_only]] group"),
        "named again here",
        Some("a function has one reason for having no CUDA kernels; keep it in one group".into()),
    )
}

pub fn host_only_empty(what: &str) -> Entry {
    e(
        format!("[[host_only]] with an empty `{what}`"),
        "empty",
        Some("give `why` the reason these functions have no CUDA kernels and `functions` their names".into()),
    )
}

pub fn bad_loop(text: &str, why: &str) -> Entry {
    e(
        format!("bad type loop `{text}`: {why}"),
        "bad type loop",
        Some("write loops in CuPy notation, e.g. \"f->f\", \"dd->d\", \"d->dd\", \"D->D\", optionally \"f->f as d->d\"; codes: i l f d F D".into()),
    )
}

pub fn unknown_dtype(code: char) -> Entry {
    e(
        format!("unknown dtype code `{code}`"),
        "unknown code",
        Some("codes are i (int32), l (int64), f (float32), d (float64), F (complex64), D (complex128)".into()),
    )
}

pub fn loop_arity(text: &str, nin: usize, nout: usize, lin: usize, lout: usize) -> Entry {
    e(
        format!(
            "type loop `{text}` has {lin} input(s) and {lout} output(s), but the function declares {nin} and {nout}"
        ),
        "wrong number of types",
        Some("one type code per input before `->`, one per output after it".into()),
    )
}

pub fn empty_list(what: &str) -> Entry {
    e(format!("{what} must not be empty"), "empty", Some(format!("list at least one entry in {what}")))
}

pub fn unknown_platform(p: &str) -> Entry {
    e(format!("unknown platform `{p}`"), "unknown platform", Some("platforms are \"cpu\" and \"cuda\"".into()))
}

pub fn missing_header(name: &str) -> Entry {
    e(
        format!("ufunc `{name}` includes no header"),
        "no headers for this function",
        Some("add e.g. headers = [\"xsf/gamma.h\"] to the function or to [defaults]".into()),
    )
}

pub fn bad_header(h: &str) -> Entry {
    e(
        format!("header `{h}` is not a relative header path"),
        "bad header path",
        Some("headers are relative to the xsf include root and end in .h/.hpp, e.g. \"xsf/gamma.h\"".into()),
    )
}

pub fn unknown_variable(var: &str, known: &[String]) -> Entry {
    let mut hint = format!("the expression may use the inputs and outputs: {}", known.join(", "));
    if let Some(k) = closest(var, &known.iter().map(String::as_str).collect::<Vec<_>>()) {
        hint = format!("did you mean `{k}`? {hint}");
    }
    e(format!("expression names unknown variable `{var}`"), "not an input or output", Some(hint))
}

pub fn unused_output(out: &str) -> Entry {
    e(
        format!("output `{out}` is never assigned by the expression"),
        "multi-output expressions must pass every output",
        Some("xsf returns several outputs through references, e.g. expr = \"xsf::sici(x, si, ci)\"".into()),
    )
}

pub fn unknown_input(what: &str, name: &str, inputs: &[String]) -> Entry {
    e(
        format!("{what} names unknown input `{name}`"),
        "not an input of this function",
        Some(format!("inputs are: {}", inputs.join(", "))),
    )
}

pub fn unknown_function(name: &str) -> Entry {
    e(
        format!("derivative rule calls unknown function `{name}`"),
        "not a function of this spec",
        Some("derivative rules may call the spec's own functions and jnp./lax. functions".into()),
    )
}

pub fn rule_calls_host_only(function: &str, callee: &str) -> Entry {
    e(
        format!("a derivative rule of `{function}`, which runs on CUDA devices, calls `{callee}`, which does not"),
        "no CUDA kernels",
        Some(format!("give `{callee}` the cuda platform, write the rule without it, or keep `{function}` on the host")),
    )
}

pub fn unknown_module(name: &str) -> Entry {
    e(
        format!("derivative rule uses unknown module `{name}`"),
        "unknown module",
        Some("use jnp.<fn> or lax.<fn>".into()),
    )
}

pub fn rule_arity(parts: usize, outputs: &[String]) -> Entry {
    let hint = if outputs.len() == 1 {
        "a single-output function's rule is one expression (no tuple)".to_string()
    } else {
        format!("write a tuple with one partial derivative per output, in order: ({})", outputs.join(", "))
    };
    e(
        format!("derivative rule has {parts} part(s) for {} output(s)", outputs.len()),
        "one partial derivative per output",
        Some(hint),
    )
}

pub fn diff_conflict(name: &str) -> Entry {
    e(
        format!("input `{name}` has a derivative rule and is declared nondiff"),
        "conflict",
        Some("remove it from one of the two".into()),
    )
}

pub fn bad_range(name: &str) -> Entry {
    e(
        format!("test range of `{name}` must be [low, high] with low < high"),
        "bad range",
        Some(format!("e.g. ranges = {{ {name} = [0.0, 10.0] }}")),
    )
}

pub fn too_many_cuda_inputs(n: usize, max: usize) -> Entry {
    e(
        format!("{n} inputs; CUDA kernels take at most {max}"),
        "too many inputs for cuda",
        Some("drop \"cuda\" from this function's platforms".into()),
    )
}

pub fn bad_batching(b: &str, known: &[&str]) -> Entry {
    e(
        format!("unknown batching `{b}`"),
        "unknown batching",
        Some(format!(
            "batching is one of {}; sequential is always correct, the others call once with a leading batch axis",
            known.join(", ")
        )),
    )
}

pub fn bad_cpu_path(p: &str) -> Entry {
    e(
        format!("`{p}` is not a dotted import path"),
        "bad path",
        Some("name the NumPy/SciPy callable, e.g. cpu = \"scipy.ndimage.gaussian_filter\"".into()),
    )
}

pub fn bad_cuda_stack(max: u32) -> Entry {
    e(
        format!("cuda_stack must be a number of bytes from 0 to {max}"),
        "bad stack size",
        Some("only functions that recurse on the device need it, e.g. cuda_stack = 4096".into()),
    )
}

pub fn bad_cuda_max_registers(min: u32, max: u32) -> Entry {
    e(
        format!("cuda_max_registers must be a number of registers from {min} to {max}"),
        "bad register limit",
        Some(
            "cap heavy iterative functions to raise occupancy, e.g. cuda_max_registers = 96; measure it (docs/spec.md)"
                .into(),
        ),
    )
}

pub fn cuda_expr_without_cuda(key: &str) -> Entry {
    e(
        format!("{key} on a function without the cuda platform"),
        "no CUDA kernels use this",
        Some(format!("add \"cuda\" to platforms, or remove {key}")),
    )
}

pub fn unknown_loop(field: &str, key: &str, loops: &[String]) -> Entry {
    e(
        format!("{field} names loop `{key}`, which the function does not declare"),
        "not a declared loop",
        Some(format!("use a signature in `loops`: {}", loops.join(", "))),
    )
}

pub fn empty_cuda_loops() -> Entry {
    e(
        "cuda_loops is empty".into(),
        "no loop would have a CUDA kernel",
        Some("list the loops that compile for the device, or remove \"cuda\" from platforms".into()),
    )
}

pub fn cuda_expr_host_loop(key: &str) -> Entry {
    e(
        format!("cuda_expr_by_loop gives loop `{key}` a device expression, but cuda_loops leaves it host-only"),
        "this loop has no CUDA kernel",
        Some(format!("add `{key}` to cuda_loops, or remove this entry")),
    )
}

pub fn bad_tolerance() -> Entry {
    e(
        "tolerance must be a positive number below 1".into(),
        "bad tolerance",
        Some("relative tolerances look like 1e-13 (float64) or 1e-5 (float32)".into()),
    )
}

pub fn unknown_param_type(t: &str) -> Entry {
    e(
        format!("unknown parameter type `{t}`"),
        "unknown type",
        Some("parameter types are int, float, bool and str".into()),
    )
}

pub fn default_type(name: &str, ty: &str) -> Entry {
    e(format!("default of parameter `{name}` is not a {ty}"), "wrong type", Some(format!("give a {ty} literal")))
}

pub fn bad_rule(why: &str) -> Entry {
    e(
        format!("rule is not a Python expression bridgegen accepts: {why}"),
        "here",
        Some(
            "a rule is one expression: names, numbers, plain strings, calls, attributes, subscripts, tuples and lists, \
             arithmetic, comparisons, and/or/not and `a if c else b` (docs/spec.md, Rules)"
                .into(),
        ),
    )
}

pub fn unknown_shape_name(name: &str, known: &[String]) -> Entry {
    e(
        format!("rule names unknown argument `{name}`"),
        "not an input or parameter",
        Some(format!("shape, dtype and workspace rules may use: {}", known.join(", "))),
    )
}

pub fn bad_rank(r: i64) -> Entry {
    e(format!("rank {r} is out of range"), "bad rank", Some("rank is between 0 and 32".into()))
}

pub fn bad_cupy_path(p: &str) -> Entry {
    e(
        format!("`{p}` is not a dotted CuPy path"),
        "bad path",
        Some("write the callable's import path, e.g. \"cupyx.scipy.ndimage.gaussian_filter\"".into()),
    )
}

/// The known name closest to `s`, if it is close enough to be a likely typo.
fn closest<'a>(s: &str, known: &[&'a str]) -> Option<&'a str> {
    known.iter().map(|k| (levenshtein(s, k), *k)).filter(|(d, k)| *d <= 2.max(k.len() / 3)).min().map(|(_, k)| k)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

pub fn name_clash_or_dup(what: &str, name: &str) -> Entry {
    e(
        format!("{what} `{name}` is declared twice (inputs, outputs and parameters share one namespace)"),
        "declared again here",
        Some("give every argument a distinct name".into()),
    )
}

pub fn case_collision(what: &str, name: &str, other: &str) -> Entry {
    e(
        format!("{what} `{name}` collides with `{other}` when case is ignored"),
        "collides after case-folding",
        Some("generated Rust statics and file names are case-insensitive: rename one of them".into()),
    )
}

pub fn shadowing_package(name: &str) -> Entry {
    e(
        format!("package name `{name}` is the name of another Python module"),
        "shadows a module",
        Some(format!("installed, it would hide the real `{name}` from every import: pick a name of your own, e.g. \"jax_{name}\"")),
    )
}

pub fn empty_expr() -> Entry {
    e(
        "the expression is empty".into(),
        "empty",
        Some("write the C++ expression computing the output from the inputs".into()),
    )
}

pub fn bad_dotted(key: &str, p: &str) -> Entry {
    e(
        format!("`{key}` = `{p}` is not a dotted Python name"),
        "not a dotted name",
        Some(format!(
            "write the function's import path, e.g. {key} = \"{}.special.gammaln\"",
            if key == "cupy" { "cupyx.scipy" } else { "scipy" }
        )),
    )
}

pub fn missing_header_file(h: &str) -> Entry {
    e(
        format!("header `{h}` does not exist under the xsf include root"),
        "no such header",
        Some("headers are relative to the xsf include root (the CuPy wheel's cupy/_core/include/cupy); check the spelling".into()),
    )
}

pub fn cpp_reserved(what: &str, name: &str) -> Entry {
    e(
        format!("{what} `{name}` is a C++ keyword, alternative token or macro"),
        "reserved in C++",
        Some("inputs become C++ variables of the generated loops: rename it (e.g. `x_`)".into()),
    )
}

pub fn bad_signature(why: &str) -> Entry {
    e(
        format!("signature is not a core-dimension signature: {why}"),
        "here",
        Some(
            "write NumPy's gufunc notation, one parenthesised group per input and output: \
             \"(n)->(n)\", \"(m,n),()->(n)\"; an output dimension may add a constant to an input's (\"(n)->(n+1)\")"
                .into(),
        ),
    )
}

pub fn signature_arity(side: &str, groups: usize, declared: usize) -> Entry {
    e(
        format!("signature has {groups} {side} group(s), but the function declares {declared} {side}(s)"),
        "wrong number of groups",
        Some(format!("give one parenthesised group per {side}, in the order of `{side}s`")),
    )
}

pub fn unbound_core_dim(name: &str, bound: &[String]) -> Entry {
    e(
        format!("output core dimension `{name}` is not a dimension of any input"),
        "unbound dimension",
        Some(if bound.is_empty() {
            "the inputs name no dimensions: give outputs fixed sizes or name an input's".into()
        } else {
            format!("inputs bind: {}", bound.join(", "))
        }),
    )
}

pub fn no_core_dims() -> Entry {
    e(
        "signature has no core dimensions".into(),
        "every group is empty",
        Some("an elementwise function needs no signature: remove it".into()),
    )
}

pub fn too_many_core_dims(n: usize, max: usize) -> Entry {
    e(
        format!("signature has {n} core dimensions in all; generated kernels handle {max}"),
        "too many core dimensions",
        Some("split the function, or raise max_core_dims in runtime/abi.toml".into()),
    )
}

pub fn gufunc_key(key: &str) -> Entry {
    e(
        format!("{key} on a generalized ufunc (one with a signature)"),
        "not supported with core dimensions",
        Some(match key {
            "derivatives" => "derivative rules are elementwise: list the inputs in nondiff instead".into(),
            _ => "core views see the stored element type: drop `as ...` and compute in the loop's own type".into(),
        }),
    )
}
