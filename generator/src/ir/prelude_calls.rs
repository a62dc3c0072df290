//! Which functions each `[[prelude]]` (and each function's own `prelude`) defines, and which
//! of them a function's C++ calls, so that a function calling into a prelude it does not
//! list, or lists after the prelude that calls it, is a spec error. The CPU build compiles
//! every function's loops in one translation unit, each prelude once, and would not notice;
//! NVRTC compiles each function alone and fails (2026-12-07: stdtrit called
//! `jax_xsf_incbet::newton_root` without listing `incbet_inverse`).
//!
//! Not a C++ parser (one, such as tree-sitter's, would be a build dependency of the
//! generator for a check that needs only names): comments, literals and preprocessor lines
//! are blanked, braces tracked as namespace or block scopes, and a name followed by `(`
//! (or by template arguments and `(`: `basym<10>(`) is a definition at namespace scope after
//! a type, a call inside a block. A `#define`'s replacement text is read as a body where it
//! stands (incbet_device's `beta(a, b)` expands to a call into gamma_device). A call it
//! reports names a prelude function only if that exact path is defined by one, so it
//! reports nothing it does not find defined; it misses calls a macro's name hides.

use super::expr::{is_cpp_keyword, tokens, Token};
use std::collections::BTreeMap;
use std::ops::Range;

/// A call as written: the names of its path (`detail::power_terms` is two), whether it
/// starts at the global namespace (`::f`), the namespaces open around it (innermost last),
/// and its byte range in the code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub path: Vec<String>,
    pub absolute: bool,
    pub scope: Vec<String>,
    pub at: Range<usize>,
}

/// The functions code defines (qualified by their namespaces) and the calls it makes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    pub defs: Vec<String>,
    pub calls: Vec<Call>,
}

/// Where a function a call resolves to is defined.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Owner {
    /// A `[[prelude]]`, by name.
    Prelude(String),
    /// The own `prelude` of the named function.
    Own(String),
}

/// `src` with comments, string and character literals and preprocessor lines (with their
/// continuations) replaced by spaces, newlines kept, so byte offsets stay; and the byte
/// ranges of the `#define` lines among them.
fn blank(src: &str) -> (String, Vec<Range<usize>>) {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut defines = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        let erase = |from: usize, to: usize, out: &mut Vec<u8>| {
            for o in out.iter_mut().take(to.min(b.len())).skip(from) {
                if *o != b'\n' {
                    *o = b' ';
                }
            }
        };
        if line_start && c == b'#' {
            let from = i;
            while i < b.len() && !(b[i] == b'\n' && b[i - 1] != b'\\') {
                i += 1;
            }
            if src[from + 1..i].trim_start().starts_with("define") {
                defines.push(from..i);
            }
            erase(from, i, &mut out);
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let from = i;
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            erase(from, i, &mut out);
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let from = i;
            i += 2;
            while i < b.len() && !(b[i] == b'/' && b[i - 1] == b'*') {
                i += 1;
            }
            i = (i + 1).min(b.len());
            erase(from, i, &mut out);
        } else if c == b'"' || c == b'\'' {
            let from = i;
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            erase(from, i, &mut out);
        } else {
            if !c.is_ascii_whitespace() {
                line_start = false;
            }
            if c == b'\n' {
                line_start = true;
            }
            i += 1;
            continue;
        }
        line_start = false;
    }
    // Only ASCII bytes were replaced, by ASCII spaces.
    (String::from_utf8(out).unwrap_or_default(), defines)
}

/// The replacement text of a `#define` line (`line`: its range in `src`), comments blanked,
/// offsets kept: what follows the macro's name and its parameter list, if it has one.
fn macro_body(src: &str, line: &Range<usize>) -> Range<usize> {
    let b = src.as_bytes();
    let mut i = line.start + 1;
    let skip_space = |i: &mut usize| {
        while *i < line.end && matches!(b[*i], b' ' | b'\t') {
            *i += 1;
        }
    };
    skip_space(&mut i);
    i += "define".len();
    skip_space(&mut i);
    while i < line.end && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    // A function-like macro's parameters follow its name with no space between.
    if b.get(i) == Some(&b'(') {
        while i < line.end && b[i] != b')' {
            i += 1;
        }
        i = (i + 1).min(line.end);
    }
    i..line.end
}

