//! Light scanners for the two expression languages of a spec: the C++ snippet of a
//! ufunc (to find the variables it names) and the Python derivative rules (to find the
//! names and functions they use). Neither is a full parser: they find names, and the
//! C++/Python compilers catch the rest when the generated code is built.

/// An identifier and its byte offset in the expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    pub offset: usize,
}

const CPP_WORDS: &[&str] = &[
    "auto",
    "bool",
    "char",
    "const",
    "double",
    "false",
    "float",
    "int",
    "long",
    "nullptr",
    "short",
    "signed",
    "sizeof",
    "static_cast",
    "reinterpret_cast",
    "true",
    "unsigned",
    "void",
    "int32_t",
    "int64_t",
    "size_t",
    "NAN",
    "INFINITY",
];

pub(super) struct Token<'a> {
    pub(super) text: &'a str,
    pub(super) offset: usize,
    pub(super) ident: bool,
}

pub(super) fn tokens(src: &str) -> Vec<Token<'_>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'"' || c == b'\'' {
            // String or character literal (C++ and Python): one non-identifier token.
            let start = i;
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            out.push(Token { text: &src[start..i], offset: start, ident: false });
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            // Number literal, including exponents and suffixes (1e-8, 2.5f, 0x10).
            let start = i;
            i += 1;
            while i < b.len() {
                let d = b[i];
                let exponent_sign = (d == b'+' || d == b'-') && matches!(b[i - 1], b'e' | b'E');
                if d.is_ascii_alphanumeric() || d == b'.' || d == b'_' || exponent_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            out.push(Token { text: &src[start..i], offset: start, ident: false });
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Token { text: &src[start..i], offset: start, ident: true });
        } else {
            // Punctuation; keep two-character operators together where they matter.
            let two = src.get(i..i + 2).unwrap_or("");
            let len = if matches!(two, "::" | "->") { 2 } else { src[i..].chars().next().map_or(1, char::len_utf8) };
            out.push(Token { text: &src[i..i + len], offset: i, ident: false });
            i += len;
        }
    }
    out
}

/// Variables a C++ snippet refers to: identifiers that are not keywords, not qualified
/// (`xsf::gamma`), not namespaces, not members, not called, and not template arguments
/// of a cast.
pub fn cpp_free_names(src: &str) -> Vec<Name> {
    let toks = tokens(src);
    let mut out = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        if !t.ident || CPP_WORDS.contains(&t.text) {
            continue;
        }
        let prev = k.checked_sub(1).map(|p| toks[p].text);
        let next = toks.get(k + 1).map(|n| n.text);
        if matches!(prev, Some("::" | "." | "->")) || matches!(next, Some("::" | "(" | "<")) {
            continue;
        }
        out.push(Name { text: t.text.to_string(), offset: t.offset });
    }
    out
}

/// Modules a derivative rule may use (`jnp.exp`, `lax.`, `jsp.` = jax.scipy.special).
pub const PY_MODULES: &[&str] = &["jnp", "lax", "jsp"];

/// Whether `s` is a plain identifier (`[A-Za-z_][A-Za-z0-9_]*`).
pub fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// Python keywords and builtins a generated name must not shadow.
pub const PY_RESERVED: &[&str] = &[
    "False",
    "None",
    "True",
    "and",
    "as",
    "assert",
    "async",
    "await",
    "break",
    "class",
    "continue",
    "def",
    "del",
    "elif",
    "else",
    "except",
    "finally",
    "for",
    "from",
    "global",
    "if",
    "import",
    "in",
    "is",
    "lambda",
    "nonlocal",
    "not",
    "or",
    "pass",
    "raise",
    "return",
    "try",
    "while",
    "with",
    "yield",
    "jax",
    "jnp",
    "np",
    // Keyword arguments every generated ufunc takes.
    "overwrite_input",
    // What every generated module defines besides its functions.
    "EXPORT_TARGETS",
    "export_disabled_checks",
    "_spec",
    "_ufuncs",
    "_functions",
];

/// C++ keywords (C++20), alternative tokens, and macros of the standard and CUDA headers
/// the loops include: an input of such a name is a C++ variable that cannot be declared.
const CPP_RESERVED: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    // Macros (<cmath>, <cstddef>, <cerrno>, <cassert>, <climits>, <cfloat>, CUDA).
    "NULL",
    "EOF",
    "errno",
    "assert",
    "NAN",
    "INFINITY",
    "HUGE_VAL",
    "HUGE_VALF",
    "M_PI",
    "M_E",
    "EDOM",
    "ERANGE",
    "CHAR_BIT",
    "INT_MAX",
    "INT_MIN",
    "LONG_MAX",
    "DBL_MAX",
    "DBL_MIN",
    "DBL_EPSILON",
    "FLT_MAX",
    "FLT_MIN",
    "FLT_EPSILON",
    "__global__",
    "__device__",
    "__host__",
    "__forceinline__",
    // Namespaces and types the loops use.
    "std",
    "xsf",
    "int32_t",
    "int64_t",
    "size_t",
];

/// Whether an input name would not be a valid C++ variable in the generated loops.
pub fn is_cpp_keyword(s: &str) -> bool {
    CPP_WORDS.contains(&s) || CPP_RESERVED.contains(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(v: Vec<Name>) -> Vec<String> {
        v.into_iter().map(|n| n.text).collect()
    }

    #[test]
    fn cpp_names_skip_qualified_calls_and_literals() {
        assert_eq!(texts(cpp_free_names("xsf::cephes::jv(v, x)")), ["v", "x"]);
        assert_eq!(texts(cpp_free_names("xsf::lambertw(z, 0, 1e-8)")), ["z"]);
        assert_eq!(texts(cpp_free_names("xsf::sici(x, si, ci)")), ["x", "si", "ci"]);
        assert_eq!(texts(cpp_free_names("xsf::expn(static_cast<int>(n), x) + y")), ["n", "x", "y"]);
        assert_eq!(texts(cpp_free_names("std::complex<double>(a.real(), 2.5e+3)")), ["a"]);
    }
}
