//! One escaper per target language: every spec string reaches generated Python, Rust, C++
//! and wheel metadata through these (templates through the filters of the same names).

/// A Python string literal (double-quoted) holding exactly `s`: backslashes, quotes and
/// control characters escaped, other characters kept.
pub fn py_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
                let n = c as u32;
                if n <= 0xff {
                    out.push_str(&format!("\\x{n:02x}"));
                } else {
                    out.push_str(&format!("\\u{n:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The text of a Python docstring (inside `"""..."""`) that reads as `s`: backslashes and
/// quotes escaped (so no `\N`, `\x` or closing quotes), control characters other than
/// newlines escaped, line breaks kept.
pub fn py_doc(s: &str) -> String {
    let lit = py_str(s);
    lit[1..lit.len() - 1].replace("\\n", "\n")
}

/// A Python float literal: `float("inf")`, `float("-inf")`, `float("nan")` for what has no
/// literal, else the shortest repr that reads back as `f`.
pub fn py_float(f: f64) -> String {
    if f.is_nan() {
        "float(\"nan\")".into()
    } else if f.is_infinite() {
        if f > 0.0 { "float(\"inf\")" } else { "float(\"-inf\")" }.into()
    } else {
        format!("{f:?}")
    }
}

/// A Rust string literal holding exactly `s`.
pub fn rust_str(s: &str) -> String {
    format!("{s:?}")
}

/// A C++ narrow string literal holding exactly `s` (UTF-8 bytes; non-ASCII as octal escapes).
pub fn cpp_str(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            b'?' => out.push_str("\\?"), // no trigraphs
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

/// One line of wheel METADATA / PKG-INFO (a header value): whitespace and control
/// characters collapse to single spaces, so no value can start another header.
pub fn metadata_line(s: &str) -> String {
    s.split(|c: char| c.is_whitespace() || c.is_control()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// A comment line's text: the same collapse (a newline would end the comment).
pub fn comment(s: &str) -> String {
    metadata_line(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_literals_hold_their_text() {
        assert_eq!(py_str(r#"a "b" \xi"#), r#""a \"b\" \\xi""#);
        assert_eq!(py_str("x\ny\u{0}"), r#""x\ny\x00""#);
        assert_eq!(py_str("é"), "\"é\"");
    }

    #[test]
    fn docstrings_and_floats() {
        assert_eq!(py_doc("Uses \\xi and \"\"\"\nnext"), "Uses \\\\xi and \\\"\\\"\\\"\nnext");
        assert_eq!(py_float(f64::INFINITY), "float(\"inf\")");
        assert_eq!(py_float(0.5), "0.5");
    }

    #[test]
    fn metadata_is_one_line() {
        assert_eq!(metadata_line("a\nRequires-Dist: evil\r\n b"), "a Requires-Dist: evil b");
    }

    #[test]
    fn cpp_literals_escape_bytes() {
        assert_eq!(cpp_str("a\"?é"), "\"a\\\"\\?\\303\\251\"");
    }
}