/// Where the tokens from `toks[j]` are template arguments `<...>` (names, numbers, `::`,
/// `,` and `*`, nested) followed by `(`: the index of that `(`. A comparison such as
/// `a < b && c > (d)` has other tokens between and is not taken for one.
fn after_template_arguments(toks: &[Token<'_>], j: usize) -> Option<usize> {
    if toks.get(j)?.text != "<" {
        return None;
    }
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(j) {
        match t.text {
            "<" => depth += 1,
            ">" => {
                depth -= 1;
                if depth == 0 {
                    return toks.get(k + 1).filter(|p| p.text == "(").map(|_| k + 1);
                }
            }
            "::" | "," | "*" => {}
            _ if t.ident || t.text.starts_with(|c: char| c.is_ascii_digit()) => {}
            _ => return None,
        }
    }
    None
}

enum Scope {
    Namespace(Vec<String>),
    Block,
}

/// The definitions and calls of `code`; `in_body`: the code is an expression, read as if
/// inside a function body.
pub fn scan(code: &str, in_body: bool) -> Names {
    let (text, defines) = blank(code);
    let toks = tokens(&text);
    let mut defines = defines.into_iter().peekable();
    let mut scopes: Vec<Scope> = if in_body { vec![Scope::Block] } else { Vec::new() };
    let mut out = Names::default();
    let namespaces = |scopes: &[Scope]| -> Vec<String> {
        scopes
            .iter()
            .filter_map(|s| match s {
                Scope::Namespace(n) => Some(n.clone()),
                Scope::Block => None,
            })
            .flatten()
            .collect()
    };
    // A macro's calls, read where the macro is defined, in the namespaces open there.
    let read_macro = |line: Range<usize>, scopes: &[Scope], out: &mut Names| {
        let body = macro_body(code, &line);
        for mut call in scan(&code[body.clone()], true).calls {
            call.scope = namespaces(scopes);
            call.at = call.at.start + body.start..call.at.end + body.start;
            out.calls.push(call);
        }
    };
    let mut k = 0;
    while k < toks.len() {
        let t = &toks[k];
        while let Some(line) = defines.next_if(|d| d.start < t.offset) {
            read_macro(line, &scopes, &mut out);
        }
        match t.text {
            "{" => scopes.push(Scope::Block),
            "}" => {
                scopes.pop();
            }
            "namespace" => {
                let mut names = Vec::new();
                let mut j = k + 1;
                while let Some(n) = toks.get(j).filter(|n| n.ident) {
                    names.push(n.text.to_string());
                    j += if toks.get(j + 1).is_some_and(|s| s.text == "::") { 2 } else { 1 };
                }
                if toks.get(j).is_some_and(|b| b.text == "{") {
                    scopes.push(Scope::Namespace(names));
                    k = j + 1;
                    continue;
                }
            }
            _ if t.ident || (t.text == "::" && toks.get(k + 1).is_some_and(|n| n.ident)) => {
                let absolute = t.text == "::";
                let start = if absolute { k + 1 } else { k };
                let mut path = vec![toks[start].text.to_string()];
                let mut j = start + 1;
                while toks.get(j).is_some_and(|s| s.text == "::") && toks.get(j + 1).is_some_and(|n| n.ident) {
                    path.push(toks[j + 1].text.to_string());
                    j += 2;
                }
                // `basym<10>(`: the call's `(` after its template arguments.
                let paren = after_template_arguments(&toks, j).unwrap_or(j);
                let called = toks.get(paren).is_some_and(|p| p.text == "(");
                let after_member = k.checked_sub(1).is_some_and(|p| matches!(toks[p].text, "." | "->"));
                let keyword = path.len() == 1 && is_cpp_keyword(&path[0]);
                if called && !after_member && !keyword {
                    let in_block = matches!(scopes.last(), Some(Scope::Block));
                    // A definition or declaration: a plain name after its return type.
                    let after_type =
                        k.checked_sub(1).is_some_and(|p| toks[p].ident || matches!(toks[p].text, ">" | "*" | "&"));
                    if !in_block && !absolute && path.len() == 1 && after_type {
                        let mut full = namespaces(&scopes);
                        full.push(path.pop().unwrap_or_default());
                        out.defs.push(full.join("::"));
                    } else if in_block {
                        let end = toks[j - 1].offset + toks[j - 1].text.len();
                        out.calls.push(Call { path, absolute, scope: namespaces(&scopes), at: t.offset..end });
                    }
                }
                k = j;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    for line in defines {
        read_macro(line, &scopes, &mut out);
    }
    out
}

/// The defined function a call names, by C++'s lookup from its innermost namespace out
/// (near enough: no using-declarations, no argument-dependent lookup).
pub fn resolve<'d>(call: &Call, defs: &'d BTreeMap<String, Vec<Owner>>) -> Option<(&'d String, &'d Vec<Owner>)> {
    let written = call.path.join("::");
    if call.absolute {
        return defs.get_key_value(&written);
    }
    (0..=call.scope.len()).rev().find_map(|n| {
        let mut full = call.scope[..n].to_vec();
        full.push(written.clone());
        defs.get_key_value(&full.join("::"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CODE: &str = r#"
namespace demo {
// a comment that calls nothing(x) { }
#if defined(__CUDACC__)
#define twice(x) other(x)
#endif
namespace detail {
XSF_HOST_DEVICE inline double twice(double x) { return 2 * x; }
template <int n> inline double power(double x) { return n * x; }
}  // namespace detail
inline double quad(double x);
inline double quad(double x) {
    const char *s = "call(x) { in a string";
    return detail::twice(detail::twice(x)) + ::demo::helper(x) + std::exp(x) + v.size();
}
}
"#;

    #[test]
    fn definitions_are_qualified_by_their_namespaces() {
        let n = scan(CODE, false);
        assert_eq!(n.defs, ["demo::detail::twice", "demo::detail::power", "demo::quad", "demo::quad"]);
    }

    #[test]
    fn calls_inside_bodies_with_their_scope_and_place() {
        let n = scan(CODE, false);
        let calls: Vec<String> =
            n.calls.iter().map(|c| format!("{}{}", if c.absolute { "::" } else { "" }, c.path.join("::"))).collect();
        // `other`: the replacement text of the `#define`.
        assert_eq!(calls, ["other", "detail::twice", "detail::twice", "::demo::helper", "std::exp"]);
        assert_eq!(n.calls[0].scope, ["demo"]);
        assert_eq!(&CODE[n.calls[3].at.clone()], "::demo::helper");
    }

    #[test]
    fn an_expression_is_read_as_a_body() {
        let n = scan("demo::quad(x) + 1", true);
        assert_eq!(n.calls.len(), 1);
        assert_eq!(n.calls[0].path, ["demo", "quad"]);
        assert!(scan("demo::quad(x)", false).calls.is_empty());
    }

    #[test]
    fn template_arguments_before_the_parenthesis() {
        let paths = |code: &str| -> Vec<String> { scan(code, true).calls.iter().map(|c| c.path.join("::")).collect() };
        assert_eq!(paths("detail::basym<detail::terms, 2>(a, b) + f<g<int*>>(x)"), ["detail::basym", "f"]);
        // Comparisons, not template arguments: `a` and `c` are not called.
        assert_eq!(paths("a < b && c > (d) ? a<b>c : h(x)"), ["h"]);
    }

    #[test]
    fn a_macros_replacement_text_is_read_where_it_is_defined() {
        let code = "namespace outer {\n#define TWICE(x) \\\n    detail::twice(x) + g(x)\n#define PI 3.14\n}\n";
        let n = scan(code, false);
        let calls: Vec<(String, Vec<String>)> = n.calls.iter().map(|c| (c.path.join("::"), c.scope.clone())).collect();
        assert_eq!(
            calls,
            [("detail::twice".to_string(), vec!["outer".to_string()]), ("g".to_string(), vec!["outer".to_string()])]
        );
        assert_eq!(&code[n.calls[0].at.clone()], "detail::twice");
        // The macro's own name and parameters are not calls.
        assert!(scan("#define twice(x) (2 * (x))\n", false).calls.is_empty());
    }

    #[test]
    fn lookup_goes_from_the_innermost_namespace_out() {
        let mut defs = BTreeMap::new();
        defs.insert("demo::detail::twice".to_string(), vec![Owner::Prelude("core".into())]);
        defs.insert("twice".to_string(), vec![Owner::Own("f".into())]);
        let call = |path: &[&str], scope: &[&str], absolute| Call {
            path: path.iter().map(|s| s.to_string()).collect(),
            absolute,
            scope: scope.iter().map(|s| s.to_string()).collect(),
            at: 0..1,
        };
        let found = |c: &Call| resolve(c, &defs).map(|(k, _)| k.clone());
        assert_eq!(found(&call(&["detail", "twice"], &["demo"], false)).as_deref(), Some("demo::detail::twice"));
        assert_eq!(found(&call(&["twice"], &["demo", "detail"], false)).as_deref(), Some("demo::detail::twice"));
        assert_eq!(found(&call(&["twice"], &["other"], false)).as_deref(), Some("twice"));
        assert_eq!(found(&call(&["detail", "twice"], &[], true)), None);
    }
}
